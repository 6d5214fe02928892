; Julia-style module in reverse mode: every CUDA call a renamed ccall into
; libcuda.so.1 tagged "enzyme_math", libm through a renamed ccall and
; through Julia's own lazily bound ccall (a jlplt GOT), a GC-allocated box
; with GC.@preserve markers, activity markers as metadata.
;   - the 32-bit cuMemAlloc beside cuMemAlloc_v2 (their shadows zeroed by
;     cuMemsetD8 and cuMemsetD8_v2), both freed by cuMemFree_v2;
;   - host-to-device copies in a loop, one element each, at an i64 offset;
;   - a device-to-device copy, an async host-to-device copy into the upper
;     half on a stream, an async device-to-host copy, a synchronize.
;
;   y = [x, x];  s = sum_i y_i y_{n+i} sin(y_i) + cos(y_0)
;   ds/dx_j = 2 x_j sin x_j + x_j^2 cos x_j - [j = 0] sin x_0
; main runs the gradient from zero shadows at two points, compares with
; the analytic value, returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [39 x i8] c"MISMATCH x%d: %.17g vs expected %.17g\0A\00"
@.fmt_cuda = private unnamed_addr constant [24 x i8] c"CUDA setup failed (%d)\0A\00"
@lib = private unnamed_addr constant [10 x i8] c"libm.so.6\00"
@fn = private unnamed_addr constant [4 x i8] c"cos\00"
@handle = internal global ptr null
@jlplt_cos_7_got = internal global ptr @jlplt_cos_7 #20

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
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #13
declare i32 @"ejlstr$cuStreamDestroy_v2$libcuda.so.1"(ptr) #14
declare double @"ejlstr$sin$libm.so.6"(double) #15
declare ptr @ijl_load_and_lookup(ptr, ptr, ptr)
declare ptr @julia.get_pgcstack()
declare token @llvm.julia.gc_preserve_begin(...)
declare void @llvm.julia.gc_preserve_end(token)
declare noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr, i64, ptr addrspace(10))
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_autodiff(...)
declare double @llvm.fabs.f64(double)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)

define internal double @jlplt_cos_7(double %x) {
  %f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)
  store ptr %f, ptr @jlplt_cos_7_got
  %r = musttail call double %f(double %x)
  ret double %r
}

define double @julia_loss_12(ptr %x, ptr %stream, i64 %n) {
top:
  %pgc = call ptr @julia.get_pgcstack()
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
  %i = phi i64 [ 0, %top ], [ %i.next, %stage ]
  %off = shl i64 %i, 3
  %a.i = add i64 %a, %off
  %x.i = getelementptr inbounds i8, ptr %x, i64 %off
  %r1 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %a.i, ptr %x.i, i64 8)
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %stage, label %staged

staged:
  %r2 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %b, i64 %a, i64 %bytes)
  %b.hi = add i64 %b, %bytes
  %r3 = call i32 @"ejlstr$cuMemcpyHtoDAsync_v2$libcuda.so.1"(i64 %b.hi, ptr %x, i64 %bytes, ptr %stream)
  %y = call ptr @malloc(i64 %both)
  %r4 = call i32 @"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1"(ptr %y, i64 %b, i64 %both, ptr %stream)
  %r5 = call i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr %stream)
  br label %sum

sum:
  %k = phi i64 [ 0, %staged ], [ %k.next, %sum ]
  %acc = phi double [ 0.0, %staged ], [ %acc.next, %sum ]
  %p.lo = getelementptr inbounds double, ptr %y, i64 %k
  %lo = load double, ptr %p.lo, align 8
  %k.hi = add i64 %k, %n
  %p.hi = getelementptr inbounds double, ptr %y, i64 %k.hi
  %hi = load double, ptr %p.hi, align 8
  %sn = call double @"ejlstr$sin$libm.so.6"(double %lo)
  %t0 = fmul double %lo, %hi
  %t = fmul double %t0, %sn
  %acc.next = fadd double %acc, %t
  %k.next = add i64 %k, 1
  %again = icmp ult i64 %k.next, %n
  br i1 %again, label %sum, label %done

