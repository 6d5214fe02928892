; Julia-style renamed ccalls into an ILP64 BLAS (`ejlstr$<fn>_64_$<lib>`,
; as LinearAlgebra reaches libblastrampoline), here into tests/blas's
; tracking fake, libtanjit_fakeblas.so, found through -L and opened
; RTLD_LOCAL: nothing else exports its `_64_` routines.  (clang -O1 output
; of the C below, the BLAS names renamed, attributes and metadata dropped.)
;
;   f(A, x, y) = y . y where y := A x  (dgemv_64_ with a hidden length, ddot_64_)
;
; main differentiates f along (dA, dx), checks the result and the tangent
; of y against central finite differences, and counts the calls the fake
; received: the derivative's tangent calls are renamed like the primal's,
; so they reach the same library (dgemv_64_: the primal, the dA, dx and
; dalpha terms; daxpy_64_: the dbeta term; ddot_64_: the primal and two
; tangents).  Returns the number of mismatches.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [2 x i8] c"N\00", align 1
@enzyme_dup = external global i32, align 4
@.str.1 = private unnamed_addr constant [10 x i8] c"dgemv_64_\00", align 1
@.str.2 = private unnamed_addr constant [33 x i8] c"dgemv_64_ calls: %d, expected 4\0A\00", align 1
@.str.3 = private unnamed_addr constant [10 x i8] c"daxpy_64_\00", align 1
@.str.4 = private unnamed_addr constant [33 x i8] c"daxpy_64_ calls: %d, expected 1\0A\00", align 1
@.str.5 = private unnamed_addr constant [9 x i8] c"ddot_64_\00", align 1
@.str.6 = private unnamed_addr constant [32 x i8] c"ddot_64_ calls: %d, expected 3\0A\00", align 1
@.str.7 = private unnamed_addr constant [44 x i8] c"derivative %.12g, central difference %.12g\0A\00", align 1
@.str.8 = private unnamed_addr constant [40 x i8] c"dy[%d] %.12g, central difference %.12g\0A\00", align 1
@.str.9 = private unnamed_addr constant [22 x i8] c"renamed: %d failures\0A\00", align 1

; Function Attrs: nounwind uwtable
define double @f(ptr %0, ptr %1, ptr %2)  {
  %4 = alloca i64, align 8
  %5 = alloca i64, align 8
  %6 = alloca double, align 8
  %7 = alloca double, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %4)
  store i64 3, ptr %4, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %5)
  store i64 1, ptr %5, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %6)
  store double 1.000000e+00, ptr %6, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %7)
  store double 0.000000e+00, ptr %7, align 8
  call void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr nonnull @.str, ptr nonnull %4, ptr nonnull %4, ptr nonnull %6, ptr %0, ptr nonnull %4, ptr %1, ptr nonnull %5, ptr nonnull %7, ptr %2, ptr nonnull %5, i64 1)
  %8 = call double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr nonnull %4, ptr %2, ptr nonnull %5, ptr %2, ptr nonnull %5)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %7)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %6)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %5)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %4)
  ret double %8
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture)

declare void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64)

declare double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr, ptr, ptr, ptr, ptr)

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture)

; Function Attrs: nounwind uwtable
define i32 @main()  {
  %1 = alloca i64, align 8
  %2 = alloca i64, align 8
  %3 = alloca double, align 8
  %4 = alloca double, align 8
  %5 = alloca i64, align 8
  %6 = alloca i64, align 8
  %7 = alloca double, align 8
  %8 = alloca double, align 8
  %9 = alloca [9 x double], align 16
  %10 = alloca [9 x double], align 16
  %11 = alloca [3 x double], align 16
  %12 = alloca [3 x double], align 16
  %13 = alloca [3 x double], align 16
  %14 = alloca [3 x double], align 16
  %15 = alloca [9 x double], align 16
  %16 = alloca [9 x double], align 16
  %17 = alloca [3 x double], align 16
  %18 = alloca [3 x double], align 16
  %19 = alloca [3 x double], align 16
  %20 = alloca [3 x double], align 16
  call void @llvm.lifetime.start.p0(i64 72, ptr nonnull %9)
  call void @llvm.lifetime.start.p0(i64 72, ptr nonnull %10)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %11)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %12)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %13)
  call void @llvm.memset.p0.i64(ptr nonnull align 16 dereferenceable(24) %13, i8 0, i64 24, i1 false)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %14)
  call void @llvm.memset.p0.i64(ptr nonnull align 16 dereferenceable(24) %14, i8 0, i64 24, i1 false)
  br label %21

21:                                               ; preds = %0, %21
  %22 = phi i64 [ 0, %0 ], [ %32, %21 ]
  %23 = trunc nuw nsw i64 %22 to i32
  %24 = uitofp nneg i32 %23 to double
  %25 = tail call double @llvm.fmuladd.f64(double %24, double 1.000000e-01, double -3.000000e-01)
  %26 = getelementptr inbounds [9 x double], ptr %9, i64 0, i64 %22
  store double %25, ptr %26, align 8
  %27 = trunc nuw nsw i64 %22 to i32
  %28 = and i32 %27, 3
  %29 = uitofp nneg i32 %28 to double
  %30 = tail call double @llvm.fmuladd.f64(double %29, double 5.000000e-02, double -7.000000e-02)
  %31 = getelementptr inbounds [9 x double], ptr %10, i64 0, i64 %22
  store double %30, ptr %31, align 8
  %32 = add nuw nsw i64 %22, 1
  %33 = icmp eq i64 %32, 9
  br i1 %33, label %39, label %21

