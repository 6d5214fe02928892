; The tape header of a gradient whose pair records nothing
; (src/ad/rev/tape.c, sync_one): the reverse only reads its copy of the
; header (it pops nothing), so it copies the header in and never back
; out; at -O2 it then no longer takes the tape, and the gradient keeps no
; header, no memset of it and no free(NULL).  An aug with no effect (no
; store, no call that may write, unwind or not return: sumsq's loads and
; fmuladds) is not called at all (src/ad/rev/cache.c,
; aug_has_no_effect): sumsq's gradient is its reverse alone, as Enzyme's
; is.  withsqrt's libm sqrt of 3 x may set errno, so its aug is still
; called; softsqrt's sqrt of x^2 + 0.01 cannot (never negative: n-body's
; softened r2), so its aug is not.  A pair that records (keep, whose trip
; count the data decide) keeps its header, the copy back and the free.
; EMIT: -O 0
; EMIT: -O 2 | --check-prefix=OPT

define double @sumsq(ptr nocapture readonly %x) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 64
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

define double @keep(ptr nocapture readonly %x) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %i1 = add nuw nsw i64 %i, 1
  %c = fcmp olt double %s1, 4.0
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}

define double @withsqrt(ptr nocapture readonly %x) #0 {
entry:
  %v = load double, ptr %x
  %w = fmul double %v, 3.0
  %r = call double @sqrt(double %w) #2
  ret double %r
}

define double @softsqrt(ptr nocapture readonly %x) #0 {
entry:
  %v = load double, ptr %x
  %w = call double @llvm.fmuladd.f64(double %v, double %v, double 1.0e-2)
  %r = call double @sqrt(double %w) #2
  ret double %r
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: read) }
attributes #1 = { mustprogress nofree nounwind willreturn memory(write) }
attributes #2 = { nounwind }

declare double @sqrt(double) #1
declare double @llvm.fmuladd.f64(double, double, double)

declare void @__enzyme_autodiff(ptr, ...)

define void @grad_sumsq(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @sumsq, ptr %x, ptr %dx)
  ret void
}

define void @grad_withsqrt(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @withsqrt, ptr %x, ptr %dx)
  ret void
}

define void @grad_softsqrt(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @softsqrt, ptr %x, ptr %dx)
  ret void
}

define void @grad_keep(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @keep, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define void @grad_sumsq(
; CHECK-NEXT: %tape = alloca
; CHECK-NEXT: store
; CHECK-NEXT: call void @diffesumsq(ptr %x, ptr %dx, double 1.000000e+00, ptr %tape)
; CHECK-LABEL: define void @grad_withsqrt(
; CHECK: call double @augmented_withsqrt(
; CHECK-NEXT: call void @diffewithsqrt(
; CHECK-LABEL: define void @grad_softsqrt(
; CHECK-NEXT: %tape = alloca
; CHECK-NEXT: store
; CHECK-NEXT: call void @diffesoftsqrt(
; CHECK-LABEL: define void @grad_keep(
; CHECK: call double @augmented_keep(

; The caller's header's fields: three copied in, and three copied back
; at the return only where the reverse pops.
; CHECK-LABEL: define internal void @diffekeep(
; CHECK-COUNT-6: getelementptr inbounds {{(nuw )?}}{ ptr, i64, i64 }, ptr %tape, i32 0, i32
; CHECK-NOT: ptr %tape, i32
; CHECK: {{^}$}}

; CHECK-LABEL: define internal void @diffesumsq(
; CHECK-COUNT-3: getelementptr inbounds {{(nuw )?}}{ ptr, i64, i64 }, ptr %tape, i32 0, i32
; CHECK-NOT: ptr %tape, i32
; CHECK: {{^}$}}

; OPT-LABEL: define void @grad_sumsq(
; OPT-NEXT: tail call fastcc void @diffesumsq(ptr %x, ptr %dx)
; OPT-NEXT: ret void


; OPT-LABEL: define void @grad_keep(
; OPT-NEXT: %tape = alloca
; OPT: @diffekeep({{.*}}ptr {{(nonnull )?}}%tape)
; OPT: call void @free(

; OPT-LABEL: define internal fastcc void @diffesumsq(ptr
; OPT-NOT: %tape
; OPT: ret void
