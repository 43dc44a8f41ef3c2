define i16 @f(<2 x i16> %v) {
  %x = extractelement <2 x i16> %v, i32 2
  ret i16 %x
}
