; Julia's own lazy ccall into a user library (a GOT, its thunk calling
; ijl_load_and_lookup, the library in julia.libname), the call site
; tagged "enzyme_math"="cos" by the frontend: the call site's tag names
; the rule, over the function's own name that binding the GOT gives its
; declaration (src/jit/julia_plt.c, src/ad/registry/registry.c).  Forward
; and reverse of f(x) = x cos x at 0.8; main returns the mismatches.

@lib = private unnamed_addr constant [26 x i8] c"libjulia_sysimage_stub.so\00"
@fn = private unnamed_addr constant [11 x i8] c"tjstub_cos\00"
@handle = internal global ptr null
@jlplt_tjstub_cos_9_got = internal global ptr @jlplt_tjstub_cos_9 #0

declare ptr @ijl_load_and_lookup(ptr, ptr, ptr)
declare double @__enzyme_fwddiff(...)
declare double @__enzyme_autodiff(...)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
declare double @llvm.fabs.f64(double)

define internal double @jlplt_tjstub_cos_9(double %x) {
  %f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)
  store ptr %f, ptr @jlplt_tjstub_cos_9_got
  %r = musttail call double %f(double %x)
  ret double %r
}

define double @f(double %x) {
  %p = load ptr, ptr @jlplt_tjstub_cos_9_got, align 8
  %c = call double %p(double %x) #1
  %r = fmul double %c, %x
  ret double %r
}

define internal i32 @differs(double %got, double %want) {
  %d = fsub double %got, %want
  %a = call double @llvm.fabs.f64(double %d)
  %bad = fcmp ugt double %a, 1.0e-12
  %r = zext i1 %bad to i32
  ret i32 %r
}

define i32 @main() {
  %x = fadd double 0.0, 0.8
  %c = call double @llvm.cos.f64(double %x)
  %s = call double @llvm.sin.f64(double %x)
  %xs = fmul double %x, %s
  %want = fsub double %c, %xs
  %t = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  %m1 = call i32 @differs(double %t, double %want)
  %g = call double (...) @__enzyme_autodiff(ptr @f, double %x)
  %m2 = call i32 @differs(double %g, double %want)
  %m = add i32 %m1, %m2
  ret i32 %m
}

attributes #0 = { "julia.fname"="tjstub_cos" "julia.libname"="libjulia_sysimage_stub.so" }
attributes #1 = { "enzyme_math"="cos" }
