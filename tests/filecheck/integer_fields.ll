; A struct { double *data; i32 n; i32 stride } passed duplicated: the
; integer fields are loaded from active memory but type analysis shows they
; are integers, so the derivative loads them once (no shadow loads, no
; shadow arithmetic); the data pointer and the elements get shadows.
; EMIT: -O 0
@enzyme_dup = external global i32
@enzyme_const = external global i32
declare double @__enzyme_fwddiff(ptr, ...)
%V = type { ptr, i32, i32 }
define double @sumsq(ptr %v) {
entry:
  %np = getelementptr inbounds %V, ptr %v, i64 0, i32 1
  %n = load i32, ptr %np
  %sp = getelementptr inbounds %V, ptr %v, i64 0, i32 2
  %stride = load i32, ptr %sp
  %data = load ptr, ptr %v
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %j = mul i32 %i, %stride
  %j64 = sext i32 %j to i64
  %p = getelementptr inbounds double, ptr %data, i64 %j64
  %x = load double, ptr %p
  %sq = fmul double %x, %x
  %acc1 = fadd double %acc, %sq
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret double %acc1
}
define double @dsumsq(ptr %v, ptr %dv) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @sumsq, ptr @enzyme_dup, ptr %v, ptr %dv)
  ret double %d
}

; CHECK-LABEL: define internal double @fwddiffesumsq(ptr %v, ptr %"v'")
; CHECK:         %n = load i32, ptr %np
; CHECK-NOT:     load i32, ptr %"np'"
; CHECK:         %stride = load i32, ptr %sp
; CHECK-NOT:     load i32
; CHECK:         %data = load ptr, ptr %v
; CHECK-NEXT:    %"data'" = load ptr, ptr %"v'"
; CHECK:       loop:
; CHECK:         %j = mul i32 %i, %stride
; CHECK-NOT:     mul i32
; CHECK:         %"p'" = getelementptr inbounds double, ptr %"data'", i64 %j64
; CHECK:         %x = load double, ptr %p
; CHECK:         load double, ptr %"p'"
; CHECK-NOT:     load i32
; CHECK:         ret double
