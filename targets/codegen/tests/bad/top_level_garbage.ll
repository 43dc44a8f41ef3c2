define i32 @f() {
  ret i32 0
}
this is not llvm
