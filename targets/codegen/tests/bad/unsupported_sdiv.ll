define i32 @f(i32 %a, i32 %b) {
  %q = sdiv i32 %a, %b
  ret i32 %q
}
