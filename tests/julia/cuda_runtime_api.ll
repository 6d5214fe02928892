; The CUDA runtime API through Julia-style renamed ccalls into
; libcudart.so.12: cudaMalloc / cudaFree and cudaMemcpy with every kind a
; transfer can carry: 1 (host to device), 3 (device to device), 2 (device
; to host) and 4 (cudaMemcpyDefault, the direction read from the addresses:
; here host to device, device to host, and host to host).
;
;   f(x) = sum_i y_i z_i sin(h_i),  y = z = h = x after the round trips
;        = sum_i x_i^2 sin(x_i),    df/dx_j = 2 x_j sin x_j + x_j^2 cos x_j
; main returns the number of mismatches against the analytic value and a
; central finite difference.

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_an = private unnamed_addr constant [9 x i8] c"analytic\00"
@.what_fd = private unnamed_addr constant [7 x i8] c"finite\00"
@.what_st = private unnamed_addr constant [7 x i8] c"status\00"

declare i32 @"ejlstr$cudaMalloc$libcudart.so.12"(ptr, i64) #0
declare i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr, ptr, i64, i32) #1
declare i32 @"ejlstr$cudaFree$libcudart.so.12"(ptr) #2
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.fabs.f64(double)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)

; the ORed status of every call lands in *status
define double @f(ptr %x, i64 %n, ptr %status) {
entry:
  %bytes = shl i64 %n, 3
  %slot.a = alloca ptr, align 8
  %slot.b = alloca ptr, align 8
  %slot.c = alloca ptr, align 8
  %m0 = call i32 @"ejlstr$cudaMalloc$libcudart.so.12"(ptr %slot.a, i64 %bytes)
  %m1 = call i32 @"ejlstr$cudaMalloc$libcudart.so.12"(ptr %slot.b, i64 %bytes)
  %m2 = call i32 @"ejlstr$cudaMalloc$libcudart.so.12"(ptr %slot.c, i64 %bytes)
  %a = load ptr, ptr %slot.a, align 8
  %b = load ptr, ptr %slot.b, align 8
  %c = load ptr, ptr %slot.c, align 8
  %k1 = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %a, ptr %x, i64 %bytes, i32 1)
  %k3 = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %b, ptr %a, i64 %bytes, i32 3)
  %k4a = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %c, ptr %x, i64 %bytes, i32 4)
  %both = shl i64 %n, 4
  %y = call ptr @malloc(i64 %both)
  %k2 = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %y, ptr %b, i64 %bytes, i32 2)
  %z = getelementptr inbounds i8, ptr %y, i64 %bytes
  %k4b = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %z, ptr %c, i64 %bytes, i32 4)
  %h = call ptr @malloc(i64 %bytes)
  %k4c = call i32 @"ejlstr$cudaMemcpy$libcudart.so.12"(ptr %h, ptr %x, i64 %bytes, i32 4)
  %f0 = call i32 @"ejlstr$cudaFree$libcudart.so.12"(ptr %a)
  %f1 = call i32 @"ejlstr$cudaFree$libcudart.so.12"(ptr %b)
  %f2 = call i32 @"ejlstr$cudaFree$libcudart.so.12"(ptr %c)
  %s0 = or i32 %m0, %m1
  %s1 = or i32 %s0, %m2
  %s2 = or i32 %s1, %k1
  %s3 = or i32 %s2, %k3
  %s4 = or i32 %s3, %k4a
  %s5 = or i32 %s4, %k2
  %s6 = or i32 %s5, %k4b
  %s7 = or i32 %s6, %k4c
  %s8 = or i32 %s7, %f0
  %s9 = or i32 %s8, %f1
  %s10 = or i32 %s9, %f2
  store i32 %s10, ptr %status, align 4
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %pz = getelementptr inbounds double, ptr %z, i64 %i
  %ph = getelementptr inbounds double, ptr %h, i64 %i
  %vy = load double, ptr %py, align 8
  %vz = load double, ptr %pz, align 8
  %vh = load double, ptr %ph, align 8
  %sh = call double @llvm.sin.f64(double %vh)
  %yz = fmul double %vy, %vz
  %t = fmul double %yz, %sh
  %s.next = fadd double %s, %t
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @free(ptr %y)
  call void @free(ptr %h)
  ret double %s.next
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
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %xp = alloca [3 x double], align 8
  %status = alloca i32, align 4
  %dstatus = alloca i32, align 4
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  br label %direction

direction:
  %j = phi i32 [ 0, %entry ], [ %j.next, %direction ]
  %fails = phi i32 [ 0, %entry ], [ %fails.3, %direction ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  store i32 -1, ptr %status, align 4
  %tangent = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 3, metadata !"enzyme_dup", ptr %status, ptr %dstatus)
  %st = load i32, ptr %status, align 4
  %stf = sitofp i32 %st to double
  %cs = call i32 @check(ptr @.what_st, i32 %j, double %stf, double 0.0, double 0.0)
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  %sx = call double @llvm.sin.f64(double %xj)
  %cx = call double @llvm.cos.f64(double %xj)
  %t1 = fmul double %xj, 2.0
  %t2 = fmul double %t1, %sx
  %x2 = fmul double %xj, %xj
  %t3 = fmul double %x2, %cx
  %expected = fadd double %t2, %t3
  %ca = call i32 @check(ptr @.what_an, i32 %j, double %tangent, double %expected, double 1.0e-13)
  %xv = load [3 x double], ptr %x, align 8
  store [3 x double] %xv, ptr %xp, align 8
  %xpj = getelementptr inbounds [3 x double], ptr %xp, i32 0, i32 %j
  %xhi = fadd double %xj, 1.0e-6
  store double %xhi, ptr %xpj, align 8
  %fhi = call double @f(ptr %xp, i64 3, ptr %status)
  %xlo = fsub double %xj, 1.0e-6
  store double %xlo, ptr %xpj, align 8
  %flo = call double @f(ptr %xp, i64 3, ptr %status)
  %df = fsub double %fhi, %flo
  %fd = fdiv double %df, 2.0e-6
  %cf = call i32 @check(ptr @.what_fd, i32 %j, double %tangent, double %fd, double 1.0e-6)
  %fails.1 = add i32 %fails, %cs
  %fails.2 = add i32 %fails.1, %ca
  %fails.3 = add i32 %fails.2, %cf
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done

done:
  ret i32 %fails.3
}

attributes #0 = { "enzyme_math"="cudaMalloc" }
attributes #1 = { "enzyme_math"="cudaMemcpy" }
attributes #2 = { "enzyme_math"="cudaFree" }
