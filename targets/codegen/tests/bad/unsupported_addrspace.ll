define void @f(ptr addrspace(3) %p) {
  store i32 0, ptr addrspace(3) %p
  ret void
}
