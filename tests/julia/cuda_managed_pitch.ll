; Julia-style managed and pitched device memory, every call a renamed ccall
; into libcuda.so.1 tagged "enzyme_math":
;   - cuMemAllocManaged, its CUdeviceptr turned into a host pointer
;     (inttoptr) that host code stores x^2 into directly and reads back;
;   - cuMemAllocPitch_v2 with the pitch out-parameter passed as an i64
;     (Julia's Ptr{Csize_t}) and written by the call alone; row 1 lies at
;     base + pitch (an integer add), filled from the managed memory by a
;     device-to-device copy, row 0 from x;
;   - both rows copied back, both allocations freed by cuMemFree_v2.
;
;   f(x) = sum_i y_i * z_i + m_i  with y = x, z = m = x^2
;        = sum_i x_i^3 + x_i^2,   df/dx_j = 3 x_j^2 + 2 x_j
; main seeds each direction, compares with the analytic value and a central
; finite difference, and returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"
@.what_pr = private unnamed_addr constant [7 x i8] c"primal\00"
@.fmt_cuda = private unnamed_addr constant [24 x i8] c"CUDA setup failed (%d)\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare i32 @"ejlstr$cuMemAllocManaged$libcuda.so.1"(ptr, i64, i32) #4
declare i32 @"ejlstr$cuMemAllocPitch_v2$libcuda.so.1"(ptr, i64, i64, i64, i32) #5
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #6
declare i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64, i64, i64) #7
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #8
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #9
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

define double @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %slot.m = alloca i64, align 8
  %slot.p = alloca i64, align 8
  %slot.pitch = alloca i64, align 8
  %rm = call i32 @"ejlstr$cuMemAllocManaged$libcuda.so.1"(ptr %slot.m, i64 %bytes, i32 1)
  %m = load i64, ptr %slot.m, align 8
  %mp = inttoptr i64 %m to ptr
  br label %square

square:                                  ; m[i] = x[i]^2, by host code
  %i = phi i64 [ 0, %entry ], [ %i.next, %square ]
  %x.i = getelementptr inbounds double, ptr %x, i64 %i
  %m.i = getelementptr inbounds double, ptr %mp, i64 %i
  %v = load double, ptr %x.i, align 8
  %sq = fmul double %v, %v
  store double %sq, ptr %m.i, align 8
  %i.next = add nuw i64 %i, 1
  %squared = icmp eq i64 %i.next, %n
  br i1 %squared, label %pitched, label %square

pitched:
  %pitch.arg = ptrtoint ptr %slot.pitch to i64
  %rp = call i32 @"ejlstr$cuMemAllocPitch_v2$libcuda.so.1"(ptr %slot.p, i64 %pitch.arg, i64 %bytes, i64 2, i32 8)
  %p = load i64, ptr %slot.p, align 8
  %pitch = load i64, ptr %slot.pitch, align 8
  %row1 = add i64 %p, %pitch
  %r1 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %row1, i64 %m, i64 %bytes)
  %r2 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %p, ptr %x, i64 %bytes)
  %both = shl i64 %n, 4
  %y = call ptr @malloc(i64 %both)
  %r3 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %y, i64 %p, i64 %bytes)
  %y.hi = getelementptr inbounds double, ptr %y, i64 %n
  %r4 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %y.hi, i64 %row1, i64 %bytes)
  br label %sum

sum:
  %k = phi i64 [ 0, %pitched ], [ %k.next, %sum ]
  %s = phi double [ 0.0, %pitched ], [ %s.next, %sum ]
  %py = getelementptr inbounds double, ptr %y, i64 %k
  %kz = add i64 %k, %n
  %pz = getelementptr inbounds double, ptr %y, i64 %kz
  %pm = getelementptr inbounds double, ptr %mp, i64 %k
  %vy = load double, ptr %py, align 8
  %vz = load double, ptr %pz, align 8
  %vm = load double, ptr %pm, align 8
  %yz = fmul double %vy, %vz
  %t = fadd double %yz, %vm
  %s.next = fadd double %s, %t
  %k.next = add nuw i64 %k, 1
  %done = icmp eq i64 %k.next, %n
  br i1 %done, label %exit, label %sum

exit:
  call void @free(ptr %y)
  %r5 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %p)
  %r6 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %m)
  ret double %s.next
}

; 0 when |got - want| <= tol * max(1, |want|), else prints and returns 1
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
  %primal = call double @f(ptr %x, i64 3)
  ; 3.375 - 0.125 + 8 + 2.25 + 0.25 + 4
  %c0 = call i32 @check(ptr @.what_pr, i32 -1, double %primal, double 17.75, double 1.0e-14)
  br label %direction

direction:
  %j = phi i32 [ 0, %setup ], [ %j.next, %direction ]
  %fails = phi i32 [ %c0, %setup ], [ %fails.2, %direction ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %tangent = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %x2 = fmul double %xj, %xj
  %x2.3 = fmul double %x2, 3.0
  %x.2 = fmul double %xj, 2.0
  %expected = fadd double %x2.3, %x.2
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %tangent, double %expected, double 1.0e-13)
  ; central finite difference, h = 1e-6
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
attributes #4 = { "enzyme_math"="cuMemAllocManaged" }
attributes #5 = { "enzyme_math"="cuMemAllocPitch_v2" }
attributes #6 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #7 = { "enzyme_math"="cuMemcpyDtoD_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #9 = { "enzyme_math"="cuMemFree_v2" }
