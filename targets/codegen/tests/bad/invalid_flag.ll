define i32 @f(i32 %a) {
  %x = and nuw i32 %a, 1
  ret i32 %x
}
