declare spir_func <2 x i32> @_Z6mul_hiDv2_jS_(<2 x i32>, <2 x i32>)
define spir_kernel void @f(<2 x i32> addrspace(1)* %p) {
  %v = load <2 x i32>, <2 x i32> addrspace(1)* %p, align 8
  %h = tail call spir_func <2 x i32> @_Z6mul_hiDv2_jS_(<2 x i32> %v, <2 x i32> %v)
  store <2 x i32> %h, <2 x i32> addrspace(1)* %p, align 8
  ret void
}
