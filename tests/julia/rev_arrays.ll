; Julia-style arrays in reverse mode (__enzyme_autodiff): the functions of
; pointers.ll (tracked addrspace(10) arrays whose data is an addrspace(13)
; pointer; a Ptr{Float64} passed as i64 with an i64 shadow), gradients
; accumulated into shadows that start nonzero.
;
;   norm2(A) = sum_i A_i^2 w_i (w = 1, 2, 3)       dA_i += 2 A_i w_i
;   scale_into(out, A, k): out_i = A_i^3 k, returns out_0 + out_2; with
;   dout_i as the adjoints of out_i on entry (zeroed by the reverse):
;     dk  = A_0^3 + A_2^3 + sum_i dout_i A_i^3  (returned)
;     dA_i += 3 A_i^2 k ([i = 0] + [i = 2] + dout_i)
; main returns the number of mismatches.

%jl_array = type { ptr addrspace(13), i64 }

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_n = private unnamed_addr constant [7 x i8] c"norm2 \00"
@.what_s = private unnamed_addr constant [7 x i8] c"scale \00"
@.what_k = private unnamed_addr constant [4 x i8] c"dk \00"
@.what_o = private unnamed_addr constant [6 x i8] c"dout \00"

declare i32 @printf(ptr, ...)
declare void @__enzyme_autodiff(...)
declare double @__enzyme_autodiff.k(...) "enzyme_autodiff"
declare double @llvm.fabs.f64(double)

define double @norm2(ptr addrspace(10) %A) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %lenp = getelementptr inbounds %jl_array, ptr addrspace(11) %a11, i64 0, i32 1
  %len = load i64, ptr addrspace(11) %lenp, align 8
  %data = load ptr addrspace(13), ptr addrspace(11) %a11, align 8
  %empty = icmp eq i64 %len, 0
  br i1 %empty, label %zero, label %loop
zero:
  ret double 0.0
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %top ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr addrspace(13) %data, i64 %i
  %v = load double, ptr addrspace(13) %p, align 8
  %i.next = add nuw i64 %i, 1
  %w = uitofp i64 %i.next to double
  %v2 = fmul double %v, %v
  %t = fmul double %v2, %w
  %s.next = fadd double %s, %t
  %done = icmp eq i64 %i.next, %len
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

; out and the data of A as integers; the last element reached by
; ptrtoint + byte offset + inttoptr
define double @scale_into(i64 %out, ptr addrspace(10) %A, double %k) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %lenp = getelementptr inbounds %jl_array, ptr addrspace(11) %a11, i64 0, i32 1
  %len = load i64, ptr addrspace(11) %lenp, align 8
  %data13 = load ptr addrspace(13), ptr addrspace(11) %a11, align 8
  %data = addrspacecast ptr addrspace(13) %data13 to ptr
  %dint = ptrtoint ptr %data to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %off = shl i64 %i, 3
  %srci = add i64 %dint, %off
  %src = inttoptr i64 %srci to ptr
  %dsti = add i64 %out, %off
  %dst = inttoptr i64 %dsti to ptr
  %v = load double, ptr %src, align 8
  %v2 = fmul double %v, %v
  %v3 = fmul double %v2, %v
  %r = fmul double %v3, %k
  store double %r, ptr %dst, align 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %len
  br i1 %done, label %exit, label %loop
exit:
  %first = inttoptr i64 %out to ptr
  %lastb = shl i64 %len, 3
  %lastb8 = sub i64 %lastb, 8
  %lasti = add i64 %out, %lastb8
  %last = inttoptr i64 %lasti to ptr
  %f = load double, ptr %first, align 8
  %l = load double, ptr %last, align 8
  %sum = fadd double %f, %l
  ret double %sum
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
top:
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %out = alloca [3 x double], align 8
  %dout = alloca [3 x double], align 8
  %arr = alloca %jl_array, align 8
  %darr = alloca %jl_array, align 8
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  store [3 x double] [double 0.25, double 0.25, double 0.25], ptr %dx, align 8
  %x13 = addrspacecast ptr %x to ptr addrspace(13)
  %dx13 = addrspacecast ptr %dx to ptr addrspace(13)
  %h1 = insertvalue %jl_array undef, i64 3, 1
  %hx = insertvalue %jl_array %h1, ptr addrspace(13) %x13, 0
  store %jl_array %hx, ptr %arr, align 8
  %hd = insertvalue %jl_array %h1, ptr addrspace(13) %dx13, 0
  store %jl_array %hd, ptr %darr, align 8
  %A = addrspacecast ptr %arr to ptr addrspace(10)
  %dA = addrspacecast ptr %darr to ptr addrspace(10)
  call void (...) @__enzyme_autodiff(ptr @norm2, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA)
  br label %n.loop
