; Reverse mode (noreturn_checks.ll is forward mode) over domain and
; bounds checks as Julia lowers them: every sqrt and log starts with
; `x < 0 && throw_complex_domainerror(sym, x)`, every checked index with a
; branch to `ijl_bounds_error_ints(A, idx, n)`; both calls never
; return and are followed by `unreachable`, and neither has a body here
; nor a rule (julia_sysimage_stub.c defines them).  The first callee is
; declared noreturn; the second and ijl_bounds_error_ints are not: the
; `unreachable` after their calls says the same.  They take the active
; float, and the active array: reverse mode's augmented pass keeps the
; primal calls alone and plans no reverse for them (nothing after them
; runs, so no adjoint of theirs is read; the reverse of a block ending in
; `unreachable` is never run), where it refused the whole function.  The
; error paths are never taken.
;
;   mysqrt(x) = sqrt(x)                 d = 1/(2 sqrt x)  = 0.25 at 4
;   xlogx(x)  = x log x (checked)       d = log x + 1
;   f(A, i)   = A[i]^2 A[1] (checked)   d/dA[i] = 2 A[i] A[1], d/dA[1] = A[i]^2
; main checks each gradient against its analytic value and returns the
; number of mismatches.

@.fmt = private unnamed_addr constant [35 x i8] c"MISMATCH %d: got %.17g want %.17g\0A\00"
@"jl_sym#sqrt#1" = private constant [2 x i64] zeroinitializer
@"jl_sym#log#2" = private constant [2 x i64] zeroinitializer

%jl_array_t = type { ptr, i64, i16, i16, i32 }

declare i32 @printf(ptr, ...)
declare double @llvm.fabs.f64(double)
declare double @llvm.sqrt.f64(double)
declare double @llvm.log.f64(double)
declare void @j_throw_complex_domainerror_123(ptr addrspace(10), double) #1
declare void @j_throw_complex_domainerror_456(ptr addrspace(10), double)
declare void @ijl_bounds_error_ints(ptr addrspace(12), ptr, i64)
declare ptr @julia.get_pgcstack()
declare double @__enzyme_autodiff(...)
declare void @__enzyme_autodiff.v(...)

define internal i32 @check(i32 %j, double %got, double %want) {
  %d = fsub double %got, %want
  %ad = call double @llvm.fabs.f64(double %d)
  %aw = call double @llvm.fabs.f64(double %want)
  %big = fcmp ogt double %aw, 1.0
  %sc = select i1 %big, double %aw, double 1.0
  %lim = fmul double %sc, 1.0e-12
  %ok = fcmp ole double %ad, %lim
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %p = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %j, double %got, double %want)
  ret i32 1
}

define double @julia_mysqrt_9(double %x) {
top:
  %lt = fcmp olt double %x, 0.0
  br i1 %lt, label %L_err, label %L_ok
L_err:
  call void @j_throw_complex_domainerror_123(ptr addrspace(10) addrspacecast (ptr @"jl_sym#sqrt#1" to ptr addrspace(10)), double %x) #1
  unreachable
L_ok:
  %r = call double @llvm.sqrt.f64(double %x)
  ret double %r
}

define double @julia_xlogx_10(double %x) {
top:
  %lt = fcmp olt double %x, 0.0
  br i1 %lt, label %L_err, label %L_ok
L_err:
  call void @j_throw_complex_domainerror_456(ptr addrspace(10) addrspacecast (ptr @"jl_sym#log#2" to ptr addrspace(10)), double %x)
  unreachable
L_ok:
  %l = call double @llvm.log.f64(double %x)
  %r = fmul double %x, %l
  ret double %r
}

