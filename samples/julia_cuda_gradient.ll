; The reverse-mode sample: IR the way a Julia-style frontend emits it, the
; loss staging its data through CUDA device memory, its gradient taken in
; reverse mode on load (one call gives every entry).
;
;   function loss(x::Vector{Float64}, n)
;       d = CuArray(x)                   # cuMemAlloc_v2 + cuMemcpyHtoD_v2
;       e = CuArray{Float64}(undef, 2n)  # cuMemAlloc_v2
;       copyto!(e, 1, d, 1, n)           # cuMemcpyDtoD_v2
;       copyto!(e, n + 1, d, 1, n)       # cuMemcpyDtoD_v2 at an offset
;       y = Array(e)                     # cuMemcpyDtoH_v2
;       CUDA.unsafe_free!(d); CUDA.unsafe_free!(e)   # cuMemFree_v2
;       return sum(i -> i * y[i]^2 * y[n + i], 1:n)   # = sum i x_i^3
;   end
;   autodiff(Reverse, loss, Duplicated(x, dx), Const(n))
;
; Every CUDA call is a renamed ccall ejlstr$<function>$libcuda.so.1 tagged
; "enzyme_math", resolved from the library loaded RTLD_LOCAL.  The reverse
; pass accumulates through the device as well: each transfer's adjoint is
; read into a host scratch buffer (cuMemcpyDtoH_v2), added on the host, and
; copied back (cuMemcpyHtoD_v2); the device shadows are zeroed with
; cuMemsetD8_v2 and freed at the end, all through renamed ccalls into the
; same library.
;
; Run:  tanjit run samples/julia_cuda_gradient.ll -L build/runtime/cudasim

@.fmt_row = private unnamed_addr constant [49 x i8] c"  d loss / d x[%d] = %10.5f   (analytic %10.5f)\0A\00"
@.fmt_head = private unnamed_addr constant [40 x i8] c"loss(x) = %.5f with x staged on device\0A\00"
@.fmt_fail = private unnamed_addr constant [32 x i8] c"MISMATCH at %d: %.17g vs %.17g\0A\00"
@.fmt_ok = private unnamed_addr constant [43 x i8] c"ok: the gradient matches the analytic one\0A\00"
@.fmt_cuda = private unnamed_addr constant [31 x i8] c"CUDA initialisation failed %d\0A\00"

declare i32 @"ejlstr$cuInit$libcuda.so.1"(i32) #0
declare i32 @"ejlstr$cuDeviceGet$libcuda.so.1"(ptr, i32) #1
declare i32 @"ejlstr$cuDevicePrimaryCtxRetain$libcuda.so.1"(ptr, i32) #2
declare i32 @"ejlstr$cuCtxSetCurrent$libcuda.so.1"(ptr) #3
declare i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr, i64) #4
declare i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64, ptr, i64) #5
declare i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr, i64, i64) #6
declare i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64) #7
declare i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64, i64, i64) #8
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_autodiff(...)
declare double @llvm.fabs.f64(double)

define double @loss(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %both = shl i64 %n, 4
  %slot.d = alloca i64, align 8
  %slot.e = alloca i64, align 8
  %r0 = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot.d, i64 %bytes)
  %d = load i64, ptr %slot.d, align 8
  %r1 = call i32 @"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1"(i64 %d, ptr %x, i64 %bytes)
  %r2 = call i32 @"ejlstr$cuMemAlloc_v2$libcuda.so.1"(ptr %slot.e, i64 %both)
  %e = load i64, ptr %slot.e, align 8
  %r3 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %e, i64 %d, i64 %bytes)
  %e.hi = add i64 %e, %bytes
  %r4 = call i32 @"ejlstr$cuMemcpyDtoD_v2$libcuda.so.1"(i64 %e.hi, i64 %d, i64 %bytes)
  %y = call ptr @malloc(i64 %both)
  %r5 = call i32 @"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1"(ptr %y, i64 %e, i64 %both)
  %r6 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %d)
  %r7 = call i32 @"ejlstr$cuMemFree_v2$libcuda.so.1"(i64 %e)
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %y, i64 %i
  %v = load double, ptr %p, align 8
  %i.hi = add i64 %i, %n
  %q = getelementptr inbounds double, ptr %y, i64 %i.hi
  %u = load double, ptr %q, align 8
  %i.next = add nuw i64 %i, 1
  %w = uitofp i64 %i.next to double
  %v2 = fmul double %v, %v
  %vu = fmul double %v2, %u
  %t = fmul double %vu, %w
  %s.next = fadd double %s, %t
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
  %x = alloca [4 x double], align 8
  %dx = alloca [4 x double], align 8
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
  ret i32 2

setup:
  store [4 x double] [double 0.5, double -1.25, double 2.0, double 3.0], ptr %x, align 8
  store [4 x double] zeroinitializer, ptr %dx, align 8
  %f = call double @loss(ptr %x, i64 4)
  %ph = call i32 (ptr, ...) @printf(ptr @.fmt_head, double %f)
  ; Enzyme.jl's form of the request: activity markers as metadata strings.
  %r = call double (...) @__enzyme_autodiff(ptr @loss, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 4)
  br label %entry_j

entry_j:
  %j = phi i32 [ 0, %setup ], [ %j.next, %check_ok ]
  %xj.p = getelementptr inbounds [4 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %gj.p = getelementptr inbounds [4 x double], ptr %dx, i32 0, i32 %j
  %gj = load double, ptr %gj.p, align 8
  %j1 = add i32 %j, 1
  %wj = sitofp i32 %j1 to double
  %xx = fmul double %xj, %xj
  %three = fmul double %xx, 3.0
  %expected = fmul double %three, %wj
  %pr = call i32 (ptr, ...) @printf(ptr @.fmt_row, i32 %j, double %gj, double %expected)
  %diff = fsub double %gj, %expected
  %adiff = call double @llvm.fabs.f64(double %diff)
  %close = fcmp olt double %adiff, 1.0e-12
  br i1 %close, label %check_ok, label %mismatch

check_ok:
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 4
  br i1 %more, label %entry_j, label %done

mismatch:
  %pm = call i32 (ptr, ...) @printf(ptr @.fmt_fail, i32 %j, double %gj, double %expected)
  ret i32 1

done:
  %po = call i32 (ptr, ...) @printf(ptr @.fmt_ok)
  ret i32 0
}

attributes #0 = { "enzyme_math"="cuInit" }
attributes #1 = { "enzyme_math"="cuDeviceGet" }
attributes #2 = { "enzyme_math"="cuDevicePrimaryCtxRetain" }
attributes #3 = { "enzyme_math"="cuCtxSetCurrent" }
attributes #4 = { "enzyme_math"="cuMemAlloc_v2" }
attributes #5 = { "enzyme_math"="cuMemcpyHtoD_v2" }
attributes #6 = { "enzyme_math"="cuMemcpyDtoH_v2" }
attributes #7 = { "enzyme_math"="cuMemFree_v2" }
attributes #8 = { "enzyme_math"="cuMemcpyDtoD_v2" }
