; Calling conventions Julia's code generator uses, on internal functions
; and on the calls a derivative must accompany with helpers:
;   - a `fastcc` internal function and a `swiftcc` one taking the task's
;     pgcstack as `swiftself` (Julia's convention since 1.10);
;   - renamed ccalls into libc (malloc, free) and libcuda.so.1 (every
;     call in f) made under `fastcc` (ABI-identical to C on x86-64): the
;     shadow allocation, its zeroing (cuMemsetD8_v2, cuMemsetD8, also the
;     run-time zeroing of a copy whose source may have no shadow) and the
;     shadow free are helpers declared next to these calls, under the same
;     convention and the same `ejlstr$...$<lib>` rename.  check_helpers.py checks the emitted IR for that; this
;     program checks the numbers.
;
;   f(x) = sum_i sq(x_i) * x_i  (through host and device buffers)
;        = sum_i x_i^3          df/dx_j = 3 x_j^2
; main returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"
@.fmt_cuda = private unnamed_addr constant [24 x i8] c"CUDA setup failed (%d)\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare fastcc i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #4
declare fastcc i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr, i32) #5
declare fastcc i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #6
declare fastcc i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #7
declare fastcc i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64, i64, i64) #8
declare fastcc i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #9
declare fastcc ptr @"ejlstr$malloc$libc.so.6"(i64) #10
declare fastcc void @"ejlstr$free$libc.so.6"(ptr) #11
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

define internal fastcc double @julia_square_12(double %v) {
top:
  %r = fmul double %v, %v
  ret double %r
}

; sum_i a_i b_i
define internal swiftcc double @julia_dot_34(ptr nonnull swiftself %pgcstack, ptr %a, ptr %b, i64 %n) {
top:
  br label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %top ], [ %s.next, %loop ]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %pb = getelementptr inbounds double, ptr %b, i64 %i
  %va = load double, ptr %pa, align 8
  %vb = load double, ptr %pb, align 8
  %t = fmul double %va, %vb
  %s.next = fadd double %s, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

define double @f(ptr %x, i64 %n) {
top:
  %pgcstack = alloca [2 x ptr], align 8
  %bytes = shl i64 %n, 3
  %bytes32 = trunc i64 %bytes to i32
  %buf = call fastcc ptr @"ejlstr$malloc$libc.so.6"(i64 %bytes) #10
  br label %fill
fill:
  %i = phi i64 [ 0, %top ], [ %i.next, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  %v = load double, ptr %px, align 8
  %sq = call fastcc double @julia_square_12(double %v)
  store double %sq, ptr %pb, align 8
  %i.next = add nuw i64 %i, 1
  %filled = icmp eq i64 %i.next, %n
  br i1 %filled, label %device, label %fill
device:
  %slot = alloca i64, align 8
  %slot32 = alloca i64, align 8
  %ra = call fastcc i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot, i64 %bytes) #4
  %rb = call fastcc i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr %slot32, i32 %bytes32) #5
  %d = load i64, ptr %slot, align 8
  %d32 = load i64, ptr %slot32, align 8
  %r1 = call fastcc i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %d, ptr %buf, i64 %bytes)
  %r2 = call fastcc i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %d32, i64 %d, i64 %bytes)
  %back = call fastcc ptr @"ejlstr$malloc$libc.so.6"(i64 %bytes) #10
  %r3 = call fastcc i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %back, i64 %d32, i64 %bytes)
  %r4 = call fastcc i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d)
  %r5 = call fastcc i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d32)
  %s = call swiftcc double @julia_dot_34(ptr nonnull swiftself %pgcstack, ptr %back, ptr %x, i64 %n)
  call fastcc void @"ejlstr$free$libc.so.6"(ptr %buf) #11
  call fastcc void @"ejlstr$free$libc.so.6"(ptr %back) #11
  ret double %s
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

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %xp = alloca [3 x double], align 8
  %e0 = call i32 @"ejlstr$cuInit$libcuda.so.1"(i32 0)
  %e1 = call i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr %dev, i32 0)
  %devv = load i32, ptr %dev, align 4
  %e2 = call i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr %ctx, i32 %devv)
  %ctxv = load ptr, ptr %ctx, align 8
  %e3 = call i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr %ctxv)
  %e01 = or i32 %e0, %e1
  %e23 = or i32 %e2, %e3
  %eall = or i32 %e01, %e23
  %cuda_ok = icmp eq i32 %eall, 0
  br i1 %cuda_ok, label %setup, label %cuda_failed

cuda_failed:
  %pf = call i32 (ptr, ...) @printf(ptr @.fmt_cuda, i32 %eall)
  ret i32 100

setup:
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  br label %direction

direction:
  %j = phi i32 [ 0, %setup ], [ %j.next, %direction ]
  %fails = phi i32 [ 0, %setup ], [ %fails.2, %direction ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %tangent = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %x2 = fmul double %xj, %xj
  %expected = fmul double %x2, 3.0
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %tangent, double %expected, double 1.0e-13)
  %xv = load [3 x double], ptr %x, align 8
  store [3 x double] %xv, ptr %xp, align 8
  %xpj = getelementptr inbounds [3 x double], ptr %xp, i32 0, i32 %j
  %xhi = fadd double %xj, 1.0e-6
  store double %xhi, ptr %xpj, align 8
  %fhi = call double @f(ptr %xp, i64 3)
  %xlo = fsub double %xj, 1.0e-6
  store double %xlo, ptr %xpj, align 8
  %flo = call double @f(ptr %xp, i64 3)
  %df = fsub double %fhi, %flo
  %fd = fdiv double %df, 2.0e-6
  %cf = call i32 @check(ptr @.what_fd, i32 %j, double %tangent, double %fd, double 1.0e-6)
  %fails.1 = add i32 %fails, %ca
  %fails.2 = add i32 %fails.1, %cf
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done

done:
  ret i32 %fails.2
}

attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #5 = { "enzyme_math"="cuMemAlloc" }
attributes #6 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #7 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyDtoD_v2" }
attributes #9 = { "enzyme_math"="cuMemFree_v2" }
attributes #10 = { "enzyme_math"="malloc" }
attributes #11 = { "enzyme_math"="free" }
