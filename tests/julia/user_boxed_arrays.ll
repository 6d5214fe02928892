; A Julia function of two arrays as Enzyme.jl sees it after lowering: boxed
; arrays (%jl_array: an addrspace(13) data pointer and a length) passed as
; tracked addrspace(10) pointers, read through addrspace(11), libm through
; renamed ccalls tagged "enzyme_math" (one with @fastmath's flags); both
; modes of the same function, shadows that start nonzero in reverse:
;   loss(A, B) = sum_i exp(-A_i^2) sin(B_i)   over min(len A, len B)
;   dA_i += -2 A_i exp(-A_i^2) sin(B_i),   dB_i += exp(-A_i^2) cos(B_i)
; and the forward tangent along (u, w) equals <gradient, (u, w)>.
; main returns the number of mismatches.

%jl_array = type { ptr addrspace(13), i64 }

@.fmt_fail = private unnamed_addr constant [35 x i8] c"MISMATCH %s %d: %.17g vs %.17g\0A\00\00\00\00"
@.what_a = private unnamed_addr constant [4 x i8] c"dA \00"
@.what_b = private unnamed_addr constant [4 x i8] c"dB \00"
@.what_t = private unnamed_addr constant [8 x i8] c"forward\00"

declare i32 @printf(ptr, ...)
declare void @__enzyme_autodiff(...)
declare double @__enzyme_fwddiff(...)
declare double @exp(double)
declare double @sin(double)
declare double @cos(double)
declare double @llvm.fabs.f64(double)
declare double @"ejlstr$exp$libm.so.6"(double) #0
declare double @"ejlstr$sin$libm.so.6"(double) #1

define double @julia_loss_1234(ptr addrspace(10) noundef nonnull align 8 dereferenceable(16) %A, ptr addrspace(10) noundef nonnull align 8 dereferenceable(16) %B) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %b11 = addrspacecast ptr addrspace(10) %B to ptr addrspace(11)
  %alenp = getelementptr inbounds %jl_array, ptr addrspace(11) %a11, i64 0, i32 1
  %blenp = getelementptr inbounds %jl_array, ptr addrspace(11) %b11, i64 0, i32 1
  %alen = load i64, ptr addrspace(11) %alenp, align 8
  %blen = load i64, ptr addrspace(11) %blenp, align 8
  %shorter = icmp slt i64 %alen, %blen
  %len = select i1 %shorter, i64 %alen, i64 %blen
  %adata = load ptr addrspace(13), ptr addrspace(11) %a11, align 8
  %bdata = load ptr addrspace(13), ptr addrspace(11) %b11, align 8
  %empty = icmp slt i64 %len, 1
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %top ], [ %s.next, %loop ]
  %pa = getelementptr inbounds double, ptr addrspace(13) %adata, i64 %i
  %pb = getelementptr inbounds double, ptr addrspace(13) %bdata, i64 %i
  %a = load double, ptr addrspace(13) %pa, align 8
  %b = load double, ptr addrspace(13) %pb, align 8
  %a2 = fmul double %a, %a
  %na2 = fneg double %a2
  %e = call afn nnan double @"ejlstr$exp$libm.so.6"(double %na2) #0
  %sb = call double @"ejlstr$sin$libm.so.6"(double %b) #1
  %t = fmul double %e, %sb
  %s.next = fadd double %s, %t
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %len
  br i1 %done, label %exit, label %loop
exit:
  %r = phi double [ 0.0, %top ], [ %s.next, %loop ]
  ret double %r
}

define internal i32 @check(ptr %what, i32 %j, double %got, double %want) {
top:
  %d = fsub double %got, %want
  %ad = call double @llvm.fabs.f64(double %d)
  %aw = call double @llvm.fabs.f64(double %want)
  %scale = fadd double %aw, 1.0
  %tol = fmul double %scale, 1.0e-12
  %ok = fcmp ole double %ad, %tol
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %p = call i32 (ptr, ...) @printf(ptr @.fmt_fail, ptr %what, i32 %j, double %got, double %want)
  ret i32 1
}

; a boxed array over %data, as a tracked pointer
define internal ptr addrspace(10) @box(ptr %hdr, ptr %data) {
top:
  %d13 = addrspacecast ptr %data to ptr addrspace(13)
  %h1 = insertvalue %jl_array undef, i64 3, 1
  %h = insertvalue %jl_array %h1, ptr addrspace(13) %d13, 0
  store %jl_array %h, ptr %hdr, align 8
  %t = addrspacecast ptr %hdr to ptr addrspace(10)
  ret ptr addrspace(10) %t
}

