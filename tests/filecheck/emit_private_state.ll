; `tanjit emit` prints what `tanjit run` compiles.  Loading promotes
; module-private globals and functions to hidden names unique to the module
; (src/jit/session.c: derivatives made later share the module's state), so
; at -O2 a store to a private global that the module itself never reads
; stays; emit once printed the module unpromoted, with the store deleted.
; EMIT: -O 2
; EMIT: -O 0 | --check-prefix=O0

@acc = internal global double 0.000000e+00

define internal void @keep(double %x) {
  store double %x, ptr @acc
  ret void
}

define void @set(double %x) {
  call void @keep(double %x)
  ret void
}

; CHECK: @acc.tanjit.m1 = hidden {{.*}}global double 0.0
; CHECK-LABEL: define void @set(double %x)
; CHECK: store double %x, ptr @acc.tanjit.m1
; O0: @acc.tanjit.m1 = hidden {{.*}}global double 0.0
; O0: define hidden void @keep.tanjit.m1(double %x)
