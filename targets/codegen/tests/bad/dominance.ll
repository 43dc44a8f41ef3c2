define i32 @f(i1 %c, i32 %a) {
entry:
  br i1 %c, label %then, label %join
then:
  %t = add i32 %a, 1
  br label %join
join:
  %r = add i32 %t, 1
  ret i32 %r
}
