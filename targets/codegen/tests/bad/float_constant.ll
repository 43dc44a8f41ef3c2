define float @f(float %a) {
  %r = fadd float %a, 0.1
  ret float %r
}
