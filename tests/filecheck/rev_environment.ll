; Reverse-mode pairs and the helpers tanjit defines for them are compiled
; as their primal is (src/ad/ir/fn_env.c): the augmented pass, the reverse
; and the tape helper carry the primal's "target-cpu", "target-features"
; and denormal mode, so the pair recomputes the primal's values bit for
; bit and LLVM may inline the helper into them (a callee whose target
; features the caller lacks, or whose denormal mode differs, is never
; inlined).
; EMIT: -O 0 | --check-prefix=DEFS
; EMIT: -O 2 | --check-prefix=INLINED

; x is multiplied into s until s passes t: a trip count the reverse learns
; from the tape, which the augmented pass grows (tanjit.tape.reserve.*)
define double @grow(double %x, double %t) #0 {
entry:
  br label %loop
loop:
  %s = phi double [ 1.0, %entry ], [ %s1, %loop ]
  %s1 = fmul double %s, %x
  %c = fcmp olt double %s1, %t
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}

declare double @__enzyme_autodiff(ptr, ...)

define double @grad(double %x, double %t) #0 {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @grow, double %x, metadata !"enzyme_const", double %t)
  ret double %d
}

attributes #0 = { nounwind "denormal-fp-math"="preserve-sign,preserve-sign" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

; DEFS-LABEL: define double @grad(
; DEFS: define internal double @augmented_grow({{.*}}) #[[PAIR:[0-9]+]] {
; DEFS: call ptr @tanjit.tape.reserve.augmented_grow(
; DEFS: define internal { double } @diffegrow({{.*}}) #[[PAIR]] {
; DEFS: define internal ptr @tanjit.tape.reserve.augmented_grow({{.*}}) #[[PAIR]] {
; DEFS: attributes #[[PAIR]] = { "denormal-fp-math"="preserve-sign,preserve-sign" "tanjit-generated" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

; the tape helper inlined into the augmented pass (the pair itself stays
; out of line in the request's caller: rev/cache.c, keep_out_of_line)
; INLINED-LABEL: define internal fastcc void @augmented_grow(
; INLINED-NOT: call {{.*}}@tanjit.
; INLINED: call ptr @realloc(
; INLINED-NOT: call {{.*}}@tanjit.
; INLINED: ret void
