define ptr addrspace(1) @f(ptr addrspace(1) %p, i32 %k) {
  %q = getelementptr { i32, i64 }, ptr addrspace(1) %p, i64 1, i32 %k
  ret ptr addrspace(1) %q
}
