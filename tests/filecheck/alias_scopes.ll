; A duplicated pointer and its shadow are disjoint objects (Enzyme's
; contract for enzyme_dup): every derivative says so to LLVM with alias
; scopes (src/ad/ir/alias_scopes.c), a primal access in the parameter's
; "primal" scope and noalias of its "shadow" scope, a shadow access the
; other way round, so the optimizer may keep x[0] in a register across
; the stores into x's shadow.  A pointer whose shadow may be itself
; (enzyme_const kept in shadowed memory) gets none.
; EMIT: -O 0

; y[i] = x[0] * x[i]
define void @scale(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %x0 = load double, ptr %x
  %px = getelementptr double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %p = fmul double %x0, %xi
  %py = getelementptr double, ptr %y, i64 %i
  store double %p, ptr %py
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

declare void @__enzyme_fwddiff(ptr, ...)
declare void @__enzyme_autodiff(ptr, ...)

define void @tangent(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  call void (ptr, ...) @__enzyme_fwddiff(ptr @scale, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_dup", ptr %y, ptr %dy, i64 %n)
  ret void
}

define void @gradient(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @scale, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_dup", ptr %y, ptr %dy, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffescale(ptr %x, ptr %"x'"
; CHECK: %x0 = load double, ptr %x, align 8, !alias.scope ![[XP:[0-9]+]], !noalias ![[XS:[0-9]+]]
; CHECK: %"x0'" = load double, ptr %"x'", align 8, !alias.scope ![[XS]], !noalias ![[XP]]
; CHECK: store double %p, ptr %py, align 8, !alias.scope ![[YP:[0-9]+]], !noalias ![[YS:[0-9]+]]
; CHECK: store double %{{[0-9]+}}, ptr %"py'", align 8, !alias.scope ![[YS]], !noalias ![[YP]]
; CHECK-LABEL: define internal void @diffescale(ptr %x, ptr %"x'"
; CHECK: load double, ptr %"x'", align 8, !alias.scope ![[RXS:[0-9]+]], !noalias ![[RXP:[0-9]+]]
; CHECK: store double %{{[0-9]+}}, ptr %"x'", align 8, !alias.scope ![[RXS]], !noalias ![[RXP]]
; The scopes are the function's own (self-referential, so the inliner
; copies them per call site), each pair in a domain of its own.
; CHECK: ![[XP]] = !{![[XPN:[0-9]+]]}
; CHECK-NEXT: ![[XPN]] = distinct !{![[XPN]], ![[XD:[0-9]+]], !"primal"}
; CHECK-NEXT: ![[XD]] = distinct !{![[XD]], !"tanjit: param 0 and its shadow"}
; CHECK-NEXT: ![[XS]] = !{![[XSN:[0-9]+]]}
; CHECK-NEXT: ![[XSN]] = distinct !{![[XSN]], ![[XD]], !"shadow"}
