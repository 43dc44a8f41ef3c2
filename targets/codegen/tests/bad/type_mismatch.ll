define i32 @f(i64 %a) {
  %x = add i32 %a, 1
  ret i32 %x
}
