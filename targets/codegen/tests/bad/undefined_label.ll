define void @f() {
entry:
  br label %nowhere
}
