define i32 @f() {
  %x = add i32 undef, 1
  ret i32 %x
}
