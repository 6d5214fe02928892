; Reverse mode (__enzyme_autodiff, both adjoints returned as a struct) over
; the renamed libm ccalls of libm_ccalls.ll; the checks are that file's,
; on <gradient, (u, v)>.
; libm through Julia-style renamed ccalls (`ejlstr$<fn>$libm.so.6`, tagged
; "enzyme_math"), one of them with fast-math flags as @fastmath emits, and
; a Julia-mangled function (`julia_log_123`) tagged "enzyme_math"="log",
; whose rule, not its body, gives the derivative.
;
;   f(x, y) = sin(x) exp(y) + pow(x, y) + log(x y)
;   df/dx = cos(x) exp(y) + y x^(y-1) + 1/x
;   df/dy = sin(x) exp(y) + x^y log(x) + 1/y
; main checks both partials and a mixed direction against the analytic
; values and central finite differences; returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"

declare double @"ejlstr$sin$libm.so.6"(double) #0
declare double @"ejlstr$exp$libm.so.6"(double) #1
declare double @"ejlstr$pow$libm.so.6"(double, double) #2
declare double @"ejlstr$log$libm.so.6"(double) #3
declare i32 @printf(ptr, ...)
declare { double, double } @__enzyme_autodiff(...)
declare double @llvm.fabs.f64(double)

; Julia's specialization of log, as the frontend names and tags it
define internal double @julia_log_123(double %v) #4 {
top:
  %r = call double @"ejlstr$log$libm.so.6"(double %v) #3
  ret double %r
}

define double @f(double %x, double %y) {
top:
  %s = call double @"ejlstr$sin$libm.so.6"(double %x) #0
  %e = call afn nnan double @"ejlstr$exp$libm.so.6"(double %y) #1
  %se = fmul double %s, %e
  %p = call double @"ejlstr$pow$libm.so.6"(double %x, double %y) #2
  %xy = fmul double %x, %y
  %l = call double @julia_log_123(double %xy)
  %a = fadd double %se, %p
  %r = fadd double %a, %l
  ret double %r
}

define internal i32 @check(ptr %what, i32 %j, double %got, double %want, double %tol) {
  %d = fsub double %got, %want
  %ad = call double @llvm.fabs.f64(double %d)
  %aw = call double @llvm.fabs.f64(double %want)
  %big = fcmp ogt double %aw, 1.0
  %scale = select i1 %big, double %aw, double 1.0
  %lim = fmul double %tol, %scale
  %ok = fcmp ole double %ad, %lim
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %p = call i32 (ptr, ...) @printf(ptr @.fmt_fail, ptr %what, i32 %j, double %got, double %want)
  ret i32 1
}

; checks the tangent in direction (u, v) both ways
define internal i32 @direction(i32 %j, double %x, double %y, double %u, double %v) {
  %g = call { double, double } (...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  %gx = extractvalue { double, double } %g, 0
  %gy = extractvalue { double, double } %g, 1
  %gxu = fmul double %gx, %u
  %gyv = fmul double %gy, %v
  %t = fadd double %gxu, %gyv
  %sx = call double @"ejlstr$sin$libm.so.6"(double %x)
  %ey = call double @"ejlstr$exp$libm.so.6"(double %y)
  %pxy = call double @"ejlstr$pow$libm.so.6"(double %x, double %y)
  %lx = call double @"ejlstr$log$libm.so.6"(double %x)
  %ym1 = fsub double %y, 1.0
  %pxy1 = call double @"ejlstr$pow$libm.so.6"(double %x, double %ym1)
  ; cos x = sin(x + pi/2)
  %xs = fadd double %x, 0x3FF921FB54442D18
  %cx = call double @"ejlstr$sin$libm.so.6"(double %xs)
  %a0 = fmul double %cx, %ey
  %a1 = fmul double %y, %pxy1
  %a2 = fdiv double 1.0, %x
  %a01 = fadd double %a0, %a1
  %dfdx = fadd double %a01, %a2
  %b0 = fmul double %sx, %ey
  %b1 = fmul double %pxy, %lx
  %b2 = fdiv double 1.0, %y
  %b01 = fadd double %b0, %b1
  %dfdy = fadd double %b01, %b2
  %ux = fmul double %u, %dfdx
  %vy = fmul double %v, %dfdy
  %want = fadd double %ux, %vy
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %t, double %want, double 1.0e-13)
  %hu = fmul double %u, 1.0e-6
  %hv = fmul double %v, 1.0e-6
  %xh = fadd double %x, %hu
  %yh = fadd double %y, %hv
  %xl = fsub double %x, %hu
  %yl = fsub double %y, %hv
  %fh = call double @f(double %xh, double %yh)
  %fl = call double @f(double %xl, double %yl)
  %df = fsub double %fh, %fl
  %fd = fdiv double %df, 2.0e-6
  %cf = call i32 @check(ptr @.what_fd, i32 %j, double %t, double %fd, double 1.0e-6)
  %n = add i32 %ca, %cf
  ret i32 %n
}

define i32 @main() {
top:
  %c0 = call i32 @direction(i32 0, double 1.3, double 0.7, double 1.0, double 0.0)
  %c1 = call i32 @direction(i32 1, double 1.3, double 0.7, double 0.0, double 1.0)
  %c2 = call i32 @direction(i32 2, double 0.4, double 2.5, double 0.5, double -2.0)
  %s01 = add i32 %c0, %c1
  %s = add i32 %s01, %c2
  ret i32 %s
}

attributes #0 = { "enzyme_math"="sin" }
attributes #1 = { "enzyme_math"="exp" }
attributes #2 = { "enzyme_math"="pow" }
attributes #3 = { "enzyme_math"="log" }
attributes #4 = { noinline "enzyme_math"="log" }
