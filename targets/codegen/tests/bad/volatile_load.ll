define i32 @f(ptr addrspace(1) %p) {
  %v = load volatile i32, ptr addrspace(1) %p
  ret i32 %v
}
