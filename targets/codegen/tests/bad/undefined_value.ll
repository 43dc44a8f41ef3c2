define i32 @f(i32 %a) {
  %x = add i32 %a, %b
  ret i32 %x
}
