define ptr addrspace(1) @f(ptr addrspace(1) %p) {
  %q = getelementptr <2 x i32>, ptr addrspace(1) %p, i64 1, i32 1
  ret ptr addrspace(1) %q
}
