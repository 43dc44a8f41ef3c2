; A function on which LLVM 14's llc does not terminate: `SI Fold Operands`
; keeps commuting an instruction (seen with gdb: a MachineFunctionPass in
; TargetInstrInfo::commuteInstruction, forever). llvm-reduce made it from a
; generated function of `bench/regalloc.sh` (before its immediates were
; restricted to inline constants):
;
;   llc -O2 -mtriple=amdgcn -mcpu=gfx900 -amdgpu-scalar-ir-passes=0 \
;       bench/llc14-si-fold-operands-hang.ll -o /dev/null     # never ends
;
; With 3365172370209625620 replaced by 5 or 17179869184 (low 32 bits an
; inline constant) it compiles at once; with 1762532884 (a 32-bit literal)
; it hangs too. With the default IR passes (LICM on) this small function
; compiles, but generated functions of 40k instructions hang the same way.

define void @f(i128 %a4, i128 %t1, i128 %v4, i128 %t407, i32 %t408, i1 %t569) {
bb0:
  %t11 = add i128 %a4, 0
  %v42 = and i128 %a4, 1
  br label %bb1

bb1:                                              ; preds = %bb0
  %t6 = trunc i128 0 to i32
  br label %bb3

bb3:                                              ; preds = %bb3, %bb1
  %t40 = icmp ne i32 0, 0
  br i1 false, label %bb3, label %bb4

bb4:                                              ; preds = %bb3
  %t41 = trunc i128 0 to i64
  br label %bb5

bb5:                                              ; preds = %bb4
  %t46 = trunc i32 0 to i16
  br label %bb10

bb10:                                             ; preds = %bb5
  %t1743 = trunc i32 0 to i16
  br label %bb17

bb17:                                             ; preds = %bb10
  %t242 = trunc i32 0 to i16
  br label %bb18

bb18:                                             ; preds = %bb17
  %t249 = trunc i128 0 to i16
  br label %bb20

bb20:                                             ; preds = %bb18
  %v89 = add i128 3365172370209625620, 0
  br label %bb22

bb22:                                             ; preds = %bb20
  %t289 = trunc i128 0 to i32
  br label %bb23

bb23:                                             ; preds = %bb22
  %t1756 = trunc i32 0 to i16
  br label %bb24

bb24:                                             ; preds = %bb48, %bb23
  %v100 = phi i32 [ 0, %bb23 ], [ 0, %bb48 ]
  br label %bb25

bb25:                                             ; preds = %bb24
  %t324 = trunc i128 0 to i32
  br label %bb30

bb30:                                             ; preds = %bb25
  %t4073 = lshr i128 %a4, 0
  %t4084 = trunc i128 %a4 to i32
  %t409 = lshr i128 0, 0
  %t410 = trunc i128 %v89 to i32
  %v132 = xor i32 %t408, %t410
  br label %bb32

bb32:                                             ; preds = %bb30
  %t416 = trunc i128 0 to i32
  br label %bb36

bb36:                                             ; preds = %bb32
  %t457 = icmp ne i32 0, 0
  br label %bb38

bb38:                                             ; preds = %bb36
  %t461 = trunc i64 0 to i32
  br label %bb42

bb42:                                             ; preds = %bb38
  %t505 = trunc i64 0 to i16
  br label %bb43

bb43:                                             ; preds = %bb42
  %t1773 = trunc i32 0 to i16
  br label %bb48

bb48:                                             ; preds = %bb43
  %v101 = add i32 0, 0
  %t5695 = icmp ne i32 0, 0
  br i1 %t569, label %bb24, label %bb49

bb49:                                             ; preds = %bb48
  br i1 undef, label %bb50, label %bb51

bb50:                                             ; preds = %bb49
  %v189 = xor i128 %v89, %a4
  br label %bb52

bb51:                                             ; preds = %bb49
  %t589 = trunc i32 %v132 to i16
  %t590 = icmp ne i16 %t589, 0
  br i1 %t590, label %bb61, label %bb62

bb52:                                             ; preds = %bb50
  %t591 = trunc i128 0 to i16
  br label %bb54

bb54:                                             ; preds = %bb52
  %t636 = trunc i128 %v189 to i16
  %t637 = icmp ne i16 %t636, 0
  br i1 %t637, label %bb55, label %bb56

bb55:                                             ; preds = %bb54
  %v208 = mul i32 0, 0
  ret void

bb56:                                             ; preds = %bb54
  ret void

bb61:                                             ; preds = %bb51
  %t719 = icmp ult i32 0, 0
  ret void

bb62:                                             ; preds = %bb51
  ret void
}