define i32 @main() {
top:
  %a = alloca [3 x double], align 8
  %b = alloca [3 x double], align 8
  %da = alloca [3 x double], align 8
  %db = alloca [3 x double], align 8
  %ta = alloca [3 x double], align 8
  %tb = alloca [3 x double], align 8
  %ha = alloca %jl_array, align 8
  %hb = alloca %jl_array, align 8
  %hda = alloca %jl_array, align 8
  %hdb = alloca %jl_array, align 8
  %hta = alloca %jl_array, align 8
  %htb = alloca %jl_array, align 8
  store [3 x double] [double 0.5, double -1.0, double 1.5], ptr %a, align 8
  store [3 x double] [double 0.3, double 2.0, double -0.7], ptr %b, align 8
  store [3 x double] [double 0.5, double 0.5, double 0.5], ptr %da, align 8
  store [3 x double] [double 0.25, double 0.25, double 0.25], ptr %db, align 8
  store [3 x double] [double 1.0, double 1.0, double 1.0], ptr %ta, align 8
  store [3 x double] [double -0.5, double -0.5, double -0.5], ptr %tb, align 8
  %A = call ptr addrspace(10) @box(ptr %ha, ptr %a)
  %B = call ptr addrspace(10) @box(ptr %hb, ptr %b)
  %dA = call ptr addrspace(10) @box(ptr %hda, ptr %da)
  %dB = call ptr addrspace(10) @box(ptr %hdb, ptr %db)
  %tA = call ptr addrspace(10) @box(ptr %hta, ptr %ta)
  %tB = call ptr addrspace(10) @box(ptr %htb, ptr %tb)
  call void (...) @__enzyme_autodiff(ptr @julia_loss_1234, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA, metadata !"enzyme_dup", ptr addrspace(10) %B, ptr addrspace(10) %dB)
  %tan = call double (...) @__enzyme_fwddiff(ptr @julia_loss_1234, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %tA, metadata !"enzyme_dup", ptr addrspace(10) %B, ptr addrspace(10) %tB)
  br label %entry
entry:
  %j = phi i32 [ 0, %top ], [ %j.next, %entry ]
  %fails = phi i32 [ 0, %top ], [ %fails.2, %entry ]
  %dot = phi double [ 0.0, %top ], [ %dot.2, %entry ]
  %paj = getelementptr inbounds [3 x double], ptr %a, i32 0, i32 %j
  %pbj = getelementptr inbounds [3 x double], ptr %b, i32 0, i32 %j
  %pdaj = getelementptr inbounds [3 x double], ptr %da, i32 0, i32 %j
  %pdbj = getelementptr inbounds [3 x double], ptr %db, i32 0, i32 %j
  %aj = load double, ptr %paj, align 8
  %bj = load double, ptr %pbj, align 8
  %daj = load double, ptr %pdaj, align 8
  %dbj = load double, ptr %pdbj, align 8
  %a2 = fmul double %aj, %aj
  %na2 = fneg double %a2
  %e = call double @exp(double %na2)
  %sb = call double @sin(double %bj)
  %cb = call double @cos(double %bj)
  %m2a = fmul double %aj, -2.0
  %m2ae = fmul double %m2a, %e
  %ga = fmul double %m2ae, %sb
  %gb = fmul double %e, %cb
  %wa = fadd double %ga, 0.5
  %wb = fadd double %gb, 0.25
  %c1 = call i32 @check(ptr @.what_a, i32 %j, double %daj, double %wa)
  %c2 = call i32 @check(ptr @.what_b, i32 %j, double %dbj, double %wb)
  %fails.1 = add i32 %fails, %c1
  %fails.2 = add i32 %fails.1, %c2
  %gbw = fmul double %gb, -0.5
  %dot.1 = fadd double %dot, %ga
  %dot.2 = fadd double %dot.1, %gbw
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %entry, label %done
done:
  %c3 = call i32 @check(ptr @.what_t, i32 0, double %tan, double %dot.2)
  %total = add i32 %fails.2, %c3
  ret i32 %total
}

attributes #0 = { "enzyme_math"="exp" }
attributes #1 = { "enzyme_math"="sin" }
