define i32 @f(i32 %a) {
entry:
  %x = add i32 %a, 1
next:
  ret i32 %x
}
