; The calls the BLAS rules emit, and how they are declared:
;  - cblas_ddot: two more cblas_ddot, dx.y + x.dy, summed, ahead of the
;    primal (Enzyme's order);
;  - a renamed ILP64 dgemv under fastcc (Julia-style): its tangent calls,
;    emitted before the primal (which overwrites y), are the same renamed
;    function under the same convention, the hidden length passed on, the
;    dx term first (carrying beta), then dA's (Enzyme's order); the
;    dbeta term's daxpy is declared `ejlstr$daxpy_64_$libblastrampoline`,
;    fastcc, tagged "enzyme_math"="daxpy_64_", so it binds from the same
;    library.
; EMIT: -O 0
declare double @__enzyme_fwddiff(ptr, ...)
declare double @cblas_ddot(i32, ptr, i32, ptr, i32)
declare fastcc void @"ejlstr$dgemv_64_$libblastrampoline"(ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64)

define double @dot(ptr %x, ptr %y) {
  %r = call double @cblas_ddot(i32 3, ptr %x, i32 1, ptr %y, i32 1)
  ret double %r
}
define double @ddot(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @dot, ptr %x, ptr %dx, ptr %y, ptr %dy)
  ret double %d
}

define void @gemv(ptr %t, ptr %m, ptr %alpha, ptr %a, ptr %x, ptr %one, ptr %beta, ptr %y) {
  call fastcc void @"ejlstr$dgemv_64_$libblastrampoline"(ptr %t, ptr %m, ptr %m, ptr %alpha, ptr %a, ptr %m, ptr %x, ptr %one, ptr %beta, ptr %y, ptr %one, i64 1)
  ret void
}
define void @dgemv(ptr %t, ptr %m, ptr %alpha, ptr %a, ptr %da, ptr %x, ptr %one, ptr %beta, ptr %dbeta, ptr %y, ptr %dy) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @gemv, ptr %t, ptr %t, ptr %m, ptr %m, ptr %alpha, ptr %alpha, ptr %a, ptr %da, ptr %x, ptr %x, ptr %one, ptr %one, ptr %beta, ptr %dbeta, ptr %y, ptr %dy)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffegemv(
; CHECK:         call fastcc void @"ejlstr$dgemv_64_$libblastrampoline"(ptr %t, ptr %m, ptr %m, ptr %alpha, ptr %a, ptr %m, ptr %"x'", ptr %one, ptr %beta, ptr %"y'", ptr %one, i64 1)
; CHECK:         call fastcc void @"ejlstr$dgemv_64_$libblastrampoline"(ptr %t, ptr %m, ptr %m, ptr %alpha, ptr %"a'", ptr %m, ptr %x, ptr %one, ptr %blas.arg, ptr %"y'", ptr %one, i64 1)
; CHECK:         call fastcc void @"ejlstr$daxpy_64_$libblastrampoline"(
; CHECK:         call fastcc void @"ejlstr$dgemv_64_$libblastrampoline"(ptr %t, ptr %m, ptr %m, ptr %alpha, ptr %a, ptr %m, ptr %x, ptr %one, ptr %beta, ptr %y, ptr %one, i64 1)
; CHECK-NEXT:    ret void

; CHECK: declare fastcc void @"ejlstr$daxpy_64_$libblastrampoline"(ptr, ptr, ptr, ptr, ptr, ptr) #[[ATTR:[0-9]+]]

; CHECK-LABEL: define internal double @fwddiffedot(
; CHECK:         [[T1:%.*]] = call double @cblas_ddot(i32 3, ptr %"x'", i32 1, ptr %y, i32 1)
; CHECK-NEXT:    [[T2:%.*]] = call double @cblas_ddot(i32 3, ptr %x, i32 1, ptr %"y'", i32 1)
; CHECK-NEXT:    [[D:%.*]] = fadd double [[T1]], [[T2]]
; CHECK-NEXT:    call double @cblas_ddot(i32 3, ptr %x, i32 1, ptr %y, i32 1)
; CHECK-NEXT:    ret double [[D]]

; CHECK: attributes #[[ATTR]] = { "enzyme_math"="daxpy_64_" }