34:                                               ; preds = %39
  tail call void @"ejlstr$fake_blas_reset$libtanjit_fakeblas.so"()
  %35 = load i32, ptr @enzyme_dup, align 4
  %36 = call double (ptr, ...) @__enzyme_fwddiff(ptr nonnull @f, i32 %35, ptr nonnull %9, ptr nonnull %10, i32 %35, ptr nonnull %11, ptr nonnull %12, i32 %35, ptr nonnull %13, ptr nonnull %14)
  %37 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.1)
  %38 = icmp eq i32 %37, 4
  br i1 %38, label %52, label %49

39:                                               ; preds = %21, %39
  %40 = phi i64 [ %47, %39 ], [ 0, %21 ]
  %41 = trunc nuw nsw i64 %40 to i32
  %42 = uitofp nneg i32 %41 to double
  %43 = tail call double @llvm.fmuladd.f64(double %42, double -4.000000e-01, double 1.000000e+00)
  %44 = getelementptr inbounds [3 x double], ptr %11, i64 0, i64 %40
  store double %43, ptr %44, align 8
  %45 = tail call double @llvm.fmuladd.f64(double %42, double 2.000000e-01, double 3.000000e-01)
  %46 = getelementptr inbounds [3 x double], ptr %12, i64 0, i64 %40
  store double %45, ptr %46, align 8
  %47 = add nuw nsw i64 %40, 1
  %48 = icmp eq i64 %47, 3
  br i1 %48, label %34, label %39

49:                                               ; preds = %34
  %50 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.1)
  %51 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.2, i32 %50)
  br label %52

52:                                               ; preds = %49, %34
  %53 = phi i32 [ 1, %49 ], [ 0, %34 ]
  %54 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.3)
  %55 = icmp eq i32 %54, 1
  br i1 %55, label %60, label %56

56:                                               ; preds = %52
  %57 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.3)
  %58 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.4, i32 %57)
  %59 = add nuw nsw i32 %53, 1
  br label %60

60:                                               ; preds = %56, %52
  %61 = phi i32 [ %59, %56 ], [ %53, %52 ]
  %62 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.5)
  %63 = icmp eq i32 %62, 3
  br i1 %63, label %68, label %64

64:                                               ; preds = %60
  %65 = call i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr nonnull @.str.5)
  %66 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.6, i32 %65)
  %67 = add nuw nsw i32 %61, 1
  br label %68

68:                                               ; preds = %64, %60
  %69 = phi i32 [ %67, %64 ], [ %61, %60 ]
  call void @llvm.lifetime.start.p0(i64 72, ptr nonnull %15)
  call void @llvm.lifetime.start.p0(i64 72, ptr nonnull %16)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %17)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %18)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %19)
  call void @llvm.lifetime.start.p0(i64 24, ptr nonnull %20)
  br label %70

70:                                               ; preds = %68, %70
  %71 = phi i64 [ 0, %68 ], [ %80, %70 ]
  %72 = getelementptr inbounds [9 x double], ptr %9, i64 0, i64 %71
  %73 = load double, ptr %72, align 8
  %74 = getelementptr inbounds [9 x double], ptr %10, i64 0, i64 %71
  %75 = load double, ptr %74, align 8
  %76 = call double @llvm.fmuladd.f64(double %75, double 0x3EB0C6F7A0B5ED8D, double %73)
  %77 = getelementptr inbounds [9 x double], ptr %15, i64 0, i64 %71
  store double %76, ptr %77, align 8
  %78 = call double @llvm.fmuladd.f64(double %75, double 0xBEB0C6F7A0B5ED8D, double %73)
  %79 = getelementptr inbounds [9 x double], ptr %16, i64 0, i64 %71
  store double %78, ptr %79, align 8
  %80 = add nuw nsw i64 %71, 1
  %81 = icmp eq i64 %80, 9
  br i1 %81, label %92, label %70

