define amdgpu_ps void @f() {
  ret void
}
