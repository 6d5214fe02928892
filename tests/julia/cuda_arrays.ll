; CUDA.jl-shaped data: a CuArray header {CuPtr (i64), length} passed by
; reference as `ptr addrspace(10)`, its device pointer loaded from memory
; as an integer; the shadow header (built by main) holds the shadow device
; pointer.  The device pointer then travels:
;   - into a non-inlined internal function as an i64 argument (Julia's
;     unsafe_copyto! specializations), which copies device to host;
;   - through a loop-carried phi, advanced by 8 bytes per iteration, each
;     element fetched with its own cuMemcpyDtoH_v2;
;   - into cuMemcpyDtoDAsync_v2 on a stream.
; The tuple result (NTuple{2,Float64}) comes back through an sret pointer.
;
;   out[0] = sum_i a_i^2,  out[1] = sum_i a_i b_i   (b a copy of a made on
;   the device, read element by element)
;   d out[0] = 2 a_j,  d out[1] = 2 a_j   along e_j
; main returns the number of mismatches.

%CuArray = type { i64, i64 }

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_0 = private unnamed_addr constant [8 x i8] c"out[0] \00"
@.what_1 = private unnamed_addr constant [8 x i8] c"out[1] \00"
@.what_p = private unnamed_addr constant [7 x i8] c"primal\00"
@.fmt_cuda = private unnamed_addr constant [24 x i8] c"CUDA setup failed (%d)\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare i32 @"ejlstr$cuStreamCreate$libcuda.so.1"(ptr, i32) #4
declare i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr) #5
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #6
declare i32 @"ejlstr$cuMemsetD8_v2$libcuda.so.1"(i64, i8, i64) #7
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #8
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #9
declare i32 @"ejlstr$cuMemcpyDtoDAsync_v2$libcuda.so.1"(i64, i64, i64, ptr) #10
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #11
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare void @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)

; Julia's unsafe_copyto!(dst::Ptr, src::CuPtr, n), not inlined
define internal i32 @julia_unsafe_copyto_21(ptr %dst, i64 %src, i64 %n) #12 {
top:
  %bytes = shl i64 %n, 3
  %r = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %dst, i64 %src, i64 %bytes)
  ret i32 %r
}

define void @stats(ptr noalias nocapture sret([2 x double]) %out, ptr addrspace(10) %A, ptr %stream) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %d = load i64, ptr addrspace(11) %a11, align 8
  %lenp = getelementptr inbounds %CuArray, ptr addrspace(11) %a11, i64 0, i32 1
  %n = load i64, ptr addrspace(11) %lenp, align 8
  %bytes = shl i64 %n, 3
  %slot = alloca i64, align 8
  %ra = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot, i64 %bytes)
  %b = load i64, ptr %slot, align 8
  %rc = call i32 @"ejlstr$cuMemcpyDtoDAsync_v2$libcuda.so.1"(i64 %b, i64 %d, i64 %bytes, ptr %stream)
  %rs = call i32 @"ejlstr$cuStreamSynchronize$libcuda.so.1"(ptr %stream)
  %host = call ptr @malloc(i64 %bytes)
  %r0 = call i32 @julia_unsafe_copyto_21(ptr %host, i64 %d, i64 %n)
  %elt = alloca double, align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %bp = phi i64 [ %b, %top ], [ %bp.next, %loop ]
  %s0 = phi double [ 0.0, %top ], [ %s0.next, %loop ]
  %s1 = phi double [ 0.0, %top ], [ %s1.next, %loop ]
  %r1 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %elt, i64 %bp, i64 8)
  %bv = load double, ptr %elt, align 8
  %hp = getelementptr inbounds double, ptr %host, i64 %i
  %av = load double, ptr %hp, align 8
  %aa = fmul double %av, %av
  %ab = fmul double %av, %bv
  %s0.next = fadd double %s0, %aa
  %s1.next = fadd double %s1, %ab
  %bp.next = add i64 %bp, 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %rf = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %b)
  call void @free(ptr %host)
  %o1 = getelementptr inbounds [2 x double], ptr %out, i64 0, i64 1
  store double %s0.next, ptr %out, align 8
  store double %s1.next, ptr %o1, align 8
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

; a device vector of 3 doubles holding `init`
define internal i64 @device_vector(ptr %init) {
  %slot = alloca i64, align 8
  %r0 = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot, i64 24)
  %p = load i64, ptr %slot, align 8
  %r2 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %p, ptr %init, i64 24)
  ret i64 %p
}

define i32 @main() {
entry:
  %dev = alloca i32, align 4
  %ctx = alloca ptr, align 8
  %stream = alloca ptr, align 8
  %x = alloca [3 x double], align 8
  %e = alloca [3 x double], align 8
  %arr = alloca %CuArray, align 8
  %darr = alloca %CuArray, align 8
  %out = alloca [2 x double], align 8
  %dout = alloca [2 x double], align 8
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
  %d = call i64 @device_vector(ptr %x)
  %h0 = insertvalue %CuArray undef, i64 %d, 0
  %h1 = insertvalue %CuArray %h0, i64 3, 1
  store %CuArray %h1, ptr %arr, align 8
  %A = addrspacecast ptr %arr to ptr addrspace(10)
  %dA = addrspacecast ptr %darr to ptr addrspace(10)
  call void @stats(ptr %out, ptr addrspace(10) %A, ptr %st)
  %p0 = load double, ptr %out, align 8
  ; 2.25 + 0.25 + 4
  %cp = call i32 @check(ptr @.what_p, i32 0, double %p0, double 6.5, double 1.0e-14)
  br label %direction

direction:
  %j = phi i32 [ 0, %setup ], [ %j.next, %direction ]
  %fails = phi i32 [ %cp, %setup ], [ %fails.2, %direction ]
  store [3 x double] zeroinitializer, ptr %e, align 8
  %ej = getelementptr inbounds [3 x double], ptr %e, i32 0, i32 %j
  store double 1.0, ptr %ej, align 8
  %ds = call i64 @device_vector(ptr %e)
  %s0 = insertvalue %CuArray undef, i64 %ds, 0
  %s1 = insertvalue %CuArray %s0, i64 3, 1
  store %CuArray %s1, ptr %darr, align 8
  store [2 x double] zeroinitializer, ptr %dout, align 8
  call void (...) @__enzyme_fwddiff(ptr @stats, metadata !"enzyme_dupnoneed", ptr %out, ptr %dout, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA, metadata !"enzyme_const", ptr %st)
  %rf = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %ds)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %want = fmul double %xj, 2.0
  %do0 = load double, ptr %dout, align 8
  %do1.p = getelementptr inbounds [2 x double], ptr %dout, i32 0, i32 1
  %do1 = load double, ptr %do1.p, align 8
  %c0 = call i32 @check(ptr @.what_0, i32 %j, double %do0, double %want, double 1.0e-13)
  %c1 = call i32 @check(ptr @.what_1, i32 %j, double %do1, double %want, double 1.0e-13)
  %fails.1 = add i32 %fails, %c0
  %fails.2 = add i32 %fails.1, %c1
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done

done:
  %rd = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d)
  ret i32 %fails.2
}

attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuStreamCreate" }
attributes #5 = { "enzyme_math"="cuStreamSynchronize" }
attributes #6 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #7 = { "enzyme_math"="cuMemsetD8_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #9 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #10 = { "enzyme_math"="cuMemcpyDtoDAsync_v2" }
attributes #11 = { "enzyme_math"="cuMemFree_v2" }
attributes #12 = { noinline }
