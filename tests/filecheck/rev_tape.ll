; What the reverse tape stores (src/ad/rev/tape.c, loops.c): sumsq writes
; no memory, so its element is reloaded and the address and its shadow are
; recomputed from the index, which the reverse steps back in a slot of its
; own (a counted loop, rev/loops.c): the aug records nothing at all, not
; even block ids (the header's reverse tells the first iteration by the
; index).  In square_in_place, which stores into x, the element read is
; the one value recorded per iteration.
; EMIT: -O 0

define double @sumsq(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %i1 = add i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

define double @square_in_place(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  store double %sq, ptr %p
  %s1 = fadd double %s, %sq
  %i1 = add i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @sumsq, ptr %x, ptr %dx, i64 %n)
  call void (ptr, ...) @__enzyme_autodiff(ptr @square_in_place, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal double @augmented_square_in_place(
; CHECK: loop:
; CHECK: call ptr @tanjit.tape.reserve.augmented_square_in_place(ptr %tape.local, i64 8)
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffesquare_in_place(
; CHECK-NOT: reloaded
; CHECK: %recomputed.shadow = getelementptr double, ptr %"x'", i64 %loop.value
; CHECK: %taped = load double
; CHECK-NOT: reloaded
; CHECK: ret void
; CHECK-LABEL: define internal double @augmented_sumsq(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffesumsq(
; CHECK-NOT: taped
; CHECK-DAG: %reloaded = load double, ptr %recomputed
; CHECK-DAG: %recomputed.shadow = getelementptr double, ptr %"x'", i64 %loop.value
