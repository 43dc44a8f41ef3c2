@g = addrspace(1) global i32 0
define i32 @f() {
  ret i32 0
}
