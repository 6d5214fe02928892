; The reset that restores mutable globals' shadows before each request
; (src/ad/tangent/shadow_globals.c) lists them in the module's order, so
; the same input emits the same code: it once followed a pointer map's
; order, which changes from run to run with the heap's addresses.
; EMIT: -O 0

@a = global double 0.0
@b = global double 0.0
@c = global double 0.0
@d = global double 0.0
@e = global double 0.0
@f = global double 0.0
@g = global double 0.0
@h = global double 0.0

define double @sum(double %x) {
  store double %x, ptr @a
  store double %x, ptr @b
  store double %x, ptr @c
  store double %x, ptr @d
  store double %x, ptr @e
  store double %x, ptr @f
  store double %x, ptr @g
  store double %x, ptr @h
  %va = load double, ptr @a
  %vh = load double, ptr @h
  %r = fadd double %va, %vh
  ret double %r
}

declare double @__enzyme_fwddiff(ptr, ...)

define double @dsum(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sum, double %x, double 1.0)
  ret double %r
}

; CHECK-LABEL: define internal void @tanjit.reset_shadow_globals()
; CHECK-NEXT: memset{{.*}}@a_shadow
; CHECK-NEXT: memset{{.*}}@b_shadow
; CHECK-NEXT: memset{{.*}}@c_shadow
; CHECK-NEXT: memset{{.*}}@d_shadow
; CHECK-NEXT: memset{{.*}}@e_shadow
; CHECK-NEXT: memset{{.*}}@f_shadow
; CHECK-NEXT: memset{{.*}}@g_shadow
; CHECK-NEXT: memset{{.*}}@h_shadow
; CHECK-NEXT: ret void
