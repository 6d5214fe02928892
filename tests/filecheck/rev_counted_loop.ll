; Counted loops in the reverse (src/ad/rev/loops.c): the index is stepped
; back in a slot of the reverse, never recorded, and the header's reverse
; tells the first iteration by the index, not by a recorded block id.
; sumsq's trip count is its parameter n: the aug records nothing at all.
; In tri, a triangular nest whose inner loop starts at the outer index,
; neither loop records per iteration.  In until, the trip count depends on
; the data (the exit compares a sum), so the final index is recorded once,
; on the exit edge, and the loop itself records nothing.
; EMIT: -O 0

define double @sumsq(ptr %x, i64 %n) {
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
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

define double @tri(ptr %x, i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %latch ]
  %xi.p = getelementptr inbounds double, ptr %x, i32 %i
  %xi = load double, ptr %xi.p
  br label %inner
inner:
  %j = phi i32 [ %i, %outer ], [ %j1, %inner ]
  %t = phi double [ %s, %outer ], [ %t1, %inner ]
  %xj.p = getelementptr inbounds double, ptr %x, i32 %j
  %xj = load double, ptr %xj.p
  %m = fmul double %xi, %xj
  %t1 = fadd double %t, %m
  %j1 = add nsw i32 %j, 1
  %cj = icmp eq i32 %j1, %n
  br i1 %cj, label %latch, label %inner
latch:
  %s2 = phi double [ %t1, %inner ]
  %i1 = add nsw i32 %i, 1
  %ci = icmp eq i32 %i1, %n
  br i1 %ci, label %exit, label %outer
exit:
  ret double %s2
}

define double @until(ptr %x) {
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

declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx, i64 %n, i32 %m) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @sumsq, ptr %x, ptr %dx, i64 %n)
  call void (ptr, ...) @__enzyme_autodiff(ptr @tri, ptr %x, ptr %dx, i32 %m)
  call void (ptr, ...) @__enzyme_autodiff(ptr @until, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal double @augmented_until(
; CHECK: loop:
; CHECK-NOT: tanjit.tape.reserve
; CHECK: loop.exit:
; CHECK-NEXT: call ptr @tanjit.tape.reserve.augmented_until(ptr %tape.local, i64 8)
; CHECK-LABEL: define internal void @diffeuntil(
; CHECK-NOT: block.id
; CHECK: %first = icmp eq i64 %loop.value, 0
; CHECK: %iv.back = sub i64 %iv, 1
; CHECK: loop.enter:
; CHECK: %loop.entry = load i64

; CHECK-LABEL: define internal double @augmented_sumsq(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffesumsq(
; CHECK-NOT: taped
; CHECK-NOT: block.id
; CHECK: %iv.back = sub i64 %iv, 1
; CHECK-NOT: taped
; CHECK: %iv.final = sub i64 %n, 1

; CHECK-LABEL: define internal double @augmented_tri(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffetri(
; CHECK-NOT: taped
; CHECK-NOT: block.id
; the inner loop's first iteration: its index at the outer index
; CHECK: %first{{[0-9]+}} = icmp eq i32 %loop.value{{[0-9]+}}, %loop.value{{[0-9]+}}
; CHECK-NOT: taped
; CHECK: %iv.final = sub i32 %n, 1
; CHECK-NOT: taped
; CHECK: ret