n.loop:
  %i = phi i32 [ 0, %top ], [ %i.next, %n.loop ]
  %f = phi i32 [ 0, %top ], [ %f.next, %n.loop ]
  %xp = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %i
  %xi = load double, ptr %xp, align 8
  %dp = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %i
  %di = load double, ptr %dp, align 8
  %i.next = add i32 %i, 1
  %w = sitofp i32 %i.next to double
  %x2 = fmul double %xi, 2.0
  %g = fmul double %x2, %w
  %want = fadd double %g, 0.25
  %bad = call i32 @check(ptr @.what_n, i32 %i, double %di, double %want, double 1.0e-12)
  %f.next = add i32 %f, %bad
  %n.done = icmp eq i32 %i.next, 3
  br i1 %n.done, label %scale, label %n.loop
scale:
  store [3 x double] [double 0.25, double 0.25, double 0.25], ptr %dx, align 8
  store [3 x double] [double 0.5, double -1.0, double 2.0], ptr %dout, align 8
  %outi = ptrtoint ptr %out to i64
  %douti = ptrtoint ptr %dout to i64
  %dk = call double (...) @__enzyme_autodiff.k(ptr @scale_into, metadata !"enzyme_dup", i64 %outi, i64 %douti, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA, double 1.5)
  br label %s.loop
s.loop:
  %j = phi i32 [ 0, %scale ], [ %j.next, %s.loop ]
  %fs = phi i32 [ %f.next, %scale ], [ %fs.next, %s.loop ]
  %kw = phi double [ 0.0, %scale ], [ %kw.next, %s.loop ]
  %sxp = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %sx = load double, ptr %sxp, align 8
  %sdp = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  %sd = load double, ptr %sdp, align 8
  %odp = getelementptr inbounds [3 x double], ptr %dout, i32 0, i32 %j
  %od = load double, ptr %odp, align 8
  %is0 = icmp eq i32 %j, 0
  %is2 = icmp eq i32 %j, 2
  %e0 = select i1 %is0, double 1.0, double 0.0
  %e2 = select i1 %is2, double 1.0, double 0.0
  %seed0 = call double @seed(i32 %j)
  %e02 = fadd double %e0, %e2
  %wsum = fadd double %e02, %seed0
  %sx2 = fmul double %sx, %sx
  %sx3 = fmul double %sx2, %sx
  %t3 = fmul double %sx2, 4.5
  %gA = fmul double %t3, %wsum
  %wantA = fadd double %gA, 0.25
  %badA = call i32 @check(ptr @.what_s, i32 %j, double %sd, double %wantA, double 1.0e-12)
  %badO = call i32 @check(ptr @.what_o, i32 %j, double %od, double 0.0, double 1.0e-12)
  %kterm = fmul double %sx3, %wsum
  %kw.next = fadd double %kw, %kterm
  %fs1 = add i32 %fs, %badA
  %fs.next = add i32 %fs1, %badO
  %j.next = add i32 %j, 1
  %s.done = icmp eq i32 %j.next, 3
  br i1 %s.done, label %exit, label %s.loop
exit:
  %badK = call i32 @check(ptr @.what_k, i32 0, double %dk, double %kw.next, double 1.0e-12)
  %total = add i32 %fs.next, %badK
  ret i32 %total
}

; the adjoints of out on entry
define internal double @seed(i32 %j) {
  %is0 = icmp eq i32 %j, 0
  %is1 = icmp eq i32 %j, 1
  %a = select i1 %is1, double -1.0, double 2.0
  %b = select i1 %is0, double 0.5, double %a
  ret double %b
}
