; Julia's runtime entry points after GC lowering or in libjulia, in both
; modes (each function below is differentiated by __enzyme_fwddiff and by
; __enzyme_autodiff, and main checks both against the analytic value):
;   julia.write_barrier          repeated on the shadow parent (the stub
;                                counts its calls: 1 primal + 1 mirrored
;                                per mode, 4 in all)
;   julia.pointer_from_objref    the shadow object's address: a store
;                                through it, a load through it
;   ijl_gc_alloc_typed, ijl_gc_big_alloc, ijl_gc_pool_alloc
;                                a zeroed shadow object of the size
;   ijl_alloc_array_1d           a shadow array, its data zeroed (the stub
;                                leaves data holding garbage, so a reverse
;                                pass accumulating into an unzeroed shadow
;                                would be wrong); one filled by memcpy
;   ijl_box_float64              the shadow box holds the tangent
; Entry points resolve from the stub standing in for libjulia (meson.build:
; --lib).  At x = 0.75: d(x^2 * x)/dx = 3x^2 = 1.6875, d(3x^2)/dx = 6x =
; 4.5; the memcpy'd array: d(x0^2 + x1^2) = (2x0, 2x1) = (3, 4) at (1.5, 2).
; main returns the number of mismatches.

@.fmt = private unnamed_addr constant [35 x i8] c"MISMATCH %d: got %.17g want %.17g\0A\00"
@jl_write_barriers = external global i64
declare i32 @printf(ptr, ...)
declare double @llvm.fabs.f64(double)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare ptr @julia.get_pgcstack()
declare noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr, i64, ptr addrspace(10))
declare void @julia.write_barrier(ptr addrspace(10), ...)
declare ptr @julia.pointer_from_objref(ptr addrspace(11))
declare noalias nonnull ptr addrspace(10) @ijl_gc_pool_alloc(ptr, i32, i32)
declare noalias nonnull ptr addrspace(10) @ijl_gc_big_alloc(ptr, i64)
declare noalias nonnull ptr addrspace(10) @ijl_gc_alloc_typed(ptr, i64, ptr)
declare noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr addrspace(10), i64)
declare noalias nonnull ptr addrspace(10) @ijl_box_float64(double)
declare double @__enzyme_fwddiff(...)
declare double @__enzyme_autodiff(...)

define internal i32 @check(i32 %j, double %got, double %want) {
  %d = fsub double %got, %want
  %ad = call double @llvm.fabs.f64(double %d)
  %ok = fcmp ole double %ad, 1.0e-12
  br i1 %ok, label %good, label %bad
good:
  ret i32 0
bad:
  %p = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %j, double %got, double %want)
  ret i32 1
}

; an object holding x^2 stored in another, with the barrier: 3 x^2
define double @f_barrier(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %outer = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 8, ptr addrspace(10) null)
  %inner = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 8, ptr addrspace(10) null)
  %i11 = addrspacecast ptr addrspace(10) %inner to ptr addrspace(11)
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %i11, align 8
  %o11 = addrspacecast ptr addrspace(10) %outer to ptr addrspace(11)
  store ptr addrspace(10) %inner, ptr addrspace(11) %o11, align 8
  call void (ptr addrspace(10), ...) @julia.write_barrier(ptr addrspace(10) %outer, ptr addrspace(10) %inner)
  %ld = load ptr addrspace(10), ptr addrspace(11) %o11, align 8
  %l11 = addrspacecast ptr addrspace(10) %ld to ptr addrspace(11)
  %v = load double, ptr addrspace(11) %l11, align 8
  %r = fmul double %v, 3.0
  ret double %r
}

; x^2 stored through pointer_from_objref, read through the object: x^3
define double @f_objref_store(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %b = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 8, ptr addrspace(10) null)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %p = call ptr @julia.pointer_from_objref(ptr addrspace(11) %b11)
  %x2 = fmul double %x, %x
  store double %x2, ptr %p, align 8
  %v = load double, ptr addrspace(11) %b11, align 8
  %r = fmul double %v, %x
  ret double %r
}

