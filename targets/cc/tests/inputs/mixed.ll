; Arguments of different widths, as in `regdesc-cc run --arg "i64 5" --arg "i32 -3"`.
define i128 @widen_mul(i64 %a, i32 %b) {
entry:
  %wa = sext i64 %a to i128
  %wb = sext i32 %b to i128
  %p = mul i128 %wa, %wb
  %big = shl i128 %p, 64
  %r = add i128 %big, %p
  ret i128 %r
}

define half @hadd(half %a, half %b) {
  %s = fadd half %a, %b
  ret half %s
}

define float @fmul(float %a, float %b) {
  %s = fmul float %a, %b
  ret float %s
}

define i32 @shift(i32 %a, i32 %n) {
  %s = shl i32 %a, %n
  ret i32 %s
}

define i32 @spin(i32 %a) {
entry:
  br label %loop
loop:
  br label %loop
}

define amdgpu_kernel void @ids(ptr addrspace(1) %out) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %g = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i64, ptr addrspace(1) %out, i32 %id
  %w = zext i32 %wg to i64
  %k = shl i64 %w, 32
  %v = or i64 %g, %k
  store i64 %v, ptr addrspace(1) %p
  ret void
}

define <2 x i16> @lanes(<2 x i16> %v) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %t = trunc i32 %id to i16
  %r = insertelement <2 x i16> %v, i16 %t, i32 1
  ret <2 x i16> %r
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i64 @_Z13get_global_idj(i32)
