define i2048 @f(i2048 %a) {
  ret i2048 %a
}
