; A Julia-mangled function that the module only declares, as code compiled
; against a system image sees it: `julia_log_123` carries
; "enzyme_math"="log" and resolves (meson.build: --lib) from a library that
; stands in for the image.  There is no body to differentiate: the tag must
; pick the rule of log.  One call site also carries the tag itself, as
; Julia's ccall lowering puts it on calls.
;
;   f(x) = x log(x) + log(x^2 + 1)
;   df/dx = log(x) + 1 + 2x / (x^2 + 1)
; main checks the analytic value and a central finite difference at three
; points; returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"

declare double @julia_log_123(double) #0
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

define double @f(double %x) {
top:
  %l = call double @julia_log_123(double %x)
  %a = fmul double %x, %l
  %x2 = fmul double %x, %x
  %x21 = fadd double %x2, 1.0
  %l2 = call double @julia_log_123(double %x21) #0
  %r = fadd double %a, %l2
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

define internal i32 @at(i32 %j, double %x) {
  %t = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  %lx = call double @julia_log_123(double %x)
  %lx1 = fadd double %lx, 1.0
  %x2 = fmul double %x, %x
  %x21 = fadd double %x2, 1.0
  %tx = fmul double %x, 2.0
  %q = fdiv double %tx, %x21
  %want = fadd double %lx1, %q
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %t, double %want, double 1.0e-13)
  %xh = fadd double %x, 1.0e-6
  %xl = fsub double %x, 1.0e-6
  %fh = call double @f(double %xh)
  %fl = call double @f(double %xl)
  %df = fsub double %fh, %fl
  %fd = fdiv double %df, 2.0e-6
  %cf = call i32 @check(ptr @.what_fd, i32 %j, double %t, double %fd, double 1.0e-6)
  %n = add i32 %ca, %cf
  ret i32 %n
}

define i32 @main() {
top:
  %c0 = call i32 @at(i32 0, double 0.5)
  %c1 = call i32 @at(i32 1, double 1.0)
  %c2 = call i32 @at(i32 2, double 3.25)
  %s = add i32 %c0, %c1
  %s2 = add i32 %s, %c2
  ret i32 %s2
}

attributes #0 = { "enzyme_math"="log" }
