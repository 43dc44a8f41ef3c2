; Per-lane and uniform-address memory in the saddr form away from the
; entry block: the shifted work-item id is made once in the prologue and
; read in later blocks (a divergent branch, a loop), wide loads and
; stores of i64/i96/i128 there, a uniform address behind a uniform branch.

define amdgpu_kernel void @lane_mul_in_branch(ptr addrspace(1) %out, ptr addrspace(1) %in, i128 %a) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %id, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %then, label %done
then:
  %p = getelementptr i128, ptr addrspace(1) %in, i32 %id
  %b = load i128, ptr addrspace(1) %p
  %r = mul i128 %a, %b
  %q = getelementptr i128, ptr addrspace(1) %out, i32 %id
  store i128 %r, ptr addrspace(1) %q
  br label %done
done:
  ret void
}

define amdgpu_kernel void @lane_mad_loop(ptr addrspace(1) %io, i64 %a, i32 %n) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i64, ptr addrspace(1) %io, i32 %id
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %x = load i64, ptr addrspace(1) %p
  %m = mul i64 %x, %a
  %s = add i64 %m, 1
  store i64 %s, ptr addrspace(1) %p
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, 3
  br i1 %more, label %loop, label %done
done:
  ret void
}

define amdgpu_kernel void @uniform_after_branch(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %sel, i96 %a) {
entry:
  %c = icmp eq i32 %sel, 0
  br i1 %c, label %then, label %else
then:
  %b = load i96, ptr addrspace(1) %in
  %r = mul i96 %a, %b
  store i96 %r, ptr addrspace(1) %out
  br label %done
else:
  store i96 %a, ptr addrspace(1) %out
  br label %done
done:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
