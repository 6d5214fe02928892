; Control flow as Julia lowers it: loop headers with phi nodes, `select`
; on a float comparison (ifelse), an early return from inside a loop, and
; error branches (a length check, a NaN check) that call Julia's
; `ijl_throw` and end in `unreachable`.  The throw paths are never taken,
; but they reference ijl_throw, which only libjulia defines: this test runs
; with --lazy (meson.build), which binds it to a stub that would report the
; call; control_flow_strict checks that strict binding refuses the program
; and names the symbol.
;
;   f(x, t) = s_k * t   at the first k with s_k > 10, else s_n
;   s_k = sum_{i<=k} (x_i > 0 ? x_i^2 : -x_i t) * p_i,  p_i = t^i (a
;   nested loop: repeated multiplication)
; main checks every partial against central finite differences at a point
; where the loop runs to its end and at one where it leaves early, plus
; analytic values at the early exit; returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_pr = private unnamed_addr constant [7 x i8] c"primal\00"
; stands for the exception object Julia would pass (never thrown here)
@jl_bounds_error_123 = private constant [2 x i64] zeroinitializer

declare void @ijl_throw(ptr addrspace(12)) #0
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

; t^k by repeated multiplication
define internal double @julia_power_by_squaring_7(double %t, i64 %k) {
top:
  %none = icmp eq i64 %k, 0
  br i1 %none, label %one, label %loop
one:
  ret double 1.0
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %p = phi double [ 1.0, %top ], [ %p.next, %loop ]
  %p.next = fmul double %p, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %k
  br i1 %done, label %exit, label %loop
exit:
  ret double %p.next
}

define double @f(ptr %x, i64 %n, double %t) {
top:
  %toolong = icmp ugt i64 %n, 8
  br i1 %toolong, label %L_throw_length, label %L_loop

L_throw_length:
  call void @ijl_throw(ptr addrspace(12) addrspacecast (ptr @jl_bounds_error_123 to ptr addrspace(12)))
  unreachable

L_loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %L_latch ]
  %s = phi double [ 0.0, %top ], [ %s.next, %L_latch ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8
  %isnan = fcmp uno double %v, %v
  br i1 %isnan, label %L_throw_nan, label %L_body

L_throw_nan:
  call void @ijl_throw(ptr addrspace(12) addrspacecast (ptr @jl_bounds_error_123 to ptr addrspace(12)))
  unreachable

L_body:
  %pos = fcmp ogt double %v, 0.0
  %sq = fmul double %v, %v
  %vt = fmul double %v, %t
  %nvt = fneg double %vt
  %a = select i1 %pos, double %sq, double %nvt
  %w = call double @julia_power_by_squaring_7(double %t, i64 %i)
  %aw = fmul double %a, %w
  %s.next = fadd double %s, %aw
  %big = fcmp ogt double %s.next, 10.0
  br i1 %big, label %L_early, label %L_latch

L_early:
  %r = fmul double %s.next, %t
  ret double %r

L_latch:
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %L_exit, label %L_loop

L_exit:
  ret double %s.next
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

; the tangent along e_j (j < n) or along t (j == n), stored to *tangent;
; returns the mismatches against a central finite difference
define internal i32 @partial(ptr %x, i64 %n, double %t, i64 %j, ptr %tangent) {
top:
  %dx = alloca [8 x double], align 8
  %xp = alloca [8 x double], align 8
  store [8 x double] zeroinitializer, ptr %dx, align 8
  %bytes = shl i64 %n, 3
  call void @llvm.memcpy.p0.p0.i64(ptr %xp, ptr %x, i64 %bytes, i1 false)
  %along_t = icmp eq i64 %j, %n
  %dt = select i1 %along_t, double 1.0, double 0.0
  %h.t = select i1 %along_t, double 1.0e-6, double 0.0
  br i1 %along_t, label %go, label %seed
seed:
  %dxj = getelementptr inbounds double, ptr %dx, i64 %j
  store double 1.0, ptr %dxj, align 8
  br label %go
go:
  %tan = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 %n, double %t, double %dt)
  store double %tan, ptr %tangent, align 8
  br i1 %along_t, label %fd, label %perturb
perturb:
  %xpj = getelementptr inbounds double, ptr %xp, i64 %j
  %xj = load double, ptr %xpj, align 8
  %xhi = fadd double %xj, 1.0e-6
  store double %xhi, ptr %xpj, align 8
  %fhi.x = call double @f(ptr %xp, i64 %n, double %t)
  %xlo = fsub double %xj, 1.0e-6
  store double %xlo, ptr %xpj, align 8
  %flo.x = call double @f(ptr %xp, i64 %n, double %t)
  br label %fd
fd:
  %fhi.p = phi double [ %fhi.x, %perturb ], [ 0.0, %go ]
  %flo.p = phi double [ %flo.x, %perturb ], [ 0.0, %go ]
  %thi = fadd double %t, %h.t
  %tlo = fsub double %t, %h.t
  %fhi.t = call double @f(ptr %x, i64 %n, double %thi)
  %flo.t = call double @f(ptr %x, i64 %n, double %tlo)
  %fhi = select i1 %along_t, double %fhi.t, double %fhi.p
  %flo = select i1 %along_t, double %flo.t, double %flo.p
  %df = fsub double %fhi, %flo
  %fdv = fdiv double %df, 2.0e-6
  %jj = trunc i64 %j to i32
  %c = call i32 @check(ptr @.what_fd, i32 %jj, double %tan, double %fdv, double 1.0e-6)
  ret i32 %c
}

