; Derivative reassociation (the default): a float load's shadow comes
; before the primal load in a block that carries a float accumulator
; around itself (a one-block reduction loop), so LLVM's Reassociate ranks
; the shadow lower and the tangent sum takes Enzyme's association (the
; width-8 matrix-vector loop, docs/bench-side-by-side.md); everywhere else
; the primal load comes first (stencil's cubic term keeps its factoring).
; rules/inst.c, in_block_carrying_float.
; EMIT: -O 0
@enzyme_dup = external global i32
declare double @__enzyme_fwddiff(ptr, ...)

define double @f(ptr %a, ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %pa = getelementptr double, ptr %a, i64 %i
  %va = load double, ptr %pa
  %px = getelementptr double, ptr %x, i64 %i
  %vx = load double, ptr %px
  %m = fmul double %va, %vx
  %s1 = fadd double %s, %m
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  %last = load double, ptr %a
  %r = fmul double %s1, %last
  ret double %r
}

define double @df(ptr %a, ptr %da, ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr @enzyme_dup, ptr %a, ptr %da, ptr @enzyme_dup, ptr %x, ptr %dx, i64 %n)
  ret double %r
}

; CHECK-LABEL: define internal double @fwddiffef(
; CHECK:       loop:
; CHECK:         %"s'" = phi double [ 0.000000e+00, %entry ], [ [[DS:%.*]], %loop ]
; CHECK:         %"va'" = load double, ptr %"pa'"
; CHECK-NEXT:    %va = load double, ptr %pa
; CHECK:         %"vx'" = load double, ptr %"px'"
; CHECK-NEXT:    %vx = load double, ptr %px
; CHECK:         [[DS]] = fadd reassoc nsz contract double %"s'",
; CHECK:       done:
; CHECK-NEXT:    %last = load double, ptr %a
; CHECK-NEXT:    %"last'" = load double, ptr %"a'"
