; PHIs of a join whose edge its branches decide, rebuilt in the join's
; reverse instead of recorded (src/ad/rev/tape.c, rebuild_join_phi): the
; head replays the branches, each edge rebuilds its incoming value, a PHI
; joins them.  stencil's boundary value (and a second PHI of the same
; join) come from reloads of the neighbours: the aug records nothing and
; its loops go.  weighted writes memory (no reloads): its weight, a PHI of
; constants on a diamond, is rebuilt and only x[i] is recorded.  picked
; reads through a select of two pointers into x.
; (One prefix per function: the order the pairs are printed in is not
; theirs.)
; EMIT: -O 0 | --check-prefix=STENCIL
; EMIT: -O 0 | --check-prefix=WEIGHTED
; EMIT: -O 0 | --check-prefix=PICKED

; a weight chosen by a diamond on the index, in a function that writes
; memory (no reloads): the weight's PHI of constants is rebuilt, only the
; loaded x[i] is recorded per iteration
define double @weighted(ptr %x, ptr %y) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %join ]
  %s = phi double [ 0.0, %entry ], [ %s1, %join ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %odd = and i64 %i, 1
  %isodd = icmp eq i64 %odd, 1
  br i1 %isodd, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %u = phi double [ 2.0, %a ], [ 3.0, %b ]
  %uv = fmul double %u, %v
  %t = fmul double %uv, %v
  %q = getelementptr inbounds double, ptr %y, i64 %i
  store double %t, ptr %q
  %s1 = fadd double %s, %t
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 16
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

; stencil's shape: the boundary join's value enters the sum squared, the
; interior's is rebuilt from reloads of the neighbours
define double @stencil(ptr %x) {
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
  %edge.i = icmp eq i64 %i, 7
  br i1 %edge.i, label %rim, label %test.j
test.j:
  switch i64 %j, label %interior [
    i64 7, label %rim
    i64 0, label %rim
  ]
rim:
  %v = load double, ptr %p
  br label %join
interior:
  %pl = getelementptr inbounds double, ptr %p, i64 -1
  %pr = getelementptr inbounds double, ptr %p, i64 1
  %l = load double, ptr %pl
  %r = load double, ptr %pr
  %m = load double, ptr %p
  %lr = fadd double %l, %r
  %w = call double @llvm.fmuladd.f64(double %m, double -2.0, double %lr)
  br label %join
join:
  %u = phi double [ %v, %rim ], [ %w, %interior ]
  %k = phi double [ 1.0, %rim ], [ %m, %interior ]
  %uk = fmul double %u, %k
  %e1 = call double @llvm.fmuladd.f64(double %uk, double %u, double %t)
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

; a pointer the index chooses between two places of x (a select): the
; loads through it are reloaded and its shadow is the select of the arms'
; shadows, rebuilt as aug builds it: nothing is recorded per iteration
define double @picked(ptr %x) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %m = urem i64 %i, 3
  %one = icmp eq i64 %m, 1
  %pa = getelementptr inbounds double, ptr %x, i64 %i
  %j = sub i64 15, %i
  %pb = getelementptr inbounds double, ptr %x, i64 %j
  %p = select i1 %one, ptr %pa, ptr %pb
  %v = load double, ptr %p
  %a = load double, ptr %pa
  %vv = fmul double %v, %v
  %s1 = call double @llvm.fmuladd.f64(double %vv, double %a, double %s)
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 16
  br i1 %c, label %exit, label %loop
exit:
  ret double %s1
}

declare double @llvm.fmuladd.f64(double, double, double)
declare void @__enzyme_autodiff(ptr, ...)

define void @grad(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @weighted, ptr %x, ptr %dx, ptr %y, ptr %dy)
  call void (ptr, ...) @__enzyme_autodiff(ptr @stencil, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @picked, ptr %x, ptr %dx)
  ret void
}

; STENCIL-LABEL: define internal double @augmented_stencil(
; STENCIL-NOT: tanjit.tape.reserve
; STENCIL: ret double
; STENCIL-LABEL: define internal void @diffestencil(
; STENCIL-NOT: {{%taped|block.id}}
; STENCIL: %rebuilt.join{{[0-9]+}} = phi double
; STENCIL-NOT: {{%taped|block.id}}
; STENCIL: %rebuilt.join{{[0-9]+}} = phi double
; STENCIL-NOT: {{%taped|block.id}}
; STENCIL: {{^}}}{{$}}

; WEIGHTED-LABEL: define internal double @augmented_weighted(
; WEIGHTED: call ptr @tanjit.tape.reserve.augmented_weighted(ptr %tape.local, i64 8)
; WEIGHTED-LABEL: define internal void @diffeweighted(
; WEIGHTED: %rebuilt.join{{[0-9]+}} = phi double [ 3.000000e+00, %edge{{[0-9]*}} ], [ 2.000000e+00, %edge{{[0-9]*}} ]

; PICKED-LABEL: define internal double @augmented_picked(
; PICKED-NOT: tanjit.tape.reserve
; PICKED: ret double
; PICKED-LABEL: define internal void @diffepicked(
; PICKED-NOT: %taped
; PICKED: %recomputed.shadow{{[0-9]*}} = select i1 %recomputed{{[0-9]*}}, ptr %recomputed.shadow{{[0-9]*}}, ptr %recomputed.shadow{{[0-9]*}}
; PICKED-NOT: %taped
; PICKED: {{^}}}{{$}}
