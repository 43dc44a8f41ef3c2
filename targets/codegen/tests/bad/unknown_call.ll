declare i32 @llvm.amdgcn.workitem.id.y()
define i32 @f() {
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  ret i32 %y
}
