; Julia 1.11+ arrays: an Array is {ptr data, ptr addrspace(10) mem, i64
; length} (a MemoryRef into a GenericMemory, then the size), and every
; element access goes through julia.gc_loaded(mem, data), the address
; rooted at its memory object.  Both modes, shadows starting nonzero:
;
;   norm2w(A) = sum_i (i+1) A_i^2
;     forward: d = sum_i 2 (i+1) A_i dA_i;  reverse: dA_i += 2 (i+1) A_i
;   scale_into(out, A, k): out_i = k A_i^3, returns out_0 + out_2; with
;   dout_i the adjoints of out_i on entry (zeroed by the reverse):
;     dk  = A_0^3 + A_2^3 + sum_i dout_i A_i^3  (returned)
;     dA_i += 3 A_i^2 k ([i = 0] + [i = 2] + dout_i)
; main returns the number of mismatches.

%jl_array = type { ptr, ptr addrspace(10), i64 }

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_f = private unnamed_addr constant [9 x i8] c"forward \00"
@.what_n = private unnamed_addr constant [7 x i8] c"norm2 \00"
@.what_s = private unnamed_addr constant [7 x i8] c"scale \00"
@.what_k = private unnamed_addr constant [4 x i8] c"dk \00"
@.what_o = private unnamed_addr constant [6 x i8] c"dout \00"

declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
declare void @__enzyme_autodiff(...)
declare double @__enzyme_autodiff.k(...) "enzyme_autodiff"
declare double @llvm.fabs.f64(double)
declare noundef nonnull ptr addrspace(13) @julia.gc_loaded(ptr addrspace(10) nocapture noundef nonnull readnone, ptr noundef nonnull readnone) #0

attributes #0 = { mustprogress nofree norecurse nosync nounwind speculatable willreturn memory(none) }

; the i-th element's address, as Julia 1.11's codegen forms it
define internal ptr addrspace(13) @element(ptr addrspace(10) %A, i64 %i) {
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %data = load ptr, ptr addrspace(11) %a11, align 8
  %memp = getelementptr inbounds i8, ptr addrspace(11) %a11, i64 8
  %mem = load ptr addrspace(10), ptr addrspace(11) %memp, align 8
  %base = call ptr addrspace(13) @julia.gc_loaded(ptr addrspace(10) %mem, ptr %data)
  %p = getelementptr inbounds double, ptr addrspace(13) %base, i64 %i
  ret ptr addrspace(13) %p
}

define double @norm2w(ptr addrspace(10) %A) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %lenp = getelementptr inbounds i8, ptr addrspace(11) %a11, i64 16
  %len = load i64, ptr addrspace(11) %lenp, align 8
  %data = load ptr, ptr addrspace(11) %a11, align 8
  %memp = getelementptr inbounds i8, ptr addrspace(11) %a11, i64 8
  %mem = load ptr addrspace(10), ptr addrspace(11) %memp, align 8
  %base = call ptr addrspace(13) @julia.gc_loaded(ptr addrspace(10) %mem, ptr %data)
  %empty = icmp eq i64 %len, 0
  br i1 %empty, label %zero, label %loop
zero:
  ret double 0.0
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %top ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr addrspace(13) %base, i64 %i
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

define double @scale_into(ptr addrspace(10) %out, ptr addrspace(10) %A, double %k) {
top:
  %a11 = addrspacecast ptr addrspace(10) %A to ptr addrspace(11)
  %lenp = getelementptr inbounds i8, ptr addrspace(11) %a11, i64 16
  %len = load i64, ptr addrspace(11) %lenp, align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %top ], [ %i.next, %loop ]
  %src = call ptr addrspace(13) @element(ptr addrspace(10) %A, i64 %i)
  %dst = call ptr addrspace(13) @element(ptr addrspace(10) %out, i64 %i)
  %v = load double, ptr addrspace(13) %src, align 8
  %v2 = fmul double %v, %v
  %v3 = fmul double %v2, %v
  %r = fmul double %v3, %k
  store double %r, ptr addrspace(13) %dst, align 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %len
  br i1 %done, label %exit, label %loop
exit:
  %first = call ptr addrspace(13) @element(ptr addrspace(10) %out, i64 0)
  %lasti = sub i64 %len, 1
  %last = call ptr addrspace(13) @element(ptr addrspace(10) %out, i64 %lasti)
  %f = load double, ptr addrspace(13) %first, align 8
  %l = load double, ptr addrspace(13) %last, align 8
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

; an Array header over n doubles at data, its memory object at mem
define internal void @make_array(ptr %arr, ptr %data, ptr %mem) {
  store ptr %data, ptr %arr, align 8
  %m10 = addrspacecast ptr %mem to ptr addrspace(10)
  %mp = getelementptr inbounds i8, ptr %arr, i64 8
  store ptr addrspace(10) %m10, ptr %mp, align 8
  %lp = getelementptr inbounds i8, ptr %arr, i64 16
  store i64 3, ptr %lp, align 8
  ret void
}

define i32 @main() {
top:
  %x = alloca [3 x double], align 8
  %dx = alloca [3 x double], align 8
  %out = alloca [3 x double], align 8
  %dout = alloca [3 x double], align 8
  %mem = alloca [4 x i64], align 8
  %dmem = alloca [4 x i64], align 8
  %arr = alloca %jl_array, align 8
  %darr = alloca %jl_array, align 8
  %oarr = alloca %jl_array, align 8
  %doarr = alloca %jl_array, align 8
  store [3 x double] [double 1.5, double -0.5, double 2.0], ptr %x, align 8
  store [3 x double] [double 0.5, double -1.0, double 0.25], ptr %dx, align 8
  call void @make_array(ptr %arr, ptr %x, ptr %mem)
  call void @make_array(ptr %darr, ptr %dx, ptr %dmem)
  call void @make_array(ptr %oarr, ptr %out, ptr %mem)
  call void @make_array(ptr %doarr, ptr %dout, ptr %dmem)
  %A = addrspacecast ptr %arr to ptr addrspace(10)
  %dA = addrspacecast ptr %darr to ptr addrspace(10)
  %O = addrspacecast ptr %oarr to ptr addrspace(10)
  %dO = addrspacecast ptr %doarr to ptr addrspace(10)
  ; forward: 2 (1 1.5 0.5 + 2 (-0.5)(-1) + 3 2 0.25) = 2 (0.75 + 1 + 1.5)
  %t = call double (...) @__enzyme_fwddiff(ptr @norm2w, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA)
  %bad.f = call i32 @check(ptr @.what_f, i32 0, double %t, double 6.5, double 1.0e-12)
  store [3 x double] [double 0.25, double 0.25, double 0.25], ptr %dx, align 8
  call void (...) @__enzyme_autodiff(ptr @norm2w, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA)
  br label %n.loop
n.loop:
  %i = phi i32 [ 0, %top ], [ %i.next, %n.loop ]
  %f = phi i32 [ %bad.f, %top ], [ %f.next, %n.loop ]
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
  %dk = call double (...) @__enzyme_autodiff.k(ptr @scale_into, metadata !"enzyme_dup", ptr addrspace(10) %O, ptr addrspace(10) %dO, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA, double 1.5)
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
