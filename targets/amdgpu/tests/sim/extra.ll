; Functions beyond the fixtures, for the simulator's llc check: i96/i192
; arithmetic, wide compares and selects, 16-bit and half operations,
; vectors, casts, uniform and divergent control flow, kernels with byte,
; half and wide global memory.
define i192 @arith_192(i192 %a, i192 %b, i192 %c) {
  %m = mul i192 %a, %b
  %s = sub i192 %m, %c
  %x = xor i192 %s, %a
  %l = lshr i192 %x, 67
  %r = add i192 %l, %b
  ret i192 %r
}

define i96 @arith_96(i96 %a, i96 %b) {
  %m = mul i96 %a, %b
  %sh = shl i96 %a, 33
  %r = or i96 %m, %sh
  %t = ashr i96 %r, 5
  ret i96 %t
}

define i128 @select_128(i128 %a, i128 %b) {
  %c = icmp slt i128 %a, %b
  %d = icmp ugt i128 %a, 1000
  %s = select i1 %c, i128 %a, i128 %b
  %t = select i1 %d, i128 %s, i128 7
  ret i128 %t
}

define i64 @cmp_64(i64 %a, i64 %b) {
  %c1 = icmp sge i64 %a, %b
  %c2 = icmp ule i64 %a, %b
  %c3 = icmp eq i64 %a, 0
  %z1 = zext i1 %c1 to i64
  %z2 = sext i1 %c2 to i64
  %z3 = zext i1 %c3 to i64
  %s = add i64 %z1, %z2
  %r = shl i64 %s, %z3
  ret i64 %r
}

define i32 @casts(i8 %a, i16 %b, i64 %c) {
  %sa = sext i8 %a to i32
  %zb = zext i16 %b to i32
  %tc = trunc i64 %c to i32
  %t16 = trunc i64 %c to i16
  %s16 = sext i16 %t16 to i32
  %x = add i32 %sa, %zb
  %y = mul i32 %x, %tc
  %z = xor i32 %y, %s16
  ret i32 %z
}

define i16 @ops_16(i16 %a, i16 %b) {
  %m = mul i16 %a, %b
  %s = sub i16 %m, %a
  %n = and i16 %b, 15
  %l = shl i16 %s, %n
  %r = ashr i16 %l, 3
  %c = icmp ult i16 %r, %a
  %o = select i1 %c, i16 %r, i16 %b
  ret i16 %o
}

define half @half_ops(half %a, half %b, half %c) {
  %m = fmul half %a, %b
  %s = fsub half %m, %c
  %t = fadd half %s, %a
  ret half %t
}

define <2 x half> @half_vec(<2 x half> %a, <2 x half> %b) {
  %m = fmul <2 x half> %a, %b
  %s = fadd <2 x half> %m, %a
  ret <2 x half> %s
}

define <2 x i16> @i16_vec(<2 x i16> %a, <2 x i16> %b) {
  %m = mul <2 x i16> %a, %b
  %s = sub <2 x i16> %m, %b
  %x = xor <2 x i16> %s, <i16 255, i16 -1>
  ret <2 x i16> %x
}

define float @float_mix(float %a, float %b) {
  %m = fmul float %a, %b
  %s = fsub float %m, %b
  %t = fadd float %s, 1.0
  ret float %t
}

define i32 @extract_insert(<2 x i32> %v, i32 %x) {
  %a = extractelement <2 x i32> %v, i32 1
  %w = insertelement <2 x i32> %v, i32 %x, i32 0
  %b = extractelement <2 x i32> %w, i32 0
  %r = sub i32 %a, %b
  ret i32 %r
}

define i64 @divergent_search(i64 %x, i32 %n) {
entry:
  %lim = and i32 %n, 63
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %cont ]
  %acc = phi i64 [ %x, %entry ], [ %acc.next, %cont ]
  %bit = and i64 %acc, 1
  %odd = icmp ne i64 %bit, 0
  br i1 %odd, label %found, label %cont
cont:
  %acc.next = lshr i64 %acc, 1
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %lim
  br i1 %more, label %loop, label %done
found:
  %e = zext i32 %i to i64
  %f = mul i64 %acc, %e
  ret i64 %f
done:
  %g = add i64 %acc, 12345
  ret i64 %g
}

define amdgpu_kernel void @bytes_and_halves(ptr addrspace(1) %out, ptr addrspace(1) %in, i8 %k, half %h) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %id64 = zext i32 %id to i64
  %pb = getelementptr i8, ptr addrspace(1) %in, i64 %id64
  %b = load i8, ptr addrspace(1) %pb
  %bk = add i8 %b, %k
  %ob = getelementptr i8, ptr addrspace(1) %out, i64 %id64
  store i8 %bk, ptr addrspace(1) %ob
  %ph = getelementptr half, ptr addrspace(1) %in, i64 %id64
  %hv = load half, ptr addrspace(1) %ph
  %hs = fadd half %hv, %h
  %oh0 = getelementptr i8, ptr addrspace(1) %out, i64 128
  %oh = getelementptr half, ptr addrspace(1) %oh0, i64 %id64
  store half %hs, ptr addrspace(1) %oh
  ret void
}

