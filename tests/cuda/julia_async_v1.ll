; Julia-style IR (every CUDA call a renamed ccall into libcuda.so.1, tagged
; "enzyme_math"), differentiated on load:
;   - the old cuMemAlloc (32-bit size, its shadow zeroed with cuMemsetD8,
;     also 32-bit) beside cuMemAlloc_v2 (zeroed with cuMemsetD8_v2);
;   - an async host-to-device copy on a stream, a copy at an offset of an
;     integer CUdeviceptr (add i64), from a constant source (the shadow
;     region is zeroed instead), a device-to-device copy, an async
;     device-to-host copy, a stream synchronize and two frees.
;
;   f(x, c) = sum_i x_i^2 c_i          df/dx_j = 2 x_j c_j
; main returns 0 when every tangent matches.

@enzyme_dup = external global i32
@enzyme_const = external global i32
@.fmt_fail = private unnamed_addr constant [29 x i8] c"MISMATCH %d: %.17g vs %.17g\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare i32 @"ejlstr$cuStreamCreate$libcuda.so.1"(ptr, i32) #4
declare i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr) #5
declare i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr, i32) #6
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #7
declare i32 @"ejlstr$cuMemcpyHtoDAsync_v2$libcuda.so.1"(i64, ptr, i64, ptr) #8
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #9
declare i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64, i64, i64) #10
declare i32 @"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1"(ptr, i64, i64, ptr) #11
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #12
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)

define double @f(ptr %x, ptr %c, ptr %stream, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %both = shl i64 %n, 4
  %both32 = trunc i64 %both to i32
  %slot.a = alloca i64, align 8
  %slot.b = alloca i64, align 8
  %ra = call i32 @"ejlstr$cuMemAlloc$libcuda.so.1"(ptr %slot.a, i32 %both32)
  %rb = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot.b, i64 %both)
  %a = load i64, ptr %slot.a, align 8
  %b = load i64, ptr %slot.b, align 8
  %r1 = call i32 @"ejlstr$cuMemcpyHtoDAsync_v2$libcuda.so.1"(i64 %a, ptr %x, i64 %bytes, ptr %stream)
  %a.hi = add i64 %a, %bytes
  %r2 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %a.hi, ptr %c, i64 %bytes)
  %r3 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %b, i64 %a, i64 %both)
  %y = call ptr @malloc(i64 %both)
  %r4 = call i32 @"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1"(ptr %y, i64 %b, i64 %both, ptr %stream)
  %r5 = call i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr %stream)
  %r6 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %a)
  %r7 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %b)
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %px = getelementptr inbounds double, ptr %y, i64 %i
  %ic = add i64 %i, %n
  %pc = getelementptr inbounds double, ptr %y, i64 %ic
  %vx = load double, ptr %px, align 8
  %vc = load double, ptr %pc, align 8
  %sq = fmul double %vx, %vx
  %t = fmul double %sq, %vc
  %s.next = fadd double %s, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  call void @free(ptr %y)
  ret double %s.next
}

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %stream = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %c = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
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
  ret i32 100

setup:
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  store [3 x double] [double 2.0, double 3.0, double -1.0], ptr %c, align 8
  %primal = call double @f(ptr %x, ptr %c, ptr %st, i64 3)
  ; 1.5^2*2 + 0.25*3 - 4 = 1.25
  %pdiff = fsub double %primal, 1.25
  %pbad = fcmp one double %pdiff, 0.0
  br i1 %pbad, label %mismatch_primal, label %direction

mismatch_primal:
  ret i32 50

direction:
  %j = phi i32 [ 0, %setup ], [ %j.next, %check_ok ]
  %fails = phi i32 [ 0, %setup ], [ %fails.next, %check_ok ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %m.dup = load i32, ptr @enzyme_dup, align 4
  %m.const = load i32, ptr @enzyme_const, align 4
  %tangent = call double (...) @__enzyme_fwddiff(ptr @f, i32 %m.dup, ptr %x, ptr %dx, i32 %m.const, ptr %c, i32 %m.const, ptr %st, i32 %m.const, i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %cj.p = getelementptr inbounds [3 x double], ptr %c, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %cj = load double, ptr %cj.p, align 8
  %two_x = fmul double %xj, 2.0
  %expected = fmul double %two_x, %cj
  %diff = fsub double %tangent, %expected
  %adiff = call double @llvm.fabs.f64(double %diff)
  %close = fcmp olt double %adiff, 1.0e-12
  br i1 %close, label %check_ok, label %report

report:
  %pm = call i32 (ptr, ...) @printf(ptr @.fmt_fail, i32 %j, double %tangent, double %expected)
  br label %check_ok

check_ok:
  %bad = zext i1 %close to i32
  %bad.n = xor i32 %bad, 1
  %fails.next = add i32 %fails, %bad.n
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done

done:
  ret i32 %fails.next
}

declare double @llvm.fabs.f64(double)

attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuStreamCreate" }
attributes #5 = { "enzyme_math"="cuStreamSynchronize" }
attributes #6 = { "enzyme_math"="cuMemAlloc" }
attributes #7 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyHtoDAsync_v2" }
attributes #9 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #10 = { "enzyme_math"="cuMemcpyDtoD_v2" }
attributes #11 = { "enzyme_math"="cuMemcpyDtoHAsync_v2" }
attributes #12 = { "enzyme_math"="cuMemFree_v2" }
