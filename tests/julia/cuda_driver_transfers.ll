; Julia-style CUDA driver API, every call a renamed ccall into libcuda.so.1
; tagged "enzyme_math": the shapes CUDA.jl code takes after lowering.
;   - the 32-bit cuMemAlloc beside cuMemAlloc_v2, both freed by cuMemFree_v2;
;   - host-to-device copies inside a loop, one element each, at device
;     pointer + byte offset computed in i64 (an integer add);
;   - a device-to-device copy, an async host-to-device copy into the upper
;     half of a buffer on a stream from cuStreamCreate, an async
;     device-to-host copy on that stream and a synchronize;
;   - a partial synchronous device-to-host copy from an offset.
;
;   f(x) = sum_i y_i * z_i * w_i  with y = z = w = x staged on the device
;        = sum_i x_i^3,        df/dx_j = 3 x_j^2
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
declare i32 @"ejlstr$cuStreamCreate$libcuda.so.1"(ptr, i32) #4
declare i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr) #5
declare i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr, i32) #6
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #7
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #8
declare i32 @"ejlstr$cuMemcpyHtoDAsync_v2$libcuda.so.1"(i64, ptr, i64, ptr) #9
declare i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64, i64, i64) #10
declare i32 @"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1"(ptr, i64, i64, ptr) #11
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #12
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #13
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

define double @f(ptr %x, ptr %stream, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %both = shl i64 %n, 4
  %bytes32 = trunc i64 %bytes to i32
  %slot.a = alloca i64, align 8
  %slot.b = alloca i64, align 8
  %ra = call i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr %slot.a, i32 %bytes32)
  %rb = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot.b, i64 %both)
  %a = load i64, ptr %slot.a, align 8
  %b = load i64, ptr %slot.b, align 8
  br label %stage

stage:                                   ; a[i] = x[i], one element per copy
  %i = phi i64 [ 0, %entry ], [ %i.next, %stage ]
  %off = shl i64 %i, 3
  %a.i = add i64 %a, %off
  %x.i = getelementptr inbounds i8, ptr %x, i64 %off
  %r1 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %a.i, ptr %x.i, i64 8)
  %i.next = add nuw i64 %i, 1
  %staged = icmp eq i64 %i.next, %n
  br i1 %staged, label %device, label %stage

device:
  %r2 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %b, i64 %a, i64 %bytes)
  %b.hi = add i64 %b, %bytes
  %r3 = call i32 @"ejlstr$cuMemcpyHtoDAsync_v2$libcuda.so.1"(i64 %b.hi, ptr %x, i64 %bytes, ptr %stream)
  %y = call ptr @malloc(i64 %both)
  %r4 = call i32 @"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1"(ptr %y, i64 %b, i64 %both, ptr %stream)
  %r5 = call i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr %stream)
  %w = call ptr @malloc(i64 %bytes)
  %r6 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %w, i64 %b.hi, i64 %bytes)
  %r7 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %a)
  %r8 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %b)
  br label %sum

sum:
  %k = phi i64 [ 0, %device ], [ %k.next, %sum ]
  %s = phi double [ 0.0, %device ], [ %s.next, %sum ]
  %py = getelementptr inbounds double, ptr %y, i64 %k
  %kz = add i64 %k, %n
  %pz = getelementptr inbounds double, ptr %y, i64 %kz
  %pw = getelementptr inbounds double, ptr %w, i64 %k
  %vy = load double, ptr %py, align 8
  %vz = load double, ptr %pz, align 8
  %vw = load double, ptr %pw, align 8
  %yz = fmul double %vy, %vz
  %t = fmul double %yz, %vw
  %s.next = fadd double %s, %t
  %k.next = add nuw i64 %k, 1
  %done = icmp eq i64 %k.next, %n
  br i1 %done, label %exit, label %sum

exit:
  call void @free(ptr %y)
  call void @free(ptr %w)
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
  %stream = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %xp = alloca [3 x double], align 8
  %e0 = call i32 @"ejlstr$cuInit$libcuda.so.1"(i32 0)
  %e1 = call i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr %dev, i32 0)
  %devv = load i32, ptr %dev, align 4
  %e2 = call i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr %ctx, i32 %devv)
  %ctxv = load ptr, ptr %ctx, align 8
  %e3 = call i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr %ctxv)
  %e4 = call i32 @"ejlstr$cuStreamCreate$libcuda.so.1"(ptr %stream, i32 0)
  %st = load ptr, ptr %stream, align 8
  %e01 = or i32 %e0, %e1
  %e23 = or i32 %e2, %e3
  %e234 = or i32 %e23, %e4
  %eall = or i32 %e01, %e234
  %cuda_ok = icmp eq i32 %eall, 0
  br i1 %cuda_ok, label %setup, label %cuda_failed

cuda_failed:
  %pf = call i32 (ptr, ...) @printf(ptr @.fmt_cuda, i32 %eall)
  ret i32 100

setup:
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  %primal = call double @f(ptr %x, ptr %st, i64 3)
  ; 3.375 - 0.125 + 8
  %c0 = call i32 @check(ptr @.what_pr, i32 -1, double %primal, double 11.25, double 1.0e-14)
  br label %direction

direction:
  %j = phi i32 [ 0, %setup ], [ %j.next, %direction ]
  %fails = phi i32 [ %c0, %setup ], [ %fails.2, %direction ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %tangent = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", ptr %st, metadata !"enzyme_const", i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %x2 = fmul double %xj, %xj
  %expected = fmul double %x2, 3.0
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %tangent, double %expected, double 1.0e-13)
  ; central finite difference, h = 1e-6
  %xv = load [3 x double], ptr %x, align 8
  store [3 x double] %xv, ptr %xp, align 8
  %xpj = getelementptr inbounds [3 x double], ptr %xp, i32 0, i32 %j
  %xhi = fadd double %xj, 1.0e-6
  store double %xhi, ptr %xpj, align 8
  %fhi = call double @f(ptr %xp, ptr %st, i64 3)
  %xlo = fsub double %xj, 1.0e-6
  store double %xlo, ptr %xpj, align 8
  %flo = call double @f(ptr %xp, ptr %st, i64 3)
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
attributes #4 = { "enzyme_math"="cuStreamCreate" }
attributes #5 = { "enzyme_math"="cuStreamSynchronize" }
attributes #6 = { "enzyme_math"="cuMemAlloc" }
attributes #7 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #9 = { "enzyme_math"="cuMemcpyHtoDAsync_v2" }
attributes #10 = { "enzyme_math"="cuMemcpyDtoD_v2" }
attributes #11 = { "enzyme_math"="cuMemcpyDtoHAsync_v2" }
attributes #12 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #13 = { "enzyme_math"="cuMemFree_v2" }
