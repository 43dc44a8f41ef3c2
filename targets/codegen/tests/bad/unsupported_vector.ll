define <4 x i32> @f(<4 x i32> %a) {
  ret <4 x i32> %a
}
