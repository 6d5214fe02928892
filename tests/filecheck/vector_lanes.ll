; Vector mode: at enzyme_width 2 the tangents of a double are one
; <2 x double> (a vector PHI on the loop, one vector product per step with
; the primal coefficient splat), while the shadows of pointers stay one
; array lane each; the request still receives its two tangents as an array.
; A float load's shadow lanes come before the primal load (rules/inst.c,
; shadow_load_first).
; EMIT: -O 0 --strict-derivatives
@enzyme_width = external global i32
@enzyme_dup = external global i32
declare [2 x double] @__enzyme_fwddiff(ptr, ...)

; s = sum_i x * p[i], n steps
define double @f(double %x, ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %a = getelementptr double, ptr %p, i64 %i
  %v = load double, ptr %a
  %m = fmul double %x, %v
  %s1 = fadd double %s, %m
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret double %s1
}

define [2 x double] @df(double %x, ptr %p, ptr %dp0, ptr %dp1, i64 %n) {
  %r = call [2 x double] (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr @enzyme_width, i64 2, double %x, double 1.0, double 0.0, ptr @enzyme_dup, ptr %p, ptr %dp0, ptr %dp1, i64 %n)
  ret [2 x double] %r
}

; CHECK-LABEL: define [2 x double] @df(
; CHECK:         [[R:%.*]] = call <2 x double> @fwddiffe2f(double %x, <2 x double> <double 1.000000e+00, double 0.000000e+00>, ptr %p, [2 x ptr] {{%.*}}, i64 %n)
; CHECK-NEXT:    [[R0:%.*]] = extractelement <2 x double> [[R]], i32 0
; CHECK-NEXT:    [[A0:%.*]] = insertvalue [2 x double] poison, double [[R0]], 0
; CHECK-NEXT:    [[R1:%.*]] = extractelement <2 x double> [[R]], i32 1
; CHECK-NEXT:    [[A1:%.*]] = insertvalue [2 x double] [[A0]], double [[R1]], 1
; CHECK-NEXT:    ret [2 x double] [[A1]]

; CHECK-LABEL: define internal <2 x double> @fwddiffe2f(double %x, <2 x double> %"x'", ptr %p, [2 x ptr] %"p'", i64 %n)
; CHECK:         %"s'" = phi <2 x double> [ zeroinitializer, %entry ], [ [[DS:%.*]], %loop ]
; CHECK:         %"v'" = load double, ptr
; CHECK:         %"v'2" = load double, ptr
; CHECK-NEXT:    [[V0:%.*]] = insertelement <2 x double> poison, double %"v'", i32 0
; CHECK-NEXT:    [[DV:%.*]] = insertelement <2 x double> [[V0]], double %"v'2", i32 1
; CHECK-NEXT:    %v = load double, ptr %a
; CHECK-NEXT:    %m = fmul double %x, %v
; CHECK-NEXT:    [[VS:%.*]] = insertelement <2 x double> poison, double %v, i32 0
; CHECK-NEXT:    [[VSPLAT:%.*]] = shufflevector <2 x double> [[VS]], <2 x double> poison, <2 x i32> zeroinitializer
; CHECK-NEXT:    [[T1:%.*]] = fmul <2 x double> [[VSPLAT]], %"x'"
; CHECK-NEXT:    [[XS:%.*]] = insertelement <2 x double> poison, double %x, i32 0
; CHECK-NEXT:    [[XSPLAT:%.*]] = shufflevector <2 x double> [[XS]], <2 x double> poison, <2 x i32> zeroinitializer
; CHECK-NEXT:    [[T2:%.*]] = fmul <2 x double> [[XSPLAT]], [[DV]]
; CHECK-NEXT:    [[DM:%.*]] = fadd <2 x double> [[T1]], [[T2]]
; CHECK-NEXT:    %s1 = fadd double %s, %m
; CHECK-NEXT:    [[DS]] = fadd <2 x double> %"s'", [[DM]]
; CHECK:         ret <2 x double> [[DS]]
