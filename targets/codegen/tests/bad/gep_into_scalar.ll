define ptr addrspace(1) @f(ptr addrspace(1) %p) {
  %q = getelementptr i64, i64 addrspace(1)* %p, i64 1, i64 0
  ret ptr addrspace(1) %q
}
