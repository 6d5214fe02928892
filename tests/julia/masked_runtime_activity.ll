; Vectorized code (llvm.masked.load/store, llvm.masked.gather/scatter) on a
; pointer read from a tuple that holds a Const and a Duplicated array, picked
; by an index at run time: through the Const one, the masked loads must give
; zero tangents and the masked stores must leave the Const data with the
; primal's values.
;
;   f(x, c, buf, k) = (p = (c, buf)[k]; v = p[0:3] (lane 3 masked off);
;                      p[0:3] = v * x; sum(v * x))
;   with p = buf (k = 1): df/dx = sum(buf[0:3]) + x sum(dbuf[0:3])
;   with p = c   (k = 0): df/dx = sum(c[0:3]), c scaled by x, dc untouched
; g is the same through a gather and a scatter of p[2i] (i = 0..3).
; main returns the number of mismatches.

@.fmt = private unnamed_addr constant [35 x i8] c"MISMATCH %d: got %.17g want %.17g\0A\00"

declare double @__enzyme_fwddiff(...)
declare <4 x double> @llvm.masked.load.v4f64.p0(ptr, i32, <4 x i1>, <4 x double>)
declare void @llvm.masked.store.v4f64.p0(<4 x double>, ptr, i32, <4 x i1>)
declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x double>)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, i32, <4 x i1>)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare double @llvm.fabs.f64(double)
declare i32 @printf(ptr, ...)

define internal ptr @pick(ptr %c, ptr %buf, i64 %k) {
  %tup = alloca [2 x ptr], align 8
  store ptr %c, ptr %tup, align 8
  %t1 = getelementptr inbounds ptr, ptr %tup, i64 1
  store ptr %buf, ptr %t1, align 8
  %pk = getelementptr inbounds ptr, ptr %tup, i64 %k
  %p = load ptr, ptr %pk, align 8
  ret ptr %p
}

define double @f(double %x, ptr %c, ptr %buf, i64 %k) {
  %p = call ptr @pick(ptr %c, ptr %buf, i64 %k)
  %v = call <4 x double> @llvm.masked.load.v4f64.p0(ptr %p, i32 8, <4 x i1> <i1 1, i1 1, i1 1, i1 0>, <4 x double> zeroinitializer)
  %xi = insertelement <4 x double> poison, double %x, i64 0
  %xs = shufflevector <4 x double> %xi, <4 x double> poison, <4 x i32> zeroinitializer
  %vx = fmul <4 x double> %v, %xs
  call void @llvm.masked.store.v4f64.p0(<4 x double> %vx, ptr %p, i32 8, <4 x i1> <i1 1, i1 1, i1 1, i1 0>)
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %vx)
  ret double %r
}

define double @g(double %x, ptr %c, ptr %buf, i64 %k) {
  %p = call ptr @pick(ptr %c, ptr %buf, i64 %k)
  %ps = getelementptr inbounds double, ptr %p, <4 x i64> <i64 0, i64 2, i64 4, i64 6>
  %v = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %ps, i32 8, <4 x i1> <i1 1, i1 1, i1 1, i1 1>, <4 x double> zeroinitializer)
  %xi = insertelement <4 x double> poison, double %x, i64 0
  %xs = shufflevector <4 x double> %xi, <4 x double> poison, <4 x i32> zeroinitializer
  %vx = fmul <4 x double> %v, %xs
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %vx, <4 x ptr> %ps, i32 8, <4 x i1> <i1 1, i1 1, i1 1, i1 1>)
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %vx)
  ret double %r
}

; masked.load with lanes 1 and 3 masked off: they take the pass-through,
; an active splat of x, whose tangent must survive where the pointer is the
; Const array (lanes 0 and 2 read inactive memory: no tangent)
define double @h(double %x, ptr %c, ptr %buf, i64 %k) {
  %p = call ptr @pick(ptr %c, ptr %buf, i64 %k)
  %xi = insertelement <4 x double> poison, double %x, i64 0
  %xs = shufflevector <4 x double> %xi, <4 x double> poison, <4 x i32> zeroinitializer
  %v = call <4 x double> @llvm.masked.load.v4f64.p0(ptr %p, i32 8, <4 x i1> <i1 1, i1 0, i1 1, i1 0>, <4 x double> %xs)
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %v)
  ret double %r
}

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

