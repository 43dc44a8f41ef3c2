define i32 @f(i64 %a) {
  %x = bitcast i64 %a to i32
  ret i32 %x
}