; stored through the object, read through pointer_from_objref: x^3
define double @f_objref_load(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %b = call noalias nonnull ptr addrspace(10) @julia.gc_alloc_obj(ptr %pgc, i64 8, ptr addrspace(10) null)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %p = call ptr @julia.pointer_from_objref(ptr addrspace(11) %b11)
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %b11, align 8
  %v = load double, ptr %p, align 8
  %r = fmul double %v, %x
  ret double %r
}

; x^2 in a field (element 0) of the object, read back: x^3
define double @f_typed(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %b = call noalias nonnull ptr addrspace(10) @ijl_gc_alloc_typed(ptr %pgc, i64 16, ptr null)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %e = getelementptr inbounds double, ptr addrspace(11) %b11, i64 0
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %e, align 8
  %v = load double, ptr addrspace(11) %e, align 8
  %r = fmul double %v, %x
  ret double %r
}

; x^2 in a field (element 500) of the object, read back: x^3
define double @f_big(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %b = call noalias nonnull ptr addrspace(10) @ijl_gc_big_alloc(ptr %pgc, i64 4096)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %e = getelementptr inbounds double, ptr addrspace(11) %b11, i64 500
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %e, align 8
  %v = load double, ptr addrspace(11) %e, align 8
  %r = fmul double %v, %x
  ret double %r
}

; x^2 in a field (element 1) of the object, read back: x^3
define double @f_pool(double %x) {
top:
  %pgc = call ptr @julia.get_pgcstack()
  %b = call noalias nonnull ptr addrspace(10) @ijl_gc_pool_alloc(ptr %pgc, i32 1424, i32 16)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %e = getelementptr inbounds double, ptr addrspace(11) %b11, i64 1
  %x2 = fmul double %x, %x
  store double %x2, ptr addrspace(11) %e, align 8
  %v = load double, ptr addrspace(11) %e, align 8
  %r = fmul double %v, %x
  ret double %r
}

; a[2] = x^2, read back (a's data pointer is its first field): x^3
define double @f_array(double %x) {
top:
  %a = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr addrspace(10) null, i64 4)
  %a11 = addrspacecast ptr addrspace(10) %a to ptr addrspace(11)
  %data = load ptr, ptr addrspace(11) %a11, align 8
  %x2 = fmul double %x, %x
  %e = getelementptr double, ptr %data, i64 2
  store double %x2, ptr %e, align 8
  %v = load double, ptr %e, align 8
  %r = fmul double %v, %x
  ret double %r
}

; x copied into a new array: x0^2 + x1^2
define double @f_array_copy(ptr %x) {
  %a = call noalias nonnull ptr addrspace(10) @ijl_alloc_array_1d(ptr addrspace(10) null, i64 2)
  %a11 = addrspacecast ptr addrspace(10) %a to ptr addrspace(11)
  %data = load ptr, ptr addrspace(11) %a11, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %data, ptr %x, i64 16, i1 false)
  %v0 = load double, ptr %data, align 8
  %p1 = getelementptr double, ptr %data, i64 1
  %v1 = load double, ptr %p1, align 8
  %s0 = fmul double %v0, %v0
  %s1 = fmul double %v1, %v1
  %r = fadd double %s0, %s1
  ret double %r
}

; a box of x^2, unboxed: x^3
define double @f_box(double %x) {
top:
  %x2 = fmul double %x, %x
  %b = call noalias nonnull ptr addrspace(10) @ijl_box_float64(double %x2)
  %b11 = addrspacecast ptr addrspace(10) %b to ptr addrspace(11)
  %v = load double, ptr addrspace(11) %b11, align 8
  %r = fmul double %v, %x
  ret double %r
}