; buffers of 8 doubles: c = 1..8, buf = 1..8, dbuf = 0.5 everywhere
define internal void @fill(ptr %c, ptr %buf, ptr %dbuf) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %i1 = add i64 %i, 1
  %v = uitofp i64 %i1 to double
  %pc = getelementptr inbounds double, ptr %c, i64 %i
  store double %v, ptr %pc
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %v, ptr %pb
  %pd = getelementptr inbounds double, ptr %dbuf, i64 %i
  store double 0.5, ptr %pd
  %done = icmp eq i64 %i1, 8
  br i1 %done, label %out, label %loop
out:
  ret void
}

define internal double @at(ptr %a, i64 %i) {
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %v = load double, ptr %p
  ret double %v
}

define i32 @main() {
  %c = alloca [8 x double], align 32
  %buf = alloca [8 x double], align 32
  %dbuf = alloca [8 x double], align 32
  ; masked load/store through the Const array: tangent 1+2+3, c scaled
  call void @fill(ptr %c, ptr %buf, ptr %dbuf)
  %t0 = call double (...) @__enzyme_fwddiff(ptr @f, double 2.0, double 1.0, metadata !"enzyme_const", ptr %c, metadata !"enzyme_dup", ptr %buf, ptr %dbuf, metadata !"enzyme_const", i64 0)
  %m0 = call i32 @check(i32 0, double %t0, double 6.0)
  %c2 = call double @at(ptr %c, i64 2)
  %m1 = call i32 @check(i32 1, double %c2, double 6.0)   ; 3 * x, not a tangent
  %c3 = call double @at(ptr %c, i64 3)
  %m2 = call i32 @check(i32 2, double %c3, double 4.0)   ; masked off
  %d0 = call double @at(ptr %dbuf, i64 0)
  %m3 = call i32 @check(i32 3, double %d0, double 0.5)   ; untouched
  ; through the Duplicated one: tangent 6 + 2 * 1.5, dbuf updated
  call void @fill(ptr %c, ptr %buf, ptr %dbuf)
  %t1 = call double (...) @__enzyme_fwddiff(ptr @f, double 2.0, double 1.0, metadata !"enzyme_const", ptr %c, metadata !"enzyme_dup", ptr %buf, ptr %dbuf, metadata !"enzyme_const", i64 1)
  %m4 = call i32 @check(i32 4, double %t1, double 9.0)
  %db1 = call double @at(ptr %dbuf, i64 1)
  %m5 = call i32 @check(i32 5, double %db1, double 3.0)  ; 2*1 + 0.5*2
  ; gather/scatter through the Const array: tangent 1+3+5+7
  call void @fill(ptr %c, ptr %buf, ptr %dbuf)
  %t2 = call double (...) @__enzyme_fwddiff(ptr @g, double 2.0, double 1.0, metadata !"enzyme_const", ptr %c, metadata !"enzyme_dup", ptr %buf, ptr %dbuf, metadata !"enzyme_const", i64 0)
  %m6 = call i32 @check(i32 6, double %t2, double 16.0)
  %c6 = call double @at(ptr %c, i64 6)
  %m7 = call i32 @check(i32 7, double %c6, double 14.0)  ; 7 * x
  %d6 = call double @at(ptr %dbuf, i64 6)
  %m8 = call i32 @check(i32 8, double %d6, double 0.5)
  %s1 = add i32 %m0, %m1
  %s2 = add i32 %s1, %m2
  %s3 = add i32 %s2, %m3
  %s4 = add i32 %s3, %m4
  %s5 = add i32 %s4, %m5
  %s6 = add i32 %s5, %m6
  %s7 = add i32 %s6, %m7
  %s8 = add i32 %s7, %m8
  call void @fill(ptr %c, ptr %buf, ptr %dbuf)
  %t3 = call double (...) @__enzyme_fwddiff(ptr @h, double 2.0, double 1.0, metadata !"enzyme_const", ptr %c, metadata !"enzyme_dup", ptr %buf, ptr %dbuf, metadata !"enzyme_const", i64 0)
  %m9 = call i32 @check(i32 9, double %t3, double 2.0)
  %s9 = add i32 %s8, %m9
  ret i32 %s9
}
