; Pointers the way Julia lowers them:
;   - arrays as `ptr addrspace(10)` (tracked) objects, cast to addrspace(11)
;     (derived) for field access, whose data pointer is a `ptr
;     addrspace(13)` (loaded) indexed by GEP, and an addrspacecast to
;     addrspace(0) for a plain pointer;
;   - pointers passed as i64 (Ptr{Float64} in a ccall signature) with
;     enzyme_dup and an i64 shadow, turned into pointers by inttoptr and
;     offset by ptrtoint / add / inttoptr round trips.
; No GC intrinsics: the "array" is a {data, length} header that main
; builds on the stack.
;
;   norm2(A) = sum_i A_i^2 * w_i  (w = 1, 2, 3, ...)      d = 2 A_j w_j
;   scale_into(out, A, k): out_i = A_i^3 * k, returns out_0 + out_last
; main returns the number of mismatches.

%jl_array = type { ptr addrspace(13), i64 }

@.fmt_fail = private unnamed_addr constant [41 x i8] c"MISMATCH %s %d: %.17g vs expected %.17g\0A\00"
@.what_as = private unnamed_addr constant [8 x i8] c"addrsp \00"
@.what_i64 = private unnamed_addr constant [9 x i8] c"i64 out \00"
@.what_ret = private unnamed_addr constant [9 x i8] c"i64 ret \00"

declare i32 @printf(ptr, ...)
declare double @__enzyme_fwddiff(...)
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
  %x13 = addrspacecast ptr %x to ptr addrspace(13)
  %dx13 = addrspacecast ptr %dx to ptr addrspace(13)
  %h1 = insertvalue %jl_array undef, i64 3, 1
  %hx = insertvalue %jl_array %h1, ptr addrspace(13) %x13, 0
  store %jl_array %hx, ptr %arr, align 8
  %hd = insertvalue %jl_array %h1, ptr addrspace(13) %dx13, 0
  store %jl_array %hd, ptr %darr, align 8
  %A = addrspacecast ptr %arr to ptr addrspace(10)
  %dA = addrspacecast ptr %darr to ptr addrspace(10)
  %outi = ptrtoint ptr %out to i64
  %douti = ptrtoint ptr %dout to i64
  br label %direction

direction:
  %j = phi i32 [ 0, %top ], [ %j.next, %direction ]
  %fails = phi i32 [ 0, %top ], [ %fails.3, %direction ]
  store [3 x double] zeroinitializer, ptr %dx, align 8
  store [3 x double] zeroinitializer, ptr %dout, align 8
  %dxj = getelementptr inbounds [3 x double], ptr %dx, i32 0, i32 %j
  store double 1.0, ptr %dxj, align 8
  %xj.p = getelementptr inbounds [3 x double], ptr %x, i32 0, i32 %j
  %xj = load double, ptr %xj.p, align 8
  ; addrspace(10) array, duplicated
  %t = call double (...) @__enzyme_fwddiff(ptr @norm2, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA)
  %j1 = add i32 %j, 1
  %w = sitofp i32 %j1 to double
  %tx = fmul double %xj, 2.0
  %want = fmul double %tx, %w
  %c1 = call i32 @check(ptr @.what_as, i32 %j, double %t, double %want, double 1.0e-13)
  ; i64 output pointer with an i64 shadow: dout_j = 3 x_j^2 k, k = 1.5
  %r = call double (...) @__enzyme_fwddiff(ptr @scale_into, metadata !"enzyme_dup", i64 %outi, i64 %douti, metadata !"enzyme_dup", ptr addrspace(10) %A, ptr addrspace(10) %dA, metadata !"enzyme_const", double 1.5)
  %doj.p = getelementptr inbounds [3 x double], ptr %dout, i32 0, i32 %j
  %doj = load double, ptr %doj.p, align 8
  %x2 = fmul double %xj, %xj
  %x23 = fmul double %x2, 3.0
  %wout = fmul double %x23, 1.5
  %c2 = call i32 @check(ptr @.what_i64, i32 %j, double %doj, double %wout, double 1.0e-13)
  ; the returned out_0 + out_2 moves only in directions 0 and 2
  %mid = icmp eq i32 %j, 1
  %wret = select i1 %mid, double 0.0, double %wout
  %c3 = call i32 @check(ptr @.what_ret, i32 %j, double %r, double %wret, double 1.0e-13)
  %fails.1 = add i32 %fails, %c1
  %fails.2 = add i32 %fails.1, %c2
  %fails.3 = add i32 %fails.2, %c3
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, 3
  br i1 %more, label %direction, label %done

done:
  ret i32 %fails.3
}
