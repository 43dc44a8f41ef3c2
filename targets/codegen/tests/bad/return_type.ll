define i64 @f(i32 %a) {
  ret i32 %a
}
