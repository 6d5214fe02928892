; Reverse mode over gc_objects.ll's Julia objects (julia.gc_alloc_obj,
; addrspace(10)/(11) pointers): the allocation's shadow is a zeroed GC
; object of its own; the gradient is checked as that file checks the
; tangent.
; Julia objects before GC lowering: a mutable struct Box{Float64, Int64}
; allocated with julia.gc_alloc_obj (ptls from julia.get_pgcstack), written
; and read through Julia's tracked (addrspace 10) and derived (addrspace 11)
; pointers.  The shadow of an allocation is another one, zeroed; the Int64
; field carries no tangent; a GC.@preserve around a read (its markers only
; mean something to Julia's GC lowering, and are dropped at load).  The GC
; entry points resolve (meson.build: --lib)
; from the library standing in for Julia's runtime.
;
;   f(x) = (b = Box(x^2, 3); b.v = sin(b.v) * b.n; b.v + x)
;   df/dx = 3 cos(x^2) 2x + 1
; main checks three points against the analytic value; returns the number
; of mismatches.

@.fmt_fail = private unnamed_addr constant [37 x i8] c"MISMATCH at %d: %.17g vs %.17g (%s)\0A\00"
@.what = private unnamed_addr constant [9 x i8] c"analytic\00"

declare ptr @julia.get_pgcstack()
declare token @llvm.julia.gc_preserve_begin(...)
declare void @llvm.julia.gc_preserve_end(token)
declare noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr, i64, ptr addrspace(10))
declare double @__enzyme_autodiff(...)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
declare double @llvm.fabs.f64(double)
declare i32 @printf(ptr, ...)

define double @f(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %box = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 16, ptr addrspace(10) null)
  %d = addrspacecast ptr addrspace(10) %box to ptr addrspace(11)
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %d, align 8
  %np = getelementptr inbounds i8, ptr addrspace(11) %d, i64 8
  store i64 3, ptr addrspace(11) %np, align 8
  %tok = call token (...) @llvm.julia.gc_preserve_begin(ptr addrspace(10) %box)
  %v = load double, ptr addrspace(11) %d, align 8
  call void @llvm.julia.gc_preserve_end(token %tok)
  %s = call double @llvm.sin.f64(double %v)
  %n = load i64, ptr addrspace(11) %np, align 8
  %nf = sitofp i64 %n to double
  %sv = fmul double %s, %nf
  store double %sv, ptr addrspace(11) %d, align 8
  %v2 = load double, ptr addrspace(11) %d, align 8
  %r = fadd double %v2, %x
  ret double %r
}

define internal i32 @at(i32 %j, double %x) {
  %t = call double (...) @__enzyme_autodiff(ptr @f, double %x)
  %x2 = fmul double %x, %x
  %c = call double @llvm.cos.f64(double %x2)
  %c3 = fmul double %c, 3.0
  %tx = fmul double %x, 2.0
  %p = fmul double %c3, %tx
  %want = fadd double %p, 1.0
  %diff = fsub double %t, %want
  %ad = call double @llvm.fabs.f64(double %diff)
  %ok = fcmp ole double %ad, 1.0e-12
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %pr = call i32 (ptr, ...) @printf(ptr @.fmt_fail, i32 %j, double %t, double %want, ptr @.what)
  ret i32 1
}

define i32 @main() {
  %a = call i32 @at(i32 0, double 0.4)
  %b = call i32 @at(i32 1, double -1.1)
  %c = call i32 @at(i32 2, double 2.3)
  %ab = add i32 %a, %b
  %abc = add i32 %ab, %c
  ret i32 %abc
}
