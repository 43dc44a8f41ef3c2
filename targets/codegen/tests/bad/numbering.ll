define i32 @f(i32 %0) {
  %5 = add i32 %0, 1
  ret i32 %5
}
