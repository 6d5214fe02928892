; Strict derivatives (--strict-derivatives: adjoint arithmetic without
; nsz) start every adjoint at -0.0, the exact additive identity
; (src/ad/rev/adjoint.c, ad_rev_empty_adjoint): LLVM folds each adjoint's
; first accumulation into a copy and a negated partial into a subtraction.
; Started at +0.0, each kept an `fadd double 0.0, x` (+0 + -0 is +0, so
; LLVM may not fold it without nsz) and d(w - v)'s -1 became
; `fsub 0.0, x` then an add.
; EMIT: -O 1 --strict-derivatives | --check-prefix=STRICT

define double @energy(ptr %x, double %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %e = phi double [ 0.0, %entry ], [ %e1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %i1 = add nuw nsw i64 %i, 1
  %q = getelementptr inbounds double, ptr %x, i64 %i1
  %w = load double, ptr %q
  %d = fsub double %w, %v
  %dd = fmul double %d, %d
  %e1 = call double @llvm.fmuladd.f64(double %k, double %dd, double %e)
  %c = icmp eq i64 %i1, 7
  br i1 %c, label %exit, label %loop
exit:
  ret double %e1
}
declare double @llvm.fmuladd.f64(double, double, double)
declare double @__enzyme_autodiff(ptr, ...)

define double @grad(ptr %x, ptr %dx, double %k) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @energy, ptr %x, ptr %dx, double %k)
  ret double %r
}

; d's adjoint is k dd' + k dd' (two uses of d), w's += it, v's -= it:
; STRICT-LABEL: define internal {{.*}} @diffeenergy(
; STRICT: %[[KD:[0-9]+]] = fmul double {{(%recomputed10, %k|%k, %recomputed10)}}
; STRICT-NEXT: %[[D:[0-9]+]] = fadd double %[[KD]], %[[KD]]
; STRICT-NEXT: %[[W:[0-9]+]] = load double, ptr %recomputed.shadow,
; STRICT-NEXT: fadd double %[[W]], %[[D]]
; STRICT: %[[V:[0-9]+]] = load double, ptr %recomputed.shadow19,
; STRICT-NEXT: fsub double %[[V]], %[[D]]
; STRICT-NOT: 0.000000e+00
; STRICT: ret double
