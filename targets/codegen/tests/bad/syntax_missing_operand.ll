define i32 @f(i32 %a) {
  %x = add i32 %a
  ret i32 %x
}