; every partial of f at (x, t)
define internal i32 @all_partials(ptr %x, i64 %n, double %t, ptr %tangents) {
top:
  br label %loop
loop:
  %j = phi i64 [ 0, %top ], [ %j.next, %loop ]
  %fails = phi i32 [ 0, %top ], [ %fails.next, %loop ]
  %slot = getelementptr inbounds double, ptr %tangents, i64 %j
  %c = call i32 @partial(ptr %x, i64 %n, double %t, i64 %j, ptr %slot)
  %fails.next = add i32 %fails, %c
  %j.next = add nuw i64 %j, 1
  %done = icmp ugt i64 %j.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %fails.next
}

define i32 @main() {
top:
  %x1 = alloca [3 x double], align 8
  %x2 = alloca [4 x double], align 8
  %tg1 = alloca [4 x double], align 8
  %tg2 = alloca [5 x double], align 8
  ; runs to the end: s = 2.25 + 0.4*0.8 + 4*0.64 = 5.13
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x1, align 8
  %f1 = call double @f(ptr %x1, i64 3, double 0.8)
  %c0 = call i32 @check(ptr @.what_pr, i32 0, double %f1, double 5.13, double 1.0e-14)
  %c1 = call i32 @all_partials(ptr %x1, i64 3, double 0.8, ptr %tg1)
  ; leaves early at k = 1: s = 9 + 4*0.8 = 12.2, f = 12.2 * 0.8
  store [4 x double] [double 3.0, double 2.0, double -1.0, double 1.0], ptr %x2, align 8
  %f2 = call double @f(ptr %x2, i64 4, double 0.8)
  %c2 = call i32 @check(ptr @.what_pr, i32 1, double %f2, double 9.76, double 1.0e-14)
  %c3 = call i32 @all_partials(ptr %x2, i64 4, double 0.8, ptr %tg2)
  ; analytic at the early exit: df/dx0 = 2*3*t = 4.8, df/dx1 = 2*2*t*t =
  ; 2.56, df/dx2 = 0, df/dt = s + t * (ds/dt = 4) = 12.2 + 3.2 = 15.4
  %a0.p = getelementptr inbounds [5 x double], ptr %tg2, i32 0, i32 0
  %a1.p = getelementptr inbounds [5 x double], ptr %tg2, i32 0, i32 1
  %a2.p = getelementptr inbounds [5 x double], ptr %tg2, i32 0, i32 2
  %at.p = getelementptr inbounds [5 x double], ptr %tg2, i32 0, i32 4
  %a0 = load double, ptr %a0.p, align 8
  %a1 = load double, ptr %a1.p, align 8
  %a2 = load double, ptr %a2.p, align 8
  %at = load double, ptr %at.p, align 8
  %k0 = call i32 @check(ptr @.what_an, i32 0, double %a0, double 4.8, double 1.0e-14)
  %k1 = call i32 @check(ptr @.what_an, i32 1, double %a1, double 2.56, double 1.0e-14)
  %k2 = call i32 @check(ptr @.what_an, i32 2, double %a2, double 0.0, double 0.0)
  %k3 = call i32 @check(ptr @.what_an, i32 4, double %at, double 15.4, double 1.0e-14)
  %s0 = add i32 %c0, %c1
  %s1 = add i32 %s0, %c2
  %s2 = add i32 %s1, %c3
  %s3 = add i32 %s2, %k0
  %s4 = add i32 %s3, %k1
  %s5 = add i32 %s4, %k2
  %s6 = add i32 %s5, %k3
  ret i32 %s6
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

attributes #0 = { noreturn }
