; 64-bit adds and multiplies in loops and under divergent branches
; (tests/alu64.rs: simulated against the interpreter on every platform,
; assembled with iga64 -Wall; not in ../fixtures because the Gen12LP SWSB
; model does not follow jumps back to a loop head, where IGA's
; -Xauto-deps does).

define i64 @sum_loop(i64 %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %iz = zext i32 %i to i64
  %t = add i64 %x, %iz
  %acc.next = add i64 %acc, %t
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 5
  br i1 %more, label %loop, label %done
done:
  ret i64 %acc.next
}

define i64 @divergent_add64(i64 %a, i64 %b, i32 %k) {
entry:
  %c = icmp ult i32 %k, 100
  br i1 %c, label %then, label %done
then:
  %s = add i64 %a, %b
  %m = mul i64 %s, %b
  br label %done
done:
  %r = phi i64 [ %m, %then ], [ %a, %entry ]
  ret i64 %r
}


define i64 @divergent_loop64(i64 %a, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ %a, %entry ], [ %acc.next, %loop ]
  %sq = mul i64 %acc, %acc
  %acc.next = add i64 %sq, %a
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  %lim = icmp ult i32 %i.next, 6
  %go = and i1 %more, %lim
  br i1 %go, label %loop, label %done
done:
  ret i64 %acc.next
}
