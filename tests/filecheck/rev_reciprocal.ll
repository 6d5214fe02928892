; The reverse of k / sqrt(x) (src/ad/rev/adjoint.c).  With the sqrt used
; nowhere else (fold_reciprocal_sqrt) the two partials, the quotient's
; -q^2 and the sqrt row's 0.5 / s, become one: x's adjoint gets
; -k/2 / (x s), no rebuilt q and a single division after the sqrt, as
; Enzyme's fast-math gradient has.  With the sqrt used again
; (share_reciprocals) the quotient's partial rebuilds q = 1 / s and the
; sqrt row's 0.5 / s becomes 0.5 * (1 / s), the same division as the
; rebuilt q's, which LLVM shares.  Strict derivatives keep the rows as
; written: the rebuilt q and 0.5 / s.
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

; the same with the distance itself added in: the sqrt has two uses
define double @inv_norm_plus_norm(ptr %x) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %e = phi double [ 0.0, %entry ], [ %e2, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %r2 = call double @llvm.fmuladd.f64(double %v, double %v, double 1.0e-2)
  %s = call double @llvm.sqrt.f64(double %r2)
  %q = fdiv double 1.0, %s
  %e1 = fsub double %e, %q
  %e2 = fadd double %e1, %s
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 16
  br i1 %c, label %exit, label %loop
exit:
  ret double %e2
}

declare double @llvm.sqrt.f64(double)
declare double @llvm.fmuladd.f64(double, double, double)
declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @inv_norm, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @inv_norm_plus_norm, ptr %x, ptr %dx)
  ret void
}

; (the pairs are emitted in reverse order of their requests)
; CHECK-LABEL: define internal void @diffeinv_norm_plus_norm(
; CHECK: %[[S2:[a-z0-9.]+]] = call double @llvm.sqrt.f64
; CHECK: fdiv double 1.000000e+00, %[[S2]]
; CHECK: %recip = fdiv double 1.000000e+00, %[[S2]]
; CHECK-NEXT: fmul reassoc nsz contract double 5.000000e-01, %recip
; CHECK-NOT: fdiv reassoc nsz contract double 5.000000e-01

; CHECK-LABEL: define internal void @diffeinv_norm(
; CHECK: %[[R2:[a-z0-9.]+]] = call double @llvm.fmuladd.f64
; CHECK-NEXT: %[[S:[a-z0-9.]+]] = call double @llvm.sqrt.f64(double %[[R2]])
; CHECK-NOT: fdiv double 1.000000e+00, %[[S]]
; CHECK: %[[XS:[0-9]+]] = fmul reassoc nsz contract double %[[R2]], %[[S]]
; CHECK-NEXT: fdiv reassoc nsz contract double -5.000000e-01, %[[XS]]
; CHECK-NOT: fdiv

; STRICT-LABEL: define internal void @diffeinv_norm(
; STRICT: %[[S:[a-z0-9.]+]] = call double @llvm.sqrt.f64
; STRICT-NEXT: fdiv double 1.000000e+00, %[[S]]
; STRICT-NOT: %recip
; STRICT: fdiv double 5.000000e-01, %[[S]]