done:
  %y0 = load double, ptr %y, align 8
  %cosp = load ptr, ptr @jlplt_cos_7_got, align 8
  %c = call double %cosp(double %y0)
  %s = fadd double %acc.next, %c
  ; the result boxed and read back under GC.@preserve
  %box = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 8, ptr addrspace(10) null)
  %bd = addrspacecast ptr addrspace(10) %box to ptr addrspace(11)
  store double %s, ptr addrspace(11) %bd, align 8
  %tok = call token (...) @llvm.julia.gc_preserve_begin(ptr addrspace(10) %box)
  %v = load double, ptr addrspace(11) %bd, align 8
  call void @llvm.julia.gc_preserve_end(token %tok)
  %f1 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %a)
  %f2 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %b)
  call void @free(ptr %y)
  ret double %v
}

define internal i32 @check(ptr %x, ptr %stream, i64 %n) {
entry:
  %dx = alloca [3 x double], align 8
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %g = call double (...) @__enzyme_autodiff(ptr @julia_loss_12, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", ptr %stream, metadata !"enzyme_const", i64 %n)
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %next ]
  %bad = phi i32 [ 0, %entry ], [ %bad.next, %next ]
  %px = getelementptr inbounds double, ptr %x, i64 %j
  %xj = load double, ptr %px, align 8
  %pd = getelementptr inbounds double, ptr %dx, i64 %j
  %got = load double, ptr %pd, align 8
  %sx = call double @llvm.sin.f64(double %xj)
  %cx = call double @llvm.cos.f64(double %xj)
  %w0 = fmul double %xj, 2.0
  %w1 = fmul double %w0, %sx
  %xx = fmul double %xj, %xj
  %w2 = fmul double %xx, %cx
  %w3 = fadd double %w1, %w2
  %first = icmp eq i64 %j, 0
  %w4 = fsub double %w3, %sx
  %want = select i1 %first, double %w4, double %w3
  %diff = fsub double %got, %want
  %ad = call double @llvm.fabs.f64(double %diff)
  %ok = fcmp ole double %ad, 1.0e-12
  br i1 %ok, label %next, label %report
report:
  %jj = trunc i64 %j to i32
  %pr = call i32 (ptr, ...) @printf(ptr @.fmt_fail, i32 %jj, double %got, double %want)
  br label %next
next:
  %one = select i1 %ok, i32 0, i32 1
  %bad.next = add i32 %bad, %one
  %j.next = add i64 %j, 1
  %fin = icmp ult i64 %j.next, %n
  br i1 %fin, label %loop, label %out
out:
  ret i32 %bad.next
}

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %stream = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %c0 = call i32 @"ejlstr$cuInit$libcuda.so.1"(i32 0)
  %c1 = call i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr %dev, i32 0)
  %d = load i32, ptr %dev, align 4
  %c2 = call i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr %ctx, i32 %d)
  %cx = load ptr, ptr %ctx, align 8
  %c3 = call i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr %cx)
  %c4 = call i32 @"ejlstr$cuStreamCreate$libcuda.so.1"(ptr %stream, i32 0)
  %e01 = or i32 %c0, %c1
  %e23 = or i32 %c2, %c3
  %e = or i32 %e01, %e23
  %e4 = or i32 %e, %c4
  %failed = icmp ne i32 %e4, 0
  br i1 %failed, label %setup_failed, label %run
setup_failed:
  %pf = call i32 (ptr, ...) @printf(ptr @.fmt_cuda, i32 %e4)
  ret i32 100
run:
  %s = load ptr, ptr %stream, align 8
  store [3 x double] [double 0.3, double -0.7, double 1.1], ptr %x, align 8
  %m1 = call i32 @check(ptr %x, ptr %s, i64 3)
  store [3 x double] [double -1.3, double 0.45, double 2.2], ptr %x, align 8
  %m2 = call i32 @check(ptr %x, ptr %s, i64 3)
  %cd = call i32 @"ejlstr$cuStreamDestroy_v2$libcuda.so.1"(ptr %s)
  %m = add i32 %m1, %m2
  ret i32 %m
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
attributes #13 = { "enzyme_math"="cuMemFree_v2" }
attributes #14 = { "enzyme_math"="cuStreamDestroy_v2" }
attributes #15 = { "enzyme_math"="sin" }
attributes #20 = { "julia.fname"="cos" "julia.libname"="libm.so.6" }