define amdgpu_kernel void @wide_kernel(ptr addrspace(1) %out, ptr addrspace(1) %in, i64 %k) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %id64 = zext i32 %id to i64
  %p = getelementptr i192, ptr addrspace(1) %in, i64 %id64
  %v = load i192, ptr addrspace(1) %p
  %kk = zext i64 %k to i192
  %w = zext i32 %wg to i192
  %m = mul i192 %v, %kk
  %s = add i192 %m, %w
  %o = getelementptr i192, ptr addrspace(1) %out, i64 %id64
  store i192 %s, ptr addrspace(1) %o
  ret void
}

define amdgpu_kernel void @divergent_loop_kernel(ptr addrspace(1) %out, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %lim = and i32 %n, 15
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i128 [ 1, %entry ], [ %s.next, %loop ]
  %z = zext i32 %i to i128
  %s.next = mul i128 %s, 3
  %s2 = add i128 %s.next, %z
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %id
  %c2 = icmp ult i32 %i.next, %lim
  %both = and i1 %c, %c2
  br i1 %both, label %loop, label %exit
exit:
  %id64 = zext i32 %id to i64
  %o = getelementptr i128, ptr addrspace(1) %out, i64 %id64
  store i128 %s2, ptr addrspace(1) %o
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()

define amdgpu_kernel void @uniform_wide(ptr addrspace(1) %out, i256 %a, i256 %b, i32 %n) {
entry:
  %m = mul i256 %a, %b
  %s = and i32 %n, 255
  %sz = zext i32 %s to i256
  %l = shl i256 %a, %sz
  %r = ashr i256 %b, %sz
  %c = icmp ult i256 %a, %b
  %x = select i1 %c, i256 %l, i256 %r
  %y = sub i256 %m, %x
  store i256 %y, ptr addrspace(1) %out
  ret void
}

define amdgpu_kernel void @uniform_branches(ptr addrspace(1) %out, i64 %a, i64 %b, i16 %h, i8 %q) {
entry:
  %c = icmp eq i64 %a, %b
  br i1 %c, label %same, label %differ
same:
  %hs = sext i16 %h to i64
  %t = add i64 %a, %hs
  br label %join
differ:
  %qz = zext i8 %q to i64
  %u = lshr i64 %a, %qz
  %v = and i64 %u, 255
  %w = mul i64 %v, %b
  br label %join
join:
  %p = phi i64 [ %t, %same ], [ %w, %differ ]
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %id64 = zext i32 %id to i64
  %o = getelementptr i64, ptr addrspace(1) %out, i64 %id64
  %pi = add i64 %p, %id64
  store i64 %pi, ptr addrspace(1) %o
  ret void
}

define amdgpu_kernel void @uniform_loop_128(ptr addrspace(1) %out, i32 %n, i128 %x) {
entry:
  %lim = and i32 %n, 31
  %z = icmp eq i32 %lim, 0
  br i1 %z, label %done, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i128 [ %x, %entry ], [ %acc.next, %loop ]
  %sq = mul i128 %acc, %acc
  %acc.next = add i128 %sq, 1
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %lim
  br i1 %more, label %loop, label %done
done:
  %r = phi i128 [ %x, %entry ], [ %acc.next, %loop ]
  store i128 %r, ptr addrspace(1) %out
  ret void
}

define i128 @divergent_exit_128(i128 %a, i32 %n) {
entry:
  %lim = and i32 %n, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %v = phi i128 [ %a, %entry ], [ %v.next, %latch ]
  %lo = trunc i128 %v to i8
  %hit = icmp eq i8 %lo, 0
  br i1 %hit, label %early, label %latch
latch:
  %v.next = lshr i128 %v, 8
  %i.next = add i32 %i, 1
  %go = icmp ule i32 %i.next, %lim
  br i1 %go, label %loop, label %late
early:
  %e = zext i32 %i to i128
  %r1 = mul i128 %v, %e
  br label %exit
late:
  %r2 = sub i128 0, %v
  br label %exit
exit:
  %r = phi i128 [ %r1, %early ], [ %r2, %late ]
  ret i128 %r
}

define i32 @halves_mix(i32 %a, i32 %b) {
  %alo = trunc i32 %a to i16
  %ahi.s = lshr i32 %a, 16
  %ahi = trunc i32 %ahi.s to i16
  %blo = trunc i32 %b to i16
  %p = mul i16 %alo, %blo
  %q = add i16 %ahi, %p
  %qa = ashr i16 %q, 2
  %pz = zext i16 %p to i32
  %qz = sext i16 %qa to i32
  %qs = shl i32 %qz, 16
  %r = or i32 %pz, %qs
  ret i32 %r
}

define i128 @many_args(i128 %a, i128 %b, i128 %c, i128 %d, i128 %e, i128 %f, i128 %g, i128 %h, i64 %i, i16 %j) {
  %s1 = add i128 %a, %b
  %s2 = sub i128 %c, %d
  %s3 = xor i128 %e, %f
  %s4 = mul i128 %g, %h
  %iz = zext i64 %i to i128
  %jz = sext i16 %j to i128
  %t1 = add i128 %s1, %s2
  %t2 = add i128 %s3, %s4
  %t3 = mul i128 %iz, %jz
  %u = add i128 %t1, %t2
  %r = add i128 %u, %t3
  ret i128 %r
}
