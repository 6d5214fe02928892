; The reverse of 1 / sqrt(x) (src/ad/rev/adjoint.c, share_reciprocals):
; the quotient's partial -q^2 rebuilds the primal q = 1 / s, and the sqrt
; row's 0.5 / s becomes 0.5 * (1 / s): the same instruction as the
; rebuilt primal's, which LLVM then shares (one division per element, as
; Enzyme's fast-math gradient has).  Strict derivatives keep 0.5 / s.
; EMIT: -O 0
; EMIT: -O 0 --strict-derivatives | --check-prefix=STRICT

define double @inv_norm(ptr %x) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %e = phi double [ 0.0, %entry ], [ %e1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %r2 = call double @llvm.fmuladd.f64(double %v, double %v, double 1.0e-2)
  %s = call double @llvm.sqrt.f64(double %r2)
  %q = fdiv double 1.0, %s
  %e1 = fsub double %e, %q
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 16
  br i1 %c, label %exit, label %loop
exit:
  ret double %e1
}

declare double @llvm.sqrt.f64(double)
declare double @llvm.fmuladd.f64(double, double, double)
declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @inv_norm, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal void @diffeinv_norm(
; CHECK: %[[S:[a-z0-9.]+]] = call double @llvm.sqrt.f64
; CHECK: fdiv double 1.000000e+00, %[[S]]
; CHECK: %recip = fdiv double 1.000000e+00, %[[S]]
; CHECK-NEXT: fmul reassoc nsz contract double 5.000000e-01, %recip
; CHECK-NOT: fdiv reassoc nsz contract double 5.000000e-01

; STRICT-LABEL: define internal void @diffeinv_norm(
; STRICT-NOT: %recip
; STRICT: fdiv double 5.000000e-01
