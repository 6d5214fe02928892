; Derivative arithmetic flags (tanjit_options.derivative_fp): by default the
; tangent's products and sums carry reassoc nsz contract (on top of the
; primal's own flags), so LLVM may factor and fuse them; the primal's
; instructions keep exactly their own.  --strict-derivatives gives the
; tangent only the primal's flags, as before the option existed.
; EMIT: -O 0 | --check-prefix=FAST
; EMIT: -O 0 --strict-derivatives | --check-prefix=STRICT
declare double @__enzyme_fwddiff(ptr, ...)

; Horner's step: acc x + c
define double @f(double %x, double %acc) {
  %p = fmul nnan double %acc, %x
  %q = fadd double %p, 2.0
  ret double %q
}

define double @df(double %x, double %acc) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %acc, double 0.5)
  ret double %r
}

; FAST-LABEL: define internal double @fwddiffef(double %x, double %"x'", double %acc, double %"acc'")
; FAST-NEXT:    %p = fmul nnan double %acc, %x
; FAST-NEXT:    [[A:%.*]] = fmul reassoc nnan nsz contract double %x, %"acc'"
; FAST-NEXT:    [[B:%.*]] = fmul reassoc nnan nsz contract double %acc, %"x'"
; FAST-NEXT:    [[S:%.*]] = fadd reassoc nnan nsz contract double [[A]], [[B]]
; FAST-NEXT:    %q = fadd double %p, 2.000000e+00
; FAST-NEXT:    ret double [[S]]

; STRICT-LABEL: define internal double @fwddiffef(double %x, double %"x'", double %acc, double %"acc'")
; STRICT-NEXT:    %p = fmul nnan double %acc, %x
; STRICT-NEXT:    [[A:%.*]] = fmul nnan double %x, %"acc'"
; STRICT-NEXT:    [[B:%.*]] = fmul nnan double %acc, %"x'"
; STRICT-NEXT:    [[S:%.*]] = fadd nnan double [[A]], [[B]]
; STRICT-NEXT:    %q = fadd double %p, 2.000000e+00
; STRICT-NEXT:    ret double [[S]]
