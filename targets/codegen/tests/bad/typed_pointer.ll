define void @f(i32 addrspace(1)* %p) {
  ret void
}
