define i1 @f(<2 x i16> %a) {
  %c = icmp eq <2 x i16> %a, zeroinitializer
  ret i1 false
}
