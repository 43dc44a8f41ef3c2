define void @f(i32 %a, ...) {
  ret void
}
