; Device buffers made outside the differentiated function, passed in as
; i64 CUdeviceptr values (how CUDA.jl's CuArray pointers reach a ccall),
; with Enzyme.jl's markers as metadata operands:
;   - enzyme_dup on an i64 device pointer, its shadow an i64 device pointer
;     that main allocates with its own cuMemAlloc_v2 and zeroes with
;     cuMemsetD8_v2 before seeding it;
;   - enzyme_const on a device buffer of coefficients;
;   - enzyme_dupnoneed on a device output buffer (only its shadow is read);
;   - enzyme_width 2 with two i64 device shadows.
;
;   g(d, c) = sum_i d_i^2 c_i                 dg/dd_j = 2 d_j c_j
;   square_to_device(out, x): out_i = x_i^2   d out_i = 2 x_i dx_i
; main returns the number of mismatches.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_dup = private unnamed_addr constant [4 x i8] c"dup\00"
@.what_w0 = private unnamed_addr constant [11 x i8] c"width2 l0 \00"
@.what_w1 = private unnamed_addr constant [11 x i8] c"width2 l1 \00"
@.what_nn = private unnamed_addr constant [10 x i8] c"dupnoneed\00"
@.what_pr = private unnamed_addr constant [7 x i8] c"primal\00"
@.what_seed = private unnamed_addr constant [17 x i8] c"shadow untouched\00"
@.fmt_cuda = private unnamed_addr constant [24 x i8] c"CUDA setup failed (%d)\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #4
declare i32 @"ejlstr$cuMemsetD8_v2$libcuda.so.1"(i64, i8, i64) #5
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #6
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #7
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #8
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

; sum_i d_i^2 c_i, both vectors read back from the device
define double @g(i64 %d, i64 %c, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %y = call ptr @malloc(i64 %bytes)
  %k = call ptr @malloc(i64 %bytes)
  %r0 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %y, i64 %d, i64 %bytes)
  %r1 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %k, i64 %c, i64 %bytes)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %pk = getelementptr inbounds double, ptr %k, i64 %i
  %vy = load double, ptr %py, align 8
  %vk = load double, ptr %pk, align 8
  %sq = fmul double %vy, %vy
  %t = fmul double %sq, %vk
  %s.next = fadd double %s, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @free(ptr %y)
  call void @free(ptr %k)
  ret double %s.next
}

; out_i = x_i^2, written to the device through a host staging buffer
define void @square_to_device(i64 %out, ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %tmp = call ptr @malloc(i64 %bytes)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %pt = getelementptr inbounds double, ptr %tmp, i64 %i
  %vx = load double, ptr %px, align 8
  %sq = fmul double %vx, %vx
  store double %sq, ptr %pt, align 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %out, ptr %tmp, i64 %bytes)
  call void @free(ptr %tmp)
  ret void
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

; a device buffer of 3 doubles, zeroed, then holding `init` when non-null
define internal i64 @device_vector(ptr %init) {
  %slot = alloca i64, align 8
  %r0 = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot, i64 24)
  %p = load i64, ptr %slot, align 8
  %r1 = call i32 @"ejlstr$cuMemsetD8_v2$libcuda.so.1"(i64 %p, i8 0, i64 24)
  %has = icmp ne ptr %init, null
  br i1 %has, label %fill, label %out
fill:
  %r2 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %p, ptr %init, i64 24)
  br label %out
out:
  ret i64 %p
}

; seeds device shadow `ds` with the unit vector e_j
define internal void @seed(i64 %ds, i32 %j) {
  %e = alloca [3 x double], align 8
  store [3 x double] zeroinitializer, ptr %e, align 8
  %ej = getelementptr inbounds [3 x double], ptr %e, i32 0, i32 %j
  store double 1.0, ptr %ej, align 8
  %r = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %ds, ptr %e, i64 24)
  ret void
}

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %c = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %back = alloca [3 x double], align 8
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
  store [3 x double] [double 2.0, double 3.0, double -1.0], ptr %c, align 8
  %d = call i64 @device_vector(ptr %x)
  %dc = call i64 @device_vector(ptr %c)
  %ds = call i64 @device_vector(ptr null)
  %ds2 = call i64 @device_vector(ptr null)
  %primal = call double @g(i64 %d, i64 %dc, i64 3)
  ; 4.5 + 0.75 - 4
  %c0 = call i32 @check(ptr @.what_pr, i32 -1, double %primal, double 1.25, double 1.0e-14)
  br label %direction

