; Joins in the reverse (src/ad/rev/adjoint.c, replay_region): boundary's
; join is reached from a branch on the inner index and from a switch on
; the outer one, no single branch decides it, but both conditions are
; induction variables compared with constants, so the reverse replays them
; and nothing is recorded per cell (u enters the sum linearly: the aug
; records nothing at all).  In data, one of the deciding conditions
; compares a loaded value: the predecessors record their ids.
; EMIT: -O 0

define double @boundary(ptr %x) {
entry:
  br label %outer
outer:
  %j = phi i64 [ 0, %entry ], [ %j1, %latch ]
  %e = phi double [ 0.0, %entry ], [ %e2, %latch ]
  %row = shl nuw nsw i64 %j, 3
  br label %inner
inner:
  %i = phi i64 [ 0, %outer ], [ %i1, %join ]
  %t = phi double [ %e, %outer ], [ %e1, %join ]
  %c = add nuw nsw i64 %i, %row
  %p = getelementptr inbounds double, ptr %x, i64 %c
  %v = load double, ptr %p
  %edge.i = icmp eq i64 %i, 7
  br i1 %edge.i, label %rim, label %test.j
test.j:
  switch i64 %j, label %interior [
    i64 7, label %rim
    i64 0, label %rim
  ]
rim:
  br label %join
interior:
  %sq = fmul double %v, %v
  %w = fmul double %sq, 0.5
  br label %join
join:
  %u = phi double [ %v, %rim ], [ %w, %interior ]
  %e1 = fadd double %t, %u
  %i1 = add nuw nsw i64 %i, 1
  %ci = icmp eq i64 %i1, 8
  br i1 %ci, label %latch, label %inner
latch:
  %e2 = phi double [ %e1, %join ]
  %j1 = add nuw nsw i64 %j, 1
  %cj = icmp eq i64 %j1, 8
  br i1 %cj, label %exit, label %outer
exit:
  ret double %e2
}

define double @data(ptr %x) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %join ]
  %s = phi double [ 0.0, %entry ], [ %s1, %join ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %first = icmp eq i64 %i, 0
  br i1 %first, label %plain, label %test
test:
  %big = fcmp ogt double %v, 3.000000e-01
  br i1 %big, label %plain, label %scaled
plain:
  br label %join
scaled:
  %w = fmul double %v, %v
  br label %join
join:
  %u = phi double [ %v, %plain ], [ %w, %scaled ]
  %s1 = fadd double %s, %u
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 16
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @boundary, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @data, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal double @augmented_data(
; CHECK: call ptr @tanjit.tape.reserve.augmented_data(ptr %tape.local, i64 8)
; CHECK-LABEL: define internal void @diffedata(
; CHECK: %block.id = load i64

; CHECK-LABEL: define internal double @augmented_boundary(
; CHECK-NOT: tanjit.tape.reserve
; CHECK: ret double
; CHECK-LABEL: define internal void @diffeboundary(
; CHECK-NOT: block.id
; CHECK: switch i64 %loop.value{{[0-9]*}}, label %replay
; CHECK-NEXT: i64 7, label %replay
; CHECK-NEXT: i64 0, label %replay
; CHECK-NOT: block.id
; CHECK: {{^}}}{{$}}
