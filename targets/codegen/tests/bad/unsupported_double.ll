define double @f(double %a) {
  %r = fadd double %a, 1.0
  ret double %r
}
