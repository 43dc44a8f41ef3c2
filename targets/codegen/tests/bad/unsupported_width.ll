define i24 @f(i24 %a) {
  ret i24 %a
}
