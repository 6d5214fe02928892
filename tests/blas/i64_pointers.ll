; Julia-style BLAS ccalls with pointers as i64 (Ptr{Float64} before opaque
; pointers), renamed into tests/blas's fake (`ejlstr$dgemv_64_$...`): the
; rules take an array whose address an integer holds, and its shadow is
; an integer too.
;
;   y := A x + 0.5 y (A = [1 3; 2 4], column major), f = y . y
;   with x = (1, -1), y = (1, 1), dA = [0 0; 1 0], dx = (0.5, 0), dy = (0, 1):
;   y = (-1.5, -1.5), dy = dA x + A dx + 0.5 dy = (0.5, 2.5),
;   df = 2 y . dy = -9.
; main returns the number of mismatches.
@enzyme_dup = external global i32
@enzyme_const = external global i32
@.fmt = private constant [33 x i8] c"df %.17g, dy %.17g %.17g: wrong\0A\00"
declare double @__enzyme_fwddiff(ptr, ...)
declare i32 @printf(ptr, ...)
declare double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr, i64, ptr, i64, ptr)
declare void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr, ptr, ptr, ptr, i64, ptr, i64, ptr, ptr, i64, ptr, i64)
@N = private constant [1 x i8] c"N"

; f(A, x, y) = y.y, y := A x + 0.5 y, A 2x2; pointers as i64
define double @f(i64 %a, i64 %x, i64 %y) {
  %n = alloca i64
  %one = alloca i64
  %alpha = alloca double
  %beta = alloca double
  store i64 2, ptr %n
  store i64 1, ptr %one
  store double 1.0, ptr %alpha
  store double 0.5, ptr %beta
  call void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr @N, ptr %n, ptr %n, ptr %alpha, i64 %a, ptr %n, i64 %x, ptr %one, ptr %beta, i64 %y, ptr %one, i64 1)
  %r = call double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr %n, i64 %y, ptr %one, i64 %y, ptr %one)
  ret double %r
}

define i32 @main() {
  %A = alloca [4 x double]
  %dA = alloca [4 x double]
  %x = alloca [2 x double]
  %dx = alloca [2 x double]
  %y = alloca [2 x double]
  %dy = alloca [2 x double]
  store [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0], ptr %A
  store [4 x double] [double 0.0, double 1.0, double 0.0, double 0.0], ptr %dA
  store [2 x double] [double 1.0, double -1.0], ptr %x
  store [2 x double] [double 0.5, double 0.0], ptr %dx
  store [2 x double] [double 1.0, double 1.0], ptr %y
  store [2 x double] [double 0.0, double 1.0], ptr %dy
  %ai = ptrtoint ptr %A to i64
  %dai = ptrtoint ptr %dA to i64
  %xi = ptrtoint ptr %x to i64
  %dxi = ptrtoint ptr %dx to i64
  %yi = ptrtoint ptr %y to i64
  %dyi = ptrtoint ptr %dy to i64
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", i64 %ai, i64 %dai, metadata !"enzyme_dup", i64 %xi, i64 %dxi, metadata !"enzyme_dup", i64 %yi, i64 %dyi)
  %dy0 = load double, ptr %dy
  %dy1p = getelementptr double, ptr %dy, i64 1
  %dy1 = load double, ptr %dy1p
  %ok0 = fcmp oeq double %d, -9.0
  %ok1 = fcmp oeq double %dy0, 0.5
  %ok2 = fcmp oeq double %dy1, 2.5
  %ok01 = and i1 %ok0, %ok1
  %ok = and i1 %ok01, %ok2
  br i1 %ok, label %pass, label %fail
pass:
  ret i32 0
fail:
  call i32 (ptr, ...) @printf(ptr @.fmt, double %d, double %dy0, double %dy1)
  ret i32 1
}
