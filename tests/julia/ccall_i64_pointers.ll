; Pointers in ccall signatures as i64, the way older Julia lowered Ptr{T}
; arguments and results: the host buffer, the CUdeviceptr out-parameter of
; cuMemAlloc_v2, the result of malloc and the out-parameter of
; posix_memalign are all integers, turned into pointers with inttoptr.  The
; shadow allocations must be loaded and zeroed through those integers.
;
;   f(x) = sum_i y_i^2 + sum_i z_i,  y = x through the device, z_i = x_i^2
;   in a posix_memalign'd buffer         df/dx_j = 4 x_j
; main checks each direction; returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [29 x i8] c"MISMATCH %d: %.17g vs %.17g\0A\00"
declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(i64, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(i64, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(i64) #3
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(i64, i64) #4
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, i64, i64) #5
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(i64, i64, i64) #6
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #7
declare i64 @"ejlstr$malloc$libc.so.6"(i64) #8
declare void @"ejlstr$free$libc.so.6"(i64) #9
declare i32 @"ejlstr$posix_memalign$libc.so.6"(i64, i64, i64) #10
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)

; x as i64 (Ptr{Float64} in an old-style ccall signature)
define double @f(i64 %x, i64 %n) {
top:
  %bytes = shl i64 %n, 3
  %slot = alloca i64, align 8
  %slot.i = ptrtoint ptr %slot to i64
  %r0 = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(i64 %slot.i, i64 %bytes)
  %d = load i64, ptr %slot, align 8
  %r1 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %d, i64 %x, i64 %bytes)
  %y = call i64 @"ejlstr$malloc$libc.so.6"(i64 %bytes)
  %r2 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(i64 %y, i64 %d, i64 %bytes)
  %r3 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d)
  %yp = inttoptr i64 %y to ptr
  br label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %top ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %yp, i64 %i
  %v = load double, ptr %p, align 8
  %v2 = fmul double %v, %v
  %s.next = fadd double %s, %v2
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @"ejlstr$free$libc.so.6"(i64 %y)
  %zslot = alloca i64, align 8
  %zslot.i = ptrtoint ptr %zslot to i64
  %ra = call i32 @"ejlstr$posix_memalign$libc.so.6"(i64 %zslot.i, i64 64, i64 %bytes)
  %z = load i64, ptr %zslot, align 8
  %zp = inttoptr i64 %z to ptr
  %xp = inttoptr i64 %x to ptr
  br label %zloop
zloop:
  %k = phi i64 [ 0, %exit ], [ %k.next, %zloop ]
  %pxk = getelementptr inbounds double, ptr %xp, i64 %k
  %pzk = getelementptr inbounds double, ptr %zp, i64 %k
  %vx = load double, ptr %pxk, align 8
  %vx2 = fmul double %vx, %vx
  store double %vx2, ptr %pzk, align 8
  %k.next = add nuw i64 %k, 1
  %zdone = icmp eq i64 %k.next, %n
  br i1 %zdone, label %zsum, label %zloop
zsum:
  %m = phi i64 [ 0, %zloop ], [ %m.next, %zsum ]
  %acc = phi double [ %s.next, %zloop ], [ %acc.next, %zsum ]
  %pzm = getelementptr inbounds double, ptr %zp, i64 %m
  %vz = load double, ptr %pzm, align 8
  %acc.next = fadd double %acc, %vz
  %m.next = add nuw i64 %m, 1
  %mdone = icmp eq i64 %m.next, %n
  br i1 %mdone, label %out, label %zsum
out:
  call void @"ejlstr$free$libc.so.6"(i64 %z)
  ret double %acc.next
}

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %e0 = call i32 @"ejlstr$cuInit$libcuda.so.1"(i32 0)
  %devi = ptrtoint ptr %dev to i64
  %e1 = call i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(i64 %devi, i32 0)
  %devv = load i32, ptr %dev, align 4
  %ctxi = ptrtoint ptr %ctx to i64
  %e2 = call i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(i64 %ctxi, i32 %devv)
  %ctxv = load i64, ptr %ctx, align 8
  %e3 = call i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(i64 %ctxv)
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  %xi = ptrtoint ptr %x to i64
  %dxi = ptrtoint ptr %dx to i64
  %eall = or i32 %e0, %e1
  %ecud = or i32 %e2, %e3
  %errs = or i32 %eall, %ecud
  %cuda_ok = icmp eq i32 %errs, 0
  br i1 %cuda_ok, label %direction, label %cuda_failed
cuda_failed:
  ret i32 100
direction:
  %j = phi i32 [ 0, %entry ], [ %j.next, %next ]
  %fails = phi i32 [ 0, %entry ], [ %fails.next, %next ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %t = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", i64 %xi, i64 %dxi, metadata !"enzyme_const", i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %want = fmul double %xj, 4.0
  %bad = fcmp une double %t, %want
  br i1 %bad, label %fail, label %next
fail:
  %p = call i32 (ptr, ...) @printf(ptr @.fmt_fail, i32 %j, double %t, double %want)
  br label %next
next:
  %b = zext i1 %bad to i32
  %fails.next = add i32 %fails, %b
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done
done:
  ret i32 %fails.next
}
attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #5 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #6 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #7 = { "enzyme_math"="cuMemFree_v2" }
attributes #8 = { "enzyme_math"="malloc" }
attributes #9 = { "enzyme_math"="free" }
attributes #10 = { "enzyme_math"="posix_memalign" }