82:                                               ; preds = %92
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %5)
  store i64 3, ptr %5, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %6)
  store i64 1, ptr %6, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %7)
  store double 1.000000e+00, ptr %7, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %8)
  store double 0.000000e+00, ptr %8, align 8
  call void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr nonnull @.str, ptr nonnull %5, ptr nonnull %5, ptr nonnull %7, ptr nonnull %15, ptr nonnull %5, ptr nonnull %17, ptr nonnull %6, ptr nonnull %8, ptr nonnull %19, ptr nonnull %6, i64 1)
  %83 = call double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr nonnull %5, ptr nonnull %19, ptr nonnull %6, ptr nonnull %19, ptr nonnull %6)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %8)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %7)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %6)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %5)
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %1)
  store i64 3, ptr %1, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %2)
  store i64 1, ptr %2, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %3)
  store double 1.000000e+00, ptr %3, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %4)
  store double 0.000000e+00, ptr %4, align 8
  call void @"ejlstr$dgemv_64_$libtanjit_fakeblas.so"(ptr nonnull @.str, ptr nonnull %1, ptr nonnull %1, ptr nonnull %3, ptr nonnull %16, ptr nonnull %1, ptr nonnull %18, ptr nonnull %2, ptr nonnull %4, ptr nonnull %20, ptr nonnull %2, i64 1)
  %84 = call double @"ejlstr$ddot_64_$libtanjit_fakeblas.so"(ptr nonnull %1, ptr nonnull %20, ptr nonnull %2, ptr nonnull %20, ptr nonnull %2)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %4)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %3)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %2)
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %1)
  %85 = fsub double %83, %84
  %86 = fdiv double %85, 2.000000e-06
  %87 = fsub double %36, %86
  %88 = fcmp olt double %87, 0x3EB0C6F7A0B5ED8D
  %89 = fsub double %86, %36
  %90 = fcmp olt double %89, 0x3EB0C6F7A0B5ED8D
  %91 = and i1 %88, %90
  br i1 %91, label %107, label %104

92:                                               ; preds = %70, %92
  %93 = phi i64 [ %102, %92 ], [ 0, %70 ]
  %94 = getelementptr inbounds [3 x double], ptr %11, i64 0, i64 %93
  %95 = load double, ptr %94, align 8
  %96 = getelementptr inbounds [3 x double], ptr %12, i64 0, i64 %93
  %97 = load double, ptr %96, align 8
  %98 = call double @llvm.fmuladd.f64(double %97, double 0x3EB0C6F7A0B5ED8D, double %95)
  %99 = getelementptr inbounds [3 x double], ptr %17, i64 0, i64 %93
  store double %98, ptr %99, align 8
  %100 = call double @llvm.fmuladd.f64(double %97, double 0xBEB0C6F7A0B5ED8D, double %95)
  %101 = getelementptr inbounds [3 x double], ptr %18, i64 0, i64 %93
  store double %100, ptr %101, align 8
  %102 = add nuw nsw i64 %93, 1
  %103 = icmp eq i64 %102, 3
  br i1 %103, label %82, label %92

104:                                              ; preds = %82
  %105 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.7, double %36, double %86)
  %106 = add nuw nsw i32 %69, 1
  br label %107

107:                                              ; preds = %82, %104
  %108 = phi i32 [ %106, %104 ], [ %69, %82 ]
  br label %111

109:                                              ; preds = %131
  %110 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.9, i32 %132)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %20)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %19)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %18)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %17)
  call void @llvm.lifetime.end.p0(i64 72, ptr nonnull %16)
  call void @llvm.lifetime.end.p0(i64 72, ptr nonnull %15)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %14)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %13)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %12)
  call void @llvm.lifetime.end.p0(i64 24, ptr nonnull %11)
  call void @llvm.lifetime.end.p0(i64 72, ptr nonnull %10)
  call void @llvm.lifetime.end.p0(i64 72, ptr nonnull %9)
  ret i32 %132

111:                                              ; preds = %107, %131
  %112 = phi i64 [ %133, %131 ], [ 0, %107 ]
  %113 = phi i32 [ %132, %131 ], [ %108, %107 ]
  %114 = getelementptr inbounds [3 x double], ptr %19, i64 0, i64 %112
  %115 = load double, ptr %114, align 8
  %116 = getelementptr inbounds [3 x double], ptr %20, i64 0, i64 %112
  %117 = load double, ptr %116, align 8
  %118 = fsub double %115, %117
  %119 = fdiv double %118, 2.000000e-06
  %120 = getelementptr inbounds [3 x double], ptr %14, i64 0, i64 %112
  %121 = load double, ptr %120, align 8
  %122 = fsub double %121, %119
  %123 = fcmp olt double %122, 0x3EB0C6F7A0B5ED8D
  %124 = fsub double %119, %121
  %125 = fcmp olt double %124, 0x3EB0C6F7A0B5ED8D
  %126 = and i1 %123, %125
  br i1 %126, label %131, label %127

127:                                              ; preds = %111
  %128 = trunc nuw nsw i64 %112 to i32
  %129 = call i32 (ptr, ...) @printf(ptr nonnull dereferenceable(1) @.str.8, i32 %128, double %121, double %119)
  %130 = add nsw i32 %113, 1
  br label %131

131:                                              ; preds = %111, %127
  %132 = phi i32 [ %130, %127 ], [ %113, %111 ]
  %133 = add nuw nsw i64 %112, 1
  %134 = icmp eq i64 %133, 3
  br i1 %134, label %109, label %111
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg)

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double)

declare void @"ejlstr$fake_blas_reset$libtanjit_fakeblas.so"()

declare double @__enzyme_fwddiff(ptr, ...)

declare i32 @"ejlstr$fake_blas_count$libtanjit_fakeblas.so"(ptr)

; Function Attrs: nofree nounwind
declare i32 @printf(ptr nocapture readonly, ...)