define double @julia_f_101(ptr addrspace(10) nonnull align 16 dereferenceable(40) %A, i64 signext %i) {
top:
  %idx = alloca i64, align 8
  %pgc = call ptr @julia.get_pgcstack()
  %A11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %lenp = getelementptr inbounds %jl_array_t, ptr addrspace(11) %A11, i64 0, i32 1
  %len = load i64, ptr addrspace(11) %lenp, align 8, !tbaa !10
  %im1 = add i64 %i, -1
  %inb = icmp ult i64 %im1, %len
  br i1 %inb, label %ok, label %oob
oob:
  store i64 %i, ptr %idx, align 8
  %A12 = addrspacecast ptr addrspace(10) %A to ptr addrspace(12)
  call void @ijl_bounds_error_ints(ptr addrspace(12) %A12, ptr nonnull %idx, i64 1)
  unreachable
ok:
  %data = load ptr, ptr addrspace(11) %A11, align 8, !tbaa !10, !nonnull !{}
  %d13 = addrspacecast ptr %data to ptr addrspace(13)
  %ep = getelementptr inbounds double, ptr addrspace(13) %d13, i64 %im1
  %e = load double, ptr addrspace(13) %ep, align 8, !tbaa !20
  %e0 = load double, ptr addrspace(13) %d13, align 8, !tbaa !20
  %e2 = fmul double %e, %e
  %r = fmul double %e2, %e0
  ret double %r
}

define i32 @main() {
top:
  %g1 = call double (...) @__enzyme_autodiff(ptr @julia_mysqrt_9, double 4.0)
  %c1 = call i32 @check(i32 1, double %g1, double 0.25)
  %g2 = call double (...) @__enzyme_autodiff(ptr @julia_xlogx_10, double 2.0)
  %c2 = call i32 @check(i32 2, double %g2, double 0x3FFB17217F7D1CF8)
  ; A = [1.5, -0.5, 2.0], i = 3: dA = [4, 0, 6], added to the shadow's
  ; [1, 1, 1]
  %x = alloca [3 x double], align 16
  %dx = alloca [3 x double], align 16
  %arr = alloca %jl_array_t, align 16
  %darr = alloca %jl_array_t, align 16
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x
  store [3 x double] [double 1.0, double 1.0, double 1.0], ptr %dx
  store %jl_array_t { ptr undef, i64 3, i16 0, i16 0, i32 0 }, ptr %arr
  store ptr %x, ptr %arr
  store %jl_array_t { ptr undef, i64 3, i16 0, i16 0, i32 0 }, ptr %darr
  store ptr %dx, ptr %darr
  %a10 = addrspacecast ptr %arr to ptr addrspace(10)
  %da10 = addrspacecast ptr %darr to ptr addrspace(10)
  call void (...) @__enzyme_autodiff.v(ptr @julia_f_101, metadata !"enzyme_dup", ptr addrspace(10) %a10, ptr addrspace(10) %da10, metadata !"enzyme_const", i64 3)
  %p1 = getelementptr double, ptr %dx, i64 1
  %p2 = getelementptr double, ptr %dx, i64 2
  %d0 = load double, ptr %dx
  %d1 = load double, ptr %p1
  %d2 = load double, ptr %p2
  %c3 = call i32 @check(i32 3, double %d0, double 5.0)
  %c4 = call i32 @check(i32 4, double %d1, double 1.0)
  %c5 = call i32 @check(i32 5, double %d2, double 7.0)
  %s1 = add i32 %c1, %c2
  %s2 = add i32 %s1, %c3
  %s3 = add i32 %s2, %c4
  %s4 = add i32 %s3, %c5
  ret i32 %s4
}

attributes #1 = { noreturn }

!10 = !{!11, !11, i64 0}
!11 = !{!"jtbaa_arraylen", !12, i64 0}
!12 = !{!"jtbaa_array", !13, i64 0}
!13 = !{!"jtbaa", !14, i64 0}
!14 = !{!"jtbaa"}
!20 = !{!21, !21, i64 0}
!21 = !{!"jtbaa_arraybuf", !22, i64 0}
!22 = !{!"jtbaa_data", !13, i64 0}