direction:                               ; enzyme_dup / enzyme_const, width 1
  %j = phi i32 [ 0, %setup ], [ %j.next, %direction ]
  %fails = phi i32 [ %c0, %setup ], [ %fails.1, %direction ]
  call void @seed(i64 %ds, i32 %j)
  %tangent = call double (...) @__enzyme_fwddiff(ptr @g, metadata !"enzyme_dup", i64 %d, i64 %ds, metadata !"enzyme_const", i64 %dc, metadata !"enzyme_const", i64 3)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %cj.p = getelementptr inbounds [3 x double], ptr %c, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %cj = load double, ptr %cj.p, align 8
  %two_x = fmul double %xj, 2.0
  %expected = fmul double %two_x, %cj
  %cd = call i32 @check(ptr @.what_dup, i32 %j, double %tangent, double %expected, double 1.0e-13)
  %fails.1 = add i32 %fails, %cd
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %width2

width2:                                  ; lanes seed e_0 and e_2 at once
  call void @seed(i64 %ds, i32 0)
  call void @seed(i64 %ds2, i32 2)
  %pair = call [2 x double] (...) @__enzyme_fwddiff(ptr @g, metadata !"enzyme_width", i64 2, metadata !"enzyme_dup", i64 %d, i64 %ds, i64 %ds2, metadata !"enzyme_const", i64 %dc, metadata !"enzyme_const", i64 3)
  %l0 = extractvalue [2 x double] %pair, 0
  %l1 = extractvalue [2 x double] %pair, 1
  ; 2 * 1.5 * 2 and 2 * 2 * -1
  %cw0 = call i32 @check(ptr @.what_w0, i32 0, double %l0, double 6.0, double 1.0e-13)
  %cw1 = call i32 @check(ptr @.what_w1, i32 1, double %l1, double -4.0, double 1.0e-13)
  %fails.2 = add i32 %fails.1, %cw0
  %fails.3 = add i32 %fails.2, %cw1
  ; the shadows are read-only to g: the seed must still be there
  %rb = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %back, i64 %ds2, i64 24)
  %b2.p = getelementptr inbounds [3 x double], ptr %back, i32 0, i32 2
  %b2 = load double, ptr %b2.p, align 8
  %cs = call i32 @check(ptr @.what_seed, i32 2, double %b2, double 1.0, double 0.0)
  %fails.4 = add i32 %fails.3, %cs
  ; enzyme_dupnoneed: only the shadow of the device output is wanted
  %out = call i64 @device_vector(ptr null)
  %outs = call i64 @device_vector(ptr null)
  store [3 x double] [double 1.0, double -2.0, double 0.5], ptr %dx, align 8
  call void (...) @__enzyme_fwddiff(ptr @square_to_device, metadata !"enzyme_dupnoneed", i64 %out, i64 %outs, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 3)
  %rn = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %back, i64 %outs, i64 24)
  br label %nn

nn:                                      ; d out_i = 2 x_i dx_i
  %i = phi i32 [ 0, %width2 ], [ %i.next, %nn ]
  %fails.n = phi i32 [ %fails.4, %width2 ], [ %fails.n1, %nn ]
  %bi.p = getelementptr inbounds [3 x double], ptr %back, i32 0, i32 %i
  %xi.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %i
  %dxi.p = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %i
  %bi = load double, ptr %bi.p, align 8
  %xi = load double, ptr %xi.p, align 8
  %dxi = load double, ptr %dxi.p, align 8
  %tx = fmul double %xi, 2.0
  %want = fmul double %tx, %dxi
  %cn = call i32 @check(ptr @.what_nn, i32 %i, double %bi, double %want, double 1.0e-13)
  %fails.n1 = add i32 %fails.n, %cn
  %i.next = add i32 %i, 1
  %nmore = icmp slt i32 %i.next, 3
  br i1 %nmore, label %nn, label %done

done:
  %f0 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d)
  %f1 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %dc)
  %f2 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %ds)
  %f3 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %ds2)
  %f4 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %out)
  %f5 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %outs)
  ret i32 %fails.n1
}

attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #5 = { "enzyme_math"="cuMemsetD8_v2" }
attributes #6 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #7 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #8 = { "enzyme_math"="cuMemFree_v2" }
