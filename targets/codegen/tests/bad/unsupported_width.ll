define i512 @f(i512 %a) {
  ret i512 %a
}
