; Counted loops (src/ad/rev/loops.c, final_in_step): an induction variable
; beside the one the latch compares gets its final value from that one's
; in the reverse, not from a record on the exit edge.
; In pairs (clang -O2's n-body nest), the inner start k = i + 1 is an
; induction variable of the outer loop of its own; the outer loop runs 16
; times, so k ends at 1 + 15 * 1 and the aug records nothing at all.
; In rows, the counter counts down from the parameter %n to 1 and the
; index j steps by 3 from 0: it ends at 0 + (n - 1) * 3.  In strided, the
; compared index steps by 2 (its trip is no difference of values), so j's
; final value is recorded on the exit edge as before.
; EMIT: -O 0
; EMIT: -O 2 | --check-prefix=OPT

define double @pairs(ptr nocapture readonly %x) #0 {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %k = phi i64 [ 1, %entry ], [ %k1, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %latch ]
  %xi.p = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %xi.p
  %i1 = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i, 15
  br i1 %more, label %pre, label %latch
pre:
  br label %inner
inner:
  %j = phi i64 [ %k, %pre ], [ %j1, %inner ]
  %t = phi double [ %s, %pre ], [ %t1, %inner ]
  %xj.p = getelementptr inbounds double, ptr %x, i64 %j
  %xj = load double, ptr %xj.p
  %d = fsub double %xj, %xi
  %r2 = call double @llvm.fmuladd.f64(double %d, double %d, double 1.0e-2)
  %r = call double @llvm.sqrt.f64(double %r2)
  %q = fdiv double 1.0, %r
  %t1 = fsub double %t, %q
  %j1 = add nuw nsw i64 %j, 1
  %cj = icmp eq i64 %j1, 16
  br i1 %cj, label %latch, label %inner
latch:
  %s2 = phi double [ %s, %outer ], [ %t1, %inner ]
  %k1 = add nuw nsw i64 %k, 1
  %ci = icmp eq i64 %i1, 16
  br i1 %ci, label %exit, label %outer
exit:
  ret double %s2
}

define double @rows(ptr nocapture readonly %x, i64 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ %n, %entry ], [ %i1, %loop ]
  %j = phi i64 [ 0, %entry ], [ %j1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %j1 = add nuw nsw i64 %j, 3
  %i1 = add nsw i64 %i, -1
  %c = icmp eq i64 %i1, 0
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

define double @strided(ptr nocapture readonly %x) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %j = phi i64 [ 1, %entry ], [ %j1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %j1 = add nuw nsw i64 %j, 1
  %i1 = add nuw nsw i64 %i, 2
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: read) }

declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.sqrt.f64(double)
declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @pairs, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @rows, ptr %x, ptr %dx, i64 %n)
  call void (ptr, ...) @__enzyme_autodiff(ptr @strided, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal double @augmented_strided(
; CHECK: loop.exit:
; CHECK-NEXT: call ptr @tanjit.tape.reserve.augmented_strided(ptr %tape.local, i64 8)
; CHECK-LABEL: define internal void @diffestrided(
; CHECK: loop.enter:
; CHECK-NEXT: store i64 6, ptr %loop.slot{{[0-9]+}}
; CHECK: %loop.entry = load i64

; CHECK-LABEL: define internal double @augmented_pairs(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffepairs(
; CHECK-NOT: taped
; CHECK-NOT: loop.entry
; the outer loop's entry: i ends at 16 - 1, k at 1 + 15 * 1 (folded)
; CHECK: store i64 15, ptr %loop.slot, align 8
; CHECK-NEXT: store i64 16, ptr %loop.slot{{[0-9]+}}, align 8
; CHECK-NEXT: br label

; CHECK-LABEL: define internal double @augmented_rows(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @differows(
; CHECK-NOT: taped
; CHECK-NOT: loop.entry
; CHECK: store i64 1, ptr %loop.slot{{[0-9]+}}, align 8
; CHECK-NEXT: %trip = sub i64 %n, 1
; CHECK-NEXT: %iv.moved = mul i64 %trip, 3
; CHECK-NEXT: %iv.final = add i64 0, %iv.moved
; CHECK-NEXT: store i64 %iv.final, ptr %loop.slot, align 8

; At -O2 the gradients of pairs and rows are their reverses alone: their
; augs record nothing and have no effect (src/ad/rev/cache.c), and their
; reverses no longer take the tape; strided's keeps its tape.
; OPT-LABEL: define void @grad(
; OPT-NEXT: %tape = alloca
; OPT-NEXT: tail call fastcc void @diffepairs(ptr %x, ptr %dx)
; OPT-NEXT: tail call fastcc void @differows(ptr %x, ptr %dx, i64 %n)
; OPT: call fastcc void @augmented_strided(ptr %x, ptr {{(nonnull )?}}%tape)
; OPT-NOT: augmented_pairs
; OPT-NOT: augmented_rows
