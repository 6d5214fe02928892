; The IR the math rules emit, one shape per kind of row:
;  - sin: its partial cos x times the argument's tangent;
;  - maxnum (a row that chooses): the tangent of the argument chosen,
;    selected (x where x >= y or y is NaN), never weighted;
;  - sqrt: 1/(2 sqrt x) guarded by `nz`, so a zero argument gives 0.
; In strict mode: derivative_fp.ll checks the flags the default adds.
; EMIT: -O 0 --strict-derivatives
declare double @__enzyme_fwddiff(ptr, ...)
declare double @sin(double)
declare double @llvm.maxnum.f64(double, double)
declare double @sqrt(double)
define double @f(double %x, double %y) {
  %s = call double @sin(double %x)
  %m = call double @llvm.maxnum.f64(double %s, double %y)
  %r = call double @sqrt(double %m)
  ret double %r
}
define double @df(double %x, double %y) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %y, double 0.0)
  ret double %d
}

; CHECK-LABEL: define internal double @fwddiffef(
; CHECK:         %s = call double @sin(double %x)
; CHECK-NEXT:    [[COS:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[DS:%.*]] = fmul double [[COS]], %"x'"
; CHECK:         %m = call double @llvm.maxnum.f64(double %s, double %y)
; CHECK-NEXT:    [[GE:%.*]] = fcmp oge double %s, %y
; CHECK-NEXT:    [[IND:%.*]] = uitofp i1 [[GE]] to double
; CHECK-NEXT:    [[NAN:%.*]] = fcmp uno double %y, %y
; CHECK-NEXT:    [[ONE:%.*]] = fcmp one double [[IND]], 0.000000e+00
; CHECK-NEXT:    [[TAKE:%.*]] = or i1 [[ONE]], [[NAN]]
; CHECK-NEXT:    [[DM:%.*]] = select i1 [[TAKE]], double [[DS]], double %"y'"
; CHECK:         %r = call double @sqrt(double %m)
; CHECK-NEXT:    [[HALF:%.*]] = fdiv double 5.000000e-01, %r
; CHECK-NEXT:    [[NZ:%.*]] = fcmp une double %m, 0.000000e+00
; CHECK-NEXT:    [[PART:%.*]] = select i1 [[NZ]], double [[HALF]], double 0.000000e+00
; CHECK-NEXT:    [[DR:%.*]] = fmul double [[PART]], [[DM]]
; CHECK-NEXT:    ret double [[DR]]
