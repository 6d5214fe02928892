; Fast-math flags of a primal operation reach its tangent operations: the
; clone and both products of d(x*x) = x dx + x dx are fast, and so is their
; sum (a plain fadd would have lost the flags).
; EMIT: -O 0
@enzyme_dup = external global i32
@enzyme_const = external global i32
declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x) {
  %a = fmul fast double %x, %x
  ret double %a
}

define double @df(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %r
}

; CHECK-LABEL: define internal double @fwddiffef(double %x, double %"x'")
; CHECK-NEXT:    %a = fmul fast double %x, %x
; CHECK-NEXT:    [[P1:%.*]] = fmul fast double %x, %"x'"
; CHECK-NEXT:    [[P2:%.*]] = fmul fast double %x, %"x'"
; CHECK-NEXT:    [[S:%.*]] = fadd fast double [[P1]], [[P2]]
; CHECK-NEXT:    ret double [[S]]
; CHECK-NEXT:  }