; both modes of f_barrier at 0.75: checks 0 and 1
define internal i32 @both_f_barrier() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_barrier, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 0, double %t, double 4.5)
  %g = call double (...) @__enzyme_autodiff(ptr @f_barrier, double 0.75)
  %c1 = call i32 @check(i32 1, double %g, double 4.5)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_objref_store at 0.75: checks 2 and 3
define internal i32 @both_f_objref_store() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_objref_store, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 2, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_objref_store, double 0.75)
  %c1 = call i32 @check(i32 3, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_objref_load at 0.75: checks 4 and 5
define internal i32 @both_f_objref_load() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_objref_load, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 4, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_objref_load, double 0.75)
  %c1 = call i32 @check(i32 5, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_typed at 0.75: checks 6 and 7
define internal i32 @both_f_typed() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_typed, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 6, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_typed, double 0.75)
  %c1 = call i32 @check(i32 7, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_big at 0.75: checks 8 and 9
define internal i32 @both_f_big() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_big, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 8, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_big, double 0.75)
  %c1 = call i32 @check(i32 9, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_pool at 0.75: checks 10 and 11
define internal i32 @both_f_pool() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_pool, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 10, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_pool, double 0.75)
  %c1 = call i32 @check(i32 11, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_array at 0.75: checks 12 and 13
define internal i32 @both_f_array() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_array, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 12, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_array, double 0.75)
  %c1 = call i32 @check(i32 13, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

; both modes of f_box at 0.75: checks 14 and 15
define internal i32 @both_f_box() {
  %t = call double (...) @__enzyme_fwddiff(ptr @f_box, double 0.75, double 1.0)
  %c0 = call i32 @check(i32 14, double %t, double 1.6875)
  %g = call double (...) @__enzyme_autodiff(ptr @f_box, double 0.75)
  %c1 = call i32 @check(i32 15, double %g, double 1.6875)
  %c = add i32 %c0, %c1
  ret i32 %c
}

define i32 @main() {
  %r0 = call i32 @both_f_barrier()
  %r1 = call i32 @both_f_objref_store()
  %r2 = call i32 @both_f_objref_load()
  %r3 = call i32 @both_f_typed()
  %r4 = call i32 @both_f_big()
  %r5 = call i32 @both_f_pool()
  %r6 = call i32 @both_f_array()
  %r7 = call i32 @both_f_box()
  %x = alloca [2 x double]
  %dx = alloca [2 x double]
  store [2 x double] [double 1.5, double 2.0], ptr %x
  store [2 x double] [double 1.0, double 0.0], ptr %dx
  %t = call double (...) @__enzyme_fwddiff(ptr @f_array_copy, ptr %x, ptr %dx)
  %c16 = call i32 @check(i32 16, double %t, double 3.0)
  store [2 x double] [double 0.0, double 0.0], ptr %dx
  %unused = call double (...) @__enzyme_autodiff(ptr @f_array_copy, ptr %x, ptr %dx)
  %g0 = load double, ptr %dx
  %c17 = call i32 @check(i32 17, double %g0, double 3.0)
  %dx1 = getelementptr double, ptr %dx, i64 1
  %g1 = load double, ptr %dx1
  %c18 = call i32 @check(i32 18, double %g1, double 4.0)
  ; the barrier ran twice per mode: once as the primal, once mirrored
  %nwb = load i64, ptr @jl_write_barriers
  %nwbf = sitofp i64 %nwb to double
  %c19 = call i32 @check(i32 19, double %nwbf, double 4.0)
  %s0 = add i32 %r0, %r1
  %s1 = add i32 %s0, %r2
  %s2 = add i32 %s1, %r3
  %s3 = add i32 %s2, %r4
  %s4 = add i32 %s3, %r5
  %s5 = add i32 %s4, %r6
  %s6 = add i32 %s5, %r7
  %s7 = add i32 %s6, %c16
  %s8 = add i32 %s7, %c17
  %s9 = add i32 %s8, %c18
  %s = add i32 %s9, %c19
  ret i32 %s
}
