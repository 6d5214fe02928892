/*
 * Type analysis and activity analysis, on hand-written IR: the kind the
 * analysis infers for chosen values and byte offsets (ad_types_query), the
 * copy layouts the copy rule will consume (ad_copy_layout_of's engine), the
 * documented outcome of a conflict (an error naming the value and the
 * function), and that integers known to be integers get no shadow code
 * while the derivative stays right (numbers checked through the JIT).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/ad.h"
#include "ad/analysis/types.h"
#include "tanjit/tanjit.h"

typedef struct parsed {
  LLVMContextRef ctx;
  LLVMModuleRef m;
  ad_types *t;
  LLVMValueRef fn;
} parsed;

static parsed analyze(const char *ir, const char *fname) {
  parsed p;
  p.ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "types.ll");
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(p.ctx, buf, &p.m, &msg) == 0,
                "parse: %s", msg ? msg : "?");
  p.fn = LLVMGetNamedFunction(p.m, fname);
  ck_assert_msg(p.fn != NULL, "no function %s", fname);
  p.t = ad_types_analyze(NULL, p.m, NULL, p.fn);
  ck_assert(p.t != NULL);
  return p;
}

static void release(parsed *p) {
  ad_types_free(p->t);
  LLVMDisposeModule(p->m);
  LLVMContextDispose(p->ctx);
}

/* A value of any analyzed function by name (instruction or argument). */
static LLVMValueRef named(parsed *p, const char *name) {
  for (LLVMValueRef f = LLVMGetFirstFunction(p->m); f;
       f = LLVMGetNextFunction(f)) {
    for (unsigned i = 0; i < LLVMCountParams(f); i++) {
      size_t n;
      const char *s = LLVMGetValueName2(LLVMGetParam(f, i), &n);
      if (strlen(name) == n && memcmp(s, name, n) == 0)
        return LLVMGetParam(f, i);
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        size_t n;
        const char *s = LLVMGetValueName2(i, &n);
        if (strlen(name) == n && memcmp(s, name, n) == 0)
          return i;
      }
  }
  ck_abort_msg("no value %%%s", name);
  return NULL;
}

#define ck_kind(p, name, off, want)                                            \
  ck_assert_msg(strcmp(ad_types_query((p)->t, named((p), name), (off)),        \
                       (want)) == 0,                                           \
                "%%%s at %lld: %s, expected %s", name, (long long)(off),       \
                ad_types_query((p)->t, named((p), name), (off)), want)

/* ---- device handles ---- */

static const char *cuda_ir =
    "declare i32 @cuMemAlloc_v2(ptr, i64)\n"
    "declare i32 @cuMemcpyHtoD_v2(i64, ptr, i64)\n"
    "declare i32 @cuMemcpyDtoH_v2(ptr, i64, i64)\n"
    "define void @f(ptr %host, ptr %back, i64 %n) {\n"
    "  %slot = alloca i64\n"
    "  %r = call i32 @cuMemAlloc_v2(ptr %slot, i64 64)\n"
    "  %h = load i64, ptr %slot\n"
    "  %r2 = call i32 @cuMemcpyHtoD_v2(i64 %h, ptr %host, i64 %n)\n"
    "  %x = load double, ptr %host\n"
    "  %r3 = call i32 @cuMemcpyDtoH_v2(ptr %back, i64 %h, i64 %n)\n"
    "  %idx = mul i64 %n, 2\n"
    "  ret void\n"
    "}\n";

START_TEST(device_handle_from_cumemalloc) {
  parsed p = analyze(cuda_ir, "f");
  ck_kind(&p, "slot", 0, "pointer");  /* cuMemAlloc_v2 wrote a pointer */
  ck_kind(&p, "h", -1, "pointer");    /* the i64 loaded back is one */
  ck_kind(&p, "h", 0, "float64");     /* device bytes: the host's layout */
  ck_kind(&p, "back", 0, "float64");  /* ... carried on to the copy back */
  ck_kind(&p, "n", -1, "integer");    /* a transfer's size */
  ck_kind(&p, "idx", -1, "integer");
  release(&p);
}
END_TEST

/* The same under a Julia-style rename: the name is found after ejlstr$. */
START_TEST(device_handle_renamed) {
  const char *ir =
      "declare i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr, i64)\n"
      "define i64 @f(ptr %unused) {\n"
      "  %slot = alloca i64\n"
      "  %r = call i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr %slot, i64 "
      "8)\n"
      "  %h = load i64, ptr %slot\n"
      "  ret i64 %h\n"
      "}\n";
  parsed p = analyze(ir, "f");
  ck_kind(&p, "h", -1, "pointer");
  release(&p);
}
END_TEST

/* The handle form of a renamed ccall, `ejlptr$<fn>$<handle>`, names fn as
 * `ejlstr$` does; a name the JIT cannot bind (no library after fn) is no
 * rename, so nothing is known about its call. */
START_TEST(device_handle_renamed_by_handle) {
  const char *ir =
      "declare i32 @\"ejlptr$cuMemAlloc_v2$0x1000\"(ptr, i64)\n"
      "declare i32 @\"ejlstr$cuMemAlloc_v2\"(ptr, i64)\n"
      "define i64 @f(ptr %unused) {\n"
      "  %slot = alloca i64\n"
      "  %r = call i32 @\"ejlptr$cuMemAlloc_v2$0x1000\"(ptr %slot, i64 8)\n"
      "  %h = load i64, ptr %slot\n"
      "  %slot2 = alloca i64\n"
      "  %r2 = call i32 @\"ejlstr$cuMemAlloc_v2\"(ptr %slot2, i64 8)\n"
      "  %h2 = load i64, ptr %slot2\n"
      "  %s = add i64 %h, %h2\n"
      "  ret i64 %s\n"
      "}\n";
  parsed p = analyze(ir, "f");
  ck_kind(&p, "h", -1, "pointer");
  ck_kind(&p, "slot2", 0, "unknown");
  release(&p);
}
END_TEST

/* Argument types come from the rule tables: calls the memory and CUDA
 * rules handle (memalign, aligned operator new, the 16- and 32-bit device
 * memsets) have integer sizes and pointer destinations, as malloc and
 * cuMemsetD8 do. */
START_TEST(rule_table_argument_types) {
  const char *ir =
      "declare ptr @memalign(i64, i64)\n"
      "declare ptr @_ZnwmSt11align_val_t(i64, i64)\n"
      "declare i32 @cuMemsetD16_v2(i64, i16, i64)\n"
      "declare i32 @cuMemsetD32Async(i64, i32, i64, ptr)\n"
      "define void @f(i64 %al, i64 %n, i64 %m, i64 %h, i64 %k, i64 %g, "
      "i64 %j, ptr %st) {\n"
      "  %p = call ptr @memalign(i64 %al, i64 %n)\n"
      "  store double 1.0, ptr %p\n"
      "  %q = call ptr @_ZnwmSt11align_val_t(i64 %m, i64 64)\n"
      "  %r1 = call i32 @cuMemsetD16_v2(i64 %h, i16 0, i64 %k)\n"
      "  %r2 = call i32 @cuMemsetD32Async(i64 %g, i32 0, i64 %j, ptr %st)\n"
      "  ret void\n"
      "}\n";
  parsed p = analyze(ir, "f");
  ck_kind(&p, "al", -1, "integer");
  ck_kind(&p, "n", -1, "integer");
  ck_kind(&p, "p", 0, "float64");
  ck_kind(&p, "m", -1, "integer");
  ck_kind(&p, "h", -1, "pointer");
  ck_kind(&p, "k", -1, "integer");
  ck_kind(&p, "g", -1, "pointer");
  ck_kind(&p, "j", -1, "integer");
  release(&p);
}
END_TEST

/* BLAS calls (rules/blas.c): their arrays hold floats of the routine's
 * precision from the pointer on (periodically), Fortran passes integers
 * and scalars by pointer (4-byte integers, 8 under ILP64 `_64_`, also
 * through a rename). */
START_TEST(blas_argument_types) {
  const char *ir =
      "declare double @cblas_ddot(i32, ptr, i32, ptr, i32)\n"
      "declare void @sscal_(ptr, ptr, ptr, ptr)\n"
      "declare double @\"ejlstr$ddot_64_$libblastrampoline\"(ptr, ptr, ptr, "
      "ptr, ptr)\n"
      "define void @f(ptr %x, ptr %y, ptr %n, ptr %alpha, ptr %v, ptr %inc, "
      "ptr %n64, ptr %z) {\n"
      "  %r = call double @cblas_ddot(i32 3, ptr %x, i32 1, ptr %y, i32 1)\n"
      "  call void @sscal_(ptr %n, ptr %alpha, ptr %v, ptr %inc)\n"
      "  %r2 = call double @\"ejlstr$ddot_64_$libblastrampoline\"(ptr %n64, "
      "ptr %z, ptr %n64, ptr %z, ptr %n64)\n"
      "  ret void\n"
      "}\n";
  parsed p = analyze(ir, "f");
  ck_kind(&p, "x", 0, "float64");
  ck_kind(&p, "x", 16, "float64");
  ck_kind(&p, "y", 8, "float64");
  ck_kind(&p, "v", 0, "float32");
  ck_kind(&p, "v", 12, "float32");
  ck_kind(&p, "alpha", 0, "float32");
  ck_kind(&p, "n", 0, "integer");
  ck_kind(&p, "inc", 0, "integer");
  ck_kind(&p, "n64", 4, "integer");
  ck_kind(&p, "z", 8, "float64");
  release(&p);
}
END_TEST

/* ---- a struct { double, ptr, i32 } copied with memcpy ---- */

static const char *struct_ir =
    "%S = type { double, ptr, i32 }\n"
    "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
    "define double @g(ptr %dst, ptr %src) {\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 24, i1 0)\n"
    "  %d = load double, ptr %dst\n"
    "  %pp = getelementptr inbounds %S, ptr %dst, i64 0, i32 1\n"
    "  %p = load ptr, ptr %pp\n"
    "  %ip = getelementptr inbounds %S, ptr %dst, i64 0, i32 2\n"
    "  %i = load i32, ptr %ip\n"
    "  %c = sitofp i32 %i to double\n"
    "  %v = load double, ptr %p\n"
    "  %s = fmul double %d, %c\n"
    "  %r = fadd double %s, %v\n"
    "  ret double %r\n"
    "}\n";

START_TEST(struct_copied_with_memcpy) {
  parsed p = analyze(struct_ir, "g");
  ck_kind(&p, "src", 0, "float64");
  ck_kind(&p, "src", 8, "pointer");
  ck_kind(&p, "src", 16, "integer");
  ck_kind(&p, "src", 20, "unknown"); /* padding */
  ck_kind(&p, "i", -1, "integer");
  ad_copy_layout l;
  LLVMValueRef call = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn));
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  ck_assert_uint_eq(l.period, 0);
  ck_assert_uint_eq(l.n, 4);
  static const struct {
    unsigned long long off, size;
    ad_byte_kind kind;
  } want[] = {{0, 8, AD_BYTES_FLOAT},
              {8, 8, AD_BYTES_POINTER},
              {16, 4, AD_BYTES_INTEGER},
              {20, 4, AD_BYTES_UNKNOWN}};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_uint_eq(l.segs[i].offset, want[i].off);
    ck_assert_uint_eq(l.segs[i].size, want[i].size);
    ck_assert_int_eq(l.segs[i].kind, want[i].kind);
  }
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* An array of such structs copied with a run-time length: the layout
 * repeats every 24 bytes. */
START_TEST(struct_array_runtime_length) {
  const char *ir =
      "%S = type { double, ptr, i32 }\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define double @g(ptr %dst, ptr %src, i64 %n, i64 %k) {\n"
      "  %bytes = mul i64 %n, 24\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %bytes, i1 "
      "0)\n"
      "  %dp = getelementptr inbounds %S, ptr %dst, i64 %k\n"
      "  %d = load double, ptr %dp\n"
      "  %pp = getelementptr inbounds %S, ptr %dst, i64 %k, i32 1\n"
      "  %p = load ptr, ptr %pp\n"
      "  %ip = getelementptr inbounds %S, ptr %dst, i64 %k, i32 2\n"
      "  %i = load i32, ptr %ip\n"
      "  %c = sitofp i32 %i to double\n"
      "  %s = fmul double %d, %c\n"
      "  ret double %s\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "src", 24 * 3 + 8, "pointer");
  ck_kind(&p, "src", 24 * 5 + 16, "integer");
  ad_copy_layout l;
  LLVMValueRef call = LLVMGetNextInstruction(
      LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn)));
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  ck_assert_uint_eq(l.period, 24);
  ck_assert_uint_eq(l.n, 4);
  ck_assert_int_eq(l.segs[0].kind, AD_BYTES_FLOAT);
  ck_assert_int_eq(l.segs[1].kind, AD_BYTES_POINTER);
  ck_assert_uint_eq(l.segs[1].offset, 8);
  ck_assert_int_eq(l.segs[2].kind, AD_BYTES_INTEGER);
  ck_assert_uint_eq(l.segs[2].offset, 16);
  ck_assert_uint_eq(l.segs[3].offset + l.segs[3].size, 24);
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* A struct of a double array copied by value and read at a variable
 * index, as clang -O0 writes `struct V p = *m; ... p.d[i]`: every
 * element is a double, so the copy is all floats. */
START_TEST(array_in_struct_variable_index) {
  const char *ir =
      "%V = type { [3 x double] }\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define double @g(ptr %m, i32 %i) {\n"
      "  %p = alloca %V, align 8\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %m, i64 24, i1 0)\n"
      "  %a = getelementptr inbounds %V, ptr %p, i32 0, i32 0\n"
      "  %k = sext i32 %i to i64\n"
      "  %e = getelementptr inbounds [3 x double], ptr %a, i64 0, i64 %k\n"
      "  %d = load double, ptr %e, align 8\n"
      "  ret double %d\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "p", 0, "float64");
  ck_kind(&p, "p", 16, "float64");
  ck_kind(&p, "m", 8, "float64");
  ad_copy_layout l;
  LLVMValueRef call = LLVMGetNextInstruction(
      LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn)));
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(l.segs[k].kind == AD_BYTES_FLOAT,
                  "segment %zu at %llu (%llu bytes): kind %d", k,
                  l.segs[k].offset, l.segs[k].size, (int)l.segs[k].kind);
  ck_assert_uint_ge(l.n, 1);
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* Copying from a constant global: the global's type gives the layout. */
START_TEST(copy_from_constant_global) {
  const char *ir =
      "%T = type { ptr, i32, i32, double }\n"
      "@tab = internal constant [2 x double] [double 1.0, double 2.0]\n"
      "@tmpl = internal constant [2 x %T] [%T { ptr @tab, i32 2, i32 1, "
      "double 0.5 }, %T { ptr null, i32 1, i32 1, double 1.0 }]\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @h(ptr %dst) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr @tmpl, i64 48, i1 0)\n"
      "  ret void\n"
      "}\n";
  parsed p = analyze(ir, "h");
  ck_kind(&p, "dst", 0, "pointer");
  ck_kind(&p, "dst", 8, "integer");
  ck_kind(&p, "dst", 16, "float64");
  ck_kind(&p, "dst", 24, "pointer");
  ck_kind(&p, "dst", 40, "float64");
  release(&p);
}
END_TEST

/* ---- a pointer laundered through integers ---- */

/* Whether every segment of the copy `call` makes is floats. */
static void ck_copy_all_floats(parsed *p, LLVMValueRef call) {
  ad_copy_layout l;
  ck_assert_int_eq(ad_types_copy_layout(p->t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  ck_assert_uint_ge(l.n, 1);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(l.segs[k].kind == AD_BYTES_FLOAT,
                  "segment %zu at %llu (%llu bytes): kind %d", k,
                  l.segs[k].offset, l.segs[k].size, (int)l.segs[k].kind);
  ad_copy_layout_free(&l);
}

/* C++ at -O0: `double &A::operator[](int i) { return d[i]; }` spills
 * `this` to an alloca, reloads it and returns &this->d[i]; the caller
 * reads through the returned pointer and copies the struct by value.  The
 * element pointer carries the member array's layout back to the caller's
 * object: every element, not only the first, is a double. */
START_TEST(element_pointer_returned_by_call) {
  const char *ir =
      "%A = type { [3 x double] }\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define ptr @at(ptr %this, i32 %i) {\n"
      "  %this.addr = alloca ptr, align 8\n"
      "  store ptr %this, ptr %this.addr, align 8\n"
      "  %self = load ptr, ptr %this.addr, align 8\n"
      "  %d = getelementptr inbounds %A, ptr %self, i32 0, i32 0\n"
      "  %k = sext i32 %i to i64\n"
      "  %e = getelementptr inbounds [3 x double], ptr %d, i64 0, i64 %k\n"
      "  ret ptr %e\n"
      "}\n"
      "define double @g(ptr %m, i32 %i) {\n"
      "  %p = alloca %A, align 8\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %m, i64 24, i1 0)\n"
      "  %r = call ptr @at(ptr %p, i32 %i)\n"
      "  %v = load double, ptr %r, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "p", 0, "float64");
  ck_kind(&p, "p", 8, "float64");
  ck_kind(&p, "p", 16, "float64");
  ck_kind(&p, "m", 16, "float64");
  ck_copy_all_floats(&p, LLVMGetNextInstruction(LLVMGetFirstInstruction(
                             LLVMGetEntryBasicBlock(p.fn))));
  release(&p);
}
END_TEST

/* A pointer stored to memory and loaded back is the pointer stored (a
 * slot of one object, as a PHI of its stores): what is read through the
 * reloaded pointer is a fact about the object first pointed to. */
START_TEST(pointer_reloaded_from_slot) {
  const char *ir =
      "define double @g(ptr %m) {\n"
      "  %slot = alloca ptr, align 8\n"
      "  store ptr %m, ptr %slot, align 8\n"
      "  %r = load ptr, ptr %slot, align 8\n"
      "  %q = getelementptr inbounds i8, ptr %r, i64 8\n"
      "  %v = load double, ptr %q, align 8\n"
      "  %w = load i32, ptr %r, align 4\n"
      "  %x = sitofp i32 %w to double\n"
      "  %s = fadd double %v, %x\n"
      "  ret double %s\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "m", 8, "float64");
  ck_kind(&p, "m", 0, "integer");
  ck_kind(&p, "slot", 0, "pointer");
  release(&p);
}
END_TEST

/* `double d[3][3]; d[i][j]` (a Mat class's at(i, j)): both indices
 * variable, so every row and every column is doubles. */
START_TEST(two_dimensional_member_array) {
  const char *ir =
      "%M = type { i32, [3 x [3 x double]] }\n"
      "define double @g(ptr %m, i64 %i, i64 %j) {\n"
      "  %e = getelementptr inbounds %M, ptr %m, i32 0, i32 1, i64 %i, i64 %j\n"
      "  %v = load double, ptr %e, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "g");
  for (long long off = 8; off < 80; off += 8)
    ck_kind(&p, "m", off, "float64");
  ck_kind(&p, "m", 0, "unknown");
  release(&p);
}
END_TEST

/* The elements of x in `struct { double a[2]; int n; } x[3]`, read as
 * x[i].a[j]: each element's a is doubles, its n is not (nothing said of
 * it), so the replication stays inside the bytes the access names. */
START_TEST(member_array_elements_keep_their_fields) {
  const char *ir =
      "%S = type { [2 x double], i32 }\n"
      "%O = type { [3 x %S] }\n"
      "define double @g(ptr %o, i64 %i, i64 %j) {\n"
      "  %e = getelementptr inbounds %O, ptr %o, i32 0, i32 0, i64 %i, i32 0, i64 %j\n"
      "  %v = load double, ptr %e, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "o", 0, "float64");
  ck_kind(&p, "o", 8, "float64");
  ck_kind(&p, "o", 16, "unknown");
  ck_kind(&p, "o", 24, "float64");
  ck_kind(&p, "o", 56, "float64");
  ck_kind(&p, "o", 64, "unknown");
  release(&p);
}
END_TEST

/* A callee analyzed alone (reverse mode analyzes each function it
 * differentiates) that copies what its parameter points to (a copy
 * constructor at -O0): its callers say what those bytes are, in the
 * analysis that asks them (ad_types_analyze_in_callers; the plain one
 * leaves them unknown, which is what makes copy_layout.c ask). */
START_TEST(callee_copy_known_from_callers) {
  const char *ir =
      "%V = type { [2 x double] }\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @copy(ptr %dst, ptr %src) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 0)\n"
      "  ret void\n"
      "}\n"
      "define double @g(ptr %m) {\n"
      "  %p = alloca %V, align 8\n"
      "  call void @copy(ptr %p, ptr %m)\n"
      "  %a = load double, ptr %p, align 8\n"
      "  %q = getelementptr inbounds %V, ptr %p, i32 0, i32 0, i64 1\n"
      "  %b = load double, ptr %q, align 8\n"
      "  %s = fadd double %a, %b\n"
      "  ret double %s\n"
      "}\n";
  parsed p = analyze(ir, "copy");
  ck_kind(&p, "src", 0, "unknown");
  ad_types_free(p.t);
  p.t = ad_types_analyze_in_callers(NULL, p.m, NULL, p.fn,
                                    AD_TYPES_NEAR_CALLERS);
  ck_assert(p.t != NULL);
  ck_kind(&p, "src", 0, "float64");
  ck_kind(&p, "src", 8, "float64");
  ck_copy_all_floats(&p, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn)));
  release(&p);
}
END_TEST

/* clang -O1's std::vector code: byte offsets that are distances between
 * pointers (`gep i8, %new, (ptrtoint %pos - ptrtoint %begin)`, no
 * division of it in sight), an exact division of one (`ashr exact %d,
 * 4`: a multiple of 16), and a fill looping over a byte index stepping by
 * 16, of records { double, i64 }.  Each offset is a whole number of
 * records: the buffers repeat every 16 bytes, a double then an integer, in
 * the caller and in the callee analyzed with its callers, whose
 * parameters' objects are apart from the arguments' until their facts
 * meet (the distance's stride is then learnt, not taken as one byte at
 * the first visit).  Taken as one byte, the buffers repeated every byte
 * and their doubles and integers collapsed into a conflict. */
START_TEST(byte_offsets_of_pointer_distances) {
  const char *ir =
      "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "declare noalias ptr @malloc(i64)\n"
      "define void @insert(ptr %begin, ptr %pos, ptr %end) {\n"
      "  %e = ptrtoint ptr %end to i64\n"
      "  %p = ptrtoint ptr %pos to i64\n"
      "  %b = ptrtoint ptr %begin to i64\n"
      "  %all = sub i64 %e, %b\n"
      "  %head = sub i64 %p, %b\n"
      "  %tail = sub i64 %e, %p\n"
      "  %n = ashr exact i64 %all, 4\n"
      "  %bytes = shl i64 %n, 5\n"
      "  %new = call ptr @malloc(i64 %bytes)\n"
      "  call void @llvm.memmove.p0.p0.i64(ptr %new, ptr %begin, i64 %head, i1 0)\n"
      "  %at = getelementptr inbounds i8, ptr %new, i64 %head\n"
      "  call void @llvm.memmove.p0.p0.i64(ptr %at, ptr %pos, i64 %tail, i1 0)\n"
      "  %last = getelementptr inbounds i8, ptr %at, i64 %all\n"
      "  call void @llvm.memmove.p0.p0.i64(ptr %last, ptr %begin, i64 %all, i1 0)\n"
      "  ret void\n"
      "}\n"
      "define double @g(i64 %k) {\n"
      "entry:\n"
      "  %buf = call ptr @malloc(i64 64)\n"
      "  %cnt = mul i64 %k, 3\n"
      "  br label %fill\n"
      "fill:\n"
      "  %idx = phi i64 [ 0, %entry ], [ %next, %fill ]\n"
      "  %q = getelementptr inbounds i8, ptr %buf, i64 %idx\n"
      "  store double 1.0, ptr %q, align 8\n"
      "  %qc = getelementptr inbounds i8, ptr %q, i64 8\n"
      "  store i64 %cnt, ptr %qc, align 8\n"
      "  %next = add nuw nsw i64 %idx, 16\n"
      "  %done = icmp eq i64 %next, 64\n"
      "  br i1 %done, label %out, label %fill\n"
      "out:\n"
      "  %kb = shl i64 %k, 4\n"
      "  %pos = getelementptr inbounds i8, ptr %buf, i64 %kb\n"
      "  %end = getelementptr inbounds i8, ptr %buf, i64 64\n"
      "  call void @insert(ptr %buf, ptr %pos, ptr %end)\n"
      "  %v = load double, ptr %pos, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "buf", 0, "float64");
  ck_kind(&p, "buf", 8, "integer");
  ck_kind(&p, "buf", 16, "float64");
  ck_kind(&p, "q", 24, "integer");
  ad_types_free(p.t);
  p.fn = LLVMGetNamedFunction(p.m, "insert");
  p.t = ad_types_analyze_in_callers(NULL, p.m, NULL, p.fn,
                                    AD_TYPES_NEAR_CALLERS);
  ck_assert(p.t != NULL);
  const char *const copies[] = {"new", "at", "last"};
  for (size_t c = 0; c < sizeof copies / sizeof *copies; c++) {
    ck_kind(&p, copies[c], 0, "float64");
    ck_kind(&p, copies[c], 8, "integer");
  }
  int seen = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn));
       i; i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsACallInst(i) || LLVMGetNumArgOperands(i) != 4)
      continue;
    ad_copy_layout l;
    ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(i, 0),
                                          LLVMGetOperand(i, 1),
                                          LLVMGetOperand(i, 2), &l),
                     0);
    ck_assert_uint_eq(l.period, 16);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(l.segs[0].kind, AD_BYTES_FLOAT);
    ck_assert_uint_eq(l.segs[0].bits, 64);
    ck_assert_uint_eq(l.segs[0].size, 8);
    ck_assert_int_eq(l.segs[1].kind, AD_BYTES_INTEGER);
    ad_copy_layout_free(&l);
    seen++;
  }
  ck_assert_int_eq(seen, 3);
  release(&p);
}
END_TEST

/* One helper shared by two objects (a double's and a pointer's slot)
 * merges them in the context-insensitive analysis: a conflict at byte 0,
 * also in the copy a callee makes of one of them.  On the call paths
 * alone (ad_types_analyze_on_call_paths) the helper is not followed and
 * the copied slot is a pointer, as its caller's store says; an integer
 * seen there (the third slot) stays what the paths see, which
 * copy_layout.c does not take from them. */
START_TEST(shared_callee_apart_on_call_paths) {
  const char *ir =
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @copy(ptr %dst, ptr %src) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 8, i1 0)\n"
      "  ret void\n"
      "}\n"
      "define void @touch(ptr %o) {\n"
      "  ret void\n"
      "}\n"
      "define double @g(ptr %x) {\n"
      "  %a = alloca double, align 8\n"
      "  %b = alloca ptr, align 8\n"
      "  %c = alloca ptr, align 8\n"
      "  store double 1.0, ptr %a, align 8\n"
      "  store ptr %x, ptr %b, align 8\n"
      "  call void @touch(ptr %a)\n"
      "  call void @touch(ptr %b)\n"
      "  call void @copy(ptr %c, ptr %b)\n"
      "  %p = load ptr, ptr %c, align 8\n"
      "  %v = load double, ptr %p, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "copy");
  ad_types_free(p.t);
  p.t = ad_types_analyze_in_callers(NULL, p.m, NULL, p.fn,
                                    AD_TYPES_FAR_CALLERS);
  ck_assert(p.t != NULL);
  ck_kind(&p, "src", 0, "conflict");
  ad_types_free(p.t);
  p.t = ad_types_analyze_on_call_paths(NULL, p.m, NULL, p.fn,
                                       AD_TYPES_FAR_CALLERS);
  ck_assert(p.t != NULL);
  ck_kind(&p, "src", 0, "pointer");
  ck_kind(&p, "dst", 0, "pointer");
  ck_kind(&p, "a", 0, "float64");
  LLVMValueRef call = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn));
  ad_copy_layout l;
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  ck_assert_uint_eq(l.n, 1);
  ck_assert_int_eq(l.segs[0].kind, AD_BYTES_POINTER);
  ck_assert_uint_eq(l.segs[0].size, 8);
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* `(f->end - f->start) / 2` of int fields at -O0: the difference is an
 * integer (divided), so are its operands (narrower than a pointer, they
 * cannot be two pointers; float bits would make it a conflict), hence the
 * fields; and a sum's operands likewise. */
START_TEST(integer_difference_operands) {
  const char *ir =
      "define i32 @g(ptr %f) {\n"
      "  %a = load i32, ptr %f, align 4\n"
      "  %q = getelementptr inbounds i8, ptr %f, i64 4\n"
      "  %b = load i32, ptr %q, align 4\n"
      "  %d = sub nsw i32 %b, %a\n"
      "  %h = sdiv i32 %d, 2\n"
      "  %r = getelementptr inbounds i8, ptr %f, i64 8\n"
      "  %c = load i64, ptr %r, align 8\n"
      "  %s = add i64 %c, 3\n"
      "  %m = mul i64 %s, 5\n"
      "  %mt = trunc i64 %m to i32\n"
      "  %x = add i32 %h, %mt\n"
      "  ret i32 %x\n"
      "}\n";
  parsed p = analyze(ir, "g");
  ck_kind(&p, "f", 0, "integer");
  ck_kind(&p, "f", 4, "integer");
  ck_kind(&p, "f", 8, "integer");
  release(&p);
}
END_TEST

START_TEST(pointer_through_integers) {
  const char *ir = "define double @h(ptr %x, i64 %k) {\n"
                   "  %i = ptrtoint ptr %x to i64\n"
                   "  %j = add i64 %i, 16\n"
                   "  %p = inttoptr i64 %j to ptr\n"
                   "  %v = load double, ptr %p\n"
                   "  %diff = sub i64 %j, %i\n"
                   "  %w = getelementptr double, ptr %x, i64 %k\n"
                   "  ret double %v\n"
                   "}\n";
  parsed p = analyze(ir, "h");
  ck_kind(&p, "i", -1, "pointer");
  ck_kind(&p, "j", -1, "pointer");
  ck_kind(&p, "x", 16, "float64");
  ck_kind(&p, "j", 0, "float64");
  ck_kind(&p, "diff", -1, "integer"); /* a difference of pointers */
  ck_kind(&p, "k", -1, "integer");    /* a GEP index */
  release(&p);
}
END_TEST

/* An integer loaded from memory that is later added to an index and cast
 * to a pointer: the load itself is a pointer. */
START_TEST(pointer_integer_in_memory) {
  const char *ir = "define double @h(ptr %s, i64 %k) {\n"
                   "  %base = load i64, ptr %s\n"
                   "  %off = shl i64 %k, 3\n"
                   "  %a = add i64 %base, %off\n"
                   "  %p = inttoptr i64 %a to ptr\n"
                   "  %v = load double, ptr %p\n"
                   "  ret double %v\n"
                   "}\n";
  parsed p = analyze(ir, "h");
  ck_kind(&p, "a", -1, "pointer");
  ck_kind(&p, "base", -1, "pointer");
  ck_kind(&p, "s", 0, "pointer");
  ck_kind(&p, "off", -1, "integer");
  release(&p);
}
END_TEST

/* Facts cross calls to functions with bodies, both ways. */
START_TEST(across_calls) {
  const char *ir = "define internal double @get(ptr %q) {\n"
                   "  %v = load double, ptr %q\n"
                   "  ret double %v\n"
                   "}\n"
                   "define internal i64 @handle(ptr %q) {\n"
                   "  %i = ptrtoint ptr %q to i64\n"
                   "  ret i64 %i\n"
                   "}\n"
                   "define double @outer(ptr %x) {\n"
                   "  %g = getelementptr i8, ptr %x, i64 8\n"
                   "  %v = call double @get(ptr %g)\n"
                   "  %h = call i64 @handle(ptr %x)\n"
                   "  ret double %v\n"
                   "}\n";
  parsed p = analyze(ir, "outer");
  ck_kind(&p, "x", 8, "float64");
  ck_kind(&p, "h", -1, "pointer");
  release(&p);
}
END_TEST

/* ---- union-like reuse of bytes ---- */

START_TEST(union_conflict) {
  const char *ir = "define i64 @u(double %x) {\n"
                   "  %m = alloca i64\n"
                   "  store double %x, ptr %m\n"
                   "  %bits = load i64, ptr %m\n"
                   "  %e = lshr i64 %bits, 52\n"
                   "  ret i64 %e\n"
                   "}\n";
  parsed p = analyze(ir, "u");
  ck_kind(&p, "bits", -1, "conflict");
  ck_kind(&p, "m", 0, "conflict");
  ck_kind(&p, "e", -1, "integer");
  release(&p);
}
END_TEST

/* A float copied as its bits (no integer use) is a float, not a conflict. */
START_TEST(float_bits_copied_as_integer) {
  const char *ir = "define void @c(ptr %a, ptr %b) {\n"
                   "  %v = load double, ptr %a\n"
                   "  %bits = load i64, ptr %a\n"
                   "  store i64 %bits, ptr %b\n"
                   "  ret void\n"
                   "}\n";
  parsed p = analyze(ir, "c");
  ck_kind(&p, "bits", -1, "float64");
  ck_kind(&p, "b", 0, "float64");
  release(&p);
}
END_TEST

/* ---- the engine's use of it ---- */

#define REQ_DECLS                                                              \
  "@enzyme_dup = external global i32\n"                                        \
  "@enzyme_const = external global i32\n"                                      \
  "declare double @__enzyme_fwddiff(ptr, ...)\n"

static tanjit_error *transform(const char *ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t.ll");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(ctx, buf, &m, &msg) == 0, "parse: %s",
                msg ? msg : "?");
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  int rc = ad_transform_module(e, m, &err);
  ck_assert(rc == 0 || err);
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return err;
}

/* Float bits manipulated as an integer (the low mantissa bits cleared): the
 * derivative is undefined, and the error names the value and function.  (A
 * sign-bit mask is fabs, and signbits.c makes it one.) */
START_TEST(conflict_is_an_error) {
  const char *ir = REQ_DECLS
      "define double @chop_bits(double %x) {\n"
      "  %m = alloca double\n"
      "  store double %x, ptr %m\n"
      "  %bits = load i64, ptr %m\n"
      "  %abs = and i64 %bits, -4294967296\n"
      "  %r = bitcast i64 %abs to double\n"
      "  ret double %r\n"
      "}\n"
      "define double @req(double %x) {\n"
      "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @chop_bits, double "
      "%x, double 1.0)\n"
      "  ret double %d\n"
      "}\n";
  tanjit_error *err = transform(ir);
  ck_assert_msg(err != NULL, "a conflicting integer was differentiated");
  const char *m = tanjit_error_message(err);
  ck_assert_msg(strstr(m, "%abs") && strstr(m, "chop_bits") &&
                    strstr(m, "float or an integer"),
                "message: %s", m);
  tanjit_error_free(err);
}
END_TEST

/* A struct { double *data; i32 n; i32 stride } passed duplicated: the
 * integer fields are loaded from active memory but are integers, so the
 * derivative loads them once (no shadow loads, no shadow arithmetic). */
static const char *struct_int_ir =
    REQ_DECLS
    "%V = type { ptr, i32, i32 }\n"
    "define double @sumsq(ptr %v) {\n"
    "entry:\n"
    "  %np = getelementptr inbounds %V, ptr %v, i64 0, i32 1\n"
    "  %n = load i32, ptr %np\n"
    "  %sp = getelementptr inbounds %V, ptr %v, i64 0, i32 2\n"
    "  %stride = load i32, ptr %sp\n"
    "  %data = load ptr, ptr %v\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]\n"
    "  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]\n"
    "  %j = mul i32 %i, %stride\n"
    "  %j64 = sext i32 %j to i64\n"
    "  %p = getelementptr inbounds double, ptr %data, i64 %j64\n"
    "  %x = load double, ptr %p\n"
    "  %sq = fmul double %x, %x\n"
    "  %acc1 = fadd double %acc, %sq\n"
    "  %i1 = add i32 %i, 1\n"
    "  %c = icmp slt i32 %i1, %n\n"
    "  br i1 %c, label %loop, label %done\n"
    "done:\n"
    "  ret double %acc1\n"
    "}\n"
    "define double @dsumsq(ptr %v, ptr %dv) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @sumsq, ptr "
    "@enzyme_dup, ptr %v, ptr %dv)\n"
    "  ret double %d\n"
    "}\n";

/* The derivative's IR (one load per integer field, no shadow arithmetic):
 * tests/filecheck/integer_fields.ll.  Its value: */
START_TEST(integer_fields_derivative_value) {
  tanjit_options o;
  tanjit_error *err = NULL;
  tanjit_options_init(&o);
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert(s);
  ck_assert_msg(tanjit_load_memory(s, struct_int_ir, strlen(struct_int_ir),
                                   "t.ll", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "");
  double (*d)(void *, void *) =
      (double (*)(void *, void *))tanjit_lookup(s, "dsumsq", &err);
  ck_assert_msg(d, "%s", err ? tanjit_error_message(err) : "");
  struct {
    double *data;
    int n, stride;
  } v, dv;
  double x[6] = {1, 2, 3, 4, 5, 6}, dx[6] = {1, -1, 0.5, 2, 0.25, 3};
  v.data = x, v.n = 3, v.stride = 2;
  dv.data = dx, dv.n = 3, dv.stride = 2;
  /* d/dt sum x[2i]^2 = 2 (x0 dx0 + x2 dx2 + x4 dx4) */
  double want = 2 * (1 * 1 + 3 * 0.5 + 5 * 0.25);
  ck_assert_double_eq_tol(d(&v, &dv), want, 1e-12);
  /* the shadow's integer fields are never read */
  dv.n = -7, dv.stride = 12345;
  ck_assert_double_eq_tol(d(&v, &dv), want, 1e-12);
  tanjit_session_free(s);
}
END_TEST

/* A CUdeviceptr-like handle stored in memory as i64 and used after an
 * inttoptr: it keeps a shadow through memory, and the derivative is right. */
START_TEST(handle_in_memory_derivative) {
  const char *ir = REQ_DECLS
      "define double @via_handle(ptr %x) {\n"
      "  %slot = alloca i64\n"
      "  %h = ptrtoint ptr %x to i64\n"
      "  store i64 %h, ptr %slot\n"
      "  %h2 = load i64, ptr %slot\n"
      "  %a = add i64 %h2, 8\n"
      "  %p = inttoptr i64 %a to ptr\n"
      "  %v = load double, ptr %p\n"
      "  %s = fmul double %v, %v\n"
      "  ret double %s\n"
      "}\n"
      "define double @dvia(ptr %x, ptr %dx) {\n"
      "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @via_handle, ptr "
      "@enzyme_dup, ptr %x, ptr %dx)\n"
      "  ret double %d\n"
      "}\n";
  tanjit_options o;
  tanjit_error *err = NULL;
  tanjit_options_init(&o);
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert(s);
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), "t.ll", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "");
  double (*d)(double *, double *) =
      (double (*)(double *, double *))tanjit_lookup(s, "dvia", &err);
  ck_assert_msg(d, "%s", err ? tanjit_error_message(err) : "");
  double x[2] = {1.0, 3.0}, dx[2] = {5.0, 0.5};
  ck_assert_double_eq_tol(d(x, dx), 2 * 3.0 * 0.5, 1e-12);
  tanjit_session_free(s);
}
END_TEST

/* ---- TBAA: what the frontend's access tags promise ---- */

/* clang's scalar type nodes (the default format), shared by the TBAA
 * tests below. */
#define TBAA_NODES                                                             \
  "!0 = !{!\"Simple C/C++ TBAA\"}\n"                                           \
  "!1 = !{!\"omnipotent char\", !0, i64 0}\n"                                  \
  "!2 = !{!\"double\", !1, i64 0}\n"                                           \
  "!3 = !{!\"long\", !1, i64 0}\n"                                             \
  "!4 = !{!\"any pointer\", !1, i64 0}\n"                                      \
  "!5 = !{!\"float\", !1, i64 0}\n"                                            \
  "!6 = !{!\"p1 double\", !4, i64 0}\n"                                        \
  "!7 = !{!\"jtbaa_data\", !0, i64 0}\n"                                       \
  "!8 = !{!\"int\", !1, i64 0}\n"                                              \
  "!9 = !{!\"long double\", !1, i64 0}\n"                                      \
  "!12 = !{!2, !2, i64 0}\n"                                                   \
  "!13 = !{!3, !3, i64 0}\n"                                                   \
  "!14 = !{!4, !4, i64 0}\n"                                                   \
  "!15 = !{!5, !5, i64 0}\n"                                                   \
  "!16 = !{!6, !6, i64 0}\n"                                                   \
  "!17 = !{!7, !7, i64 0}\n"                                                   \
  "!18 = !{!8, !8, i64 0}\n"                                                   \
  "!19 = !{!9, !9, i64 0}\n"                                                   \
  /* struct P { long n; double v; }: a struct-path tag of its member v */     \
  "!20 = !{!\"P\", !3, i64 0, !2, i64 8}\n"                                    \
  "!21 = !{!20, !2, i64 8}\n"

/* Integer loads and stores that the IR alone leaves unknown (an i64 may
 * hold a pointer or a double's bits) take the tag's type; the IR's own
 * facts win over a tag that disagrees with them. */
START_TEST(tbaa_tagged_load_store) {
  const char *ir =
      "target triple = \"x86_64-pc-linux-gnu\"\n"
      "define void @f(ptr %a, ptr %b, ptr %c, ptr %d, ptr %e, ptr %g,"
      " ptr %h, ptr %k, ptr %l, ptr %m, ptr %q) {\n"
      "  %x = load i64, ptr %a, !tbaa !12\n"         /* double */
      "  store i64 %x, ptr %b\n"
      "  %n = load i64, ptr %c, !tbaa !13\n"         /* long */
      "  %p = load i64, ptr %d, !tbaa !16\n"         /* p1 double */
      "  %j = load i64, ptr %e, !tbaa !17\n"         /* jtbaa_data: no type */
      "  %w = load double, ptr %g, !tbaa !18\n"      /* int, on a double */
      "  %i = load i64, ptr %h, !tbaa !12\n"         /* double, used ... */
      "  %gep = getelementptr double, ptr %h, i64 %i\n" /* ... as an index */
      "  %v = load <2 x i64>, ptr %k, !tbaa !12\n"   /* two doubles */
      "  store i64 0, ptr %l, !tbaa !21\n"           /* P.v */
      "  %ld = load i128, ptr %m, !tbaa !19\n"       /* x86 long double */
      /* a handle kept in a uint64_t ("long") that the IR turns into a
       * pointer: a pointer, as without the tag */
      "  %hd = load i64, ptr %q, !tbaa !13\n"
      "  %ha = add i64 %hd, 8\n"
      "  %hp = inttoptr i64 %ha to ptr\n"
      "  %hv = load double, ptr %hp\n"
      "  ret void\n"
      "}\n" TBAA_NODES;
  parsed p = analyze(ir, "f");
  ck_kind(&p, "x", -1, "float64");
  ck_kind(&p, "a", 0, "float64");
  ck_kind(&p, "b", 0, "float64"); /* carried by the value */
  ck_kind(&p, "n", -1, "integer");
  ck_kind(&p, "p", -1, "pointer");
  ck_kind(&p, "j", -1, "unknown");
  ck_kind(&p, "g", 0, "float64");
  ck_kind(&p, "i", -1, "integer"); /* the IR proves it: no conflict */
  ck_kind(&p, "h", 0, "integer");
  ck_kind(&p, "k", 0, "float64");
  ck_kind(&p, "k", 8, "float64");
  ck_kind(&p, "l", 0, "float64"); /* the access type, not the base's */
  ck_kind(&p, "m", 0, "float80");
  ck_kind(&p, "hd", -1, "pointer");
  ck_kind(&p, "q", 0, "pointer");
  release(&p);
}
END_TEST

/* A copy of struct M { double a; float b; double *p; long n; int k;
 * short s; } whose function never touches the members: only its
 * !tbaa.struct says what the bytes are.  Both sides learn it, field by
 * field, padding unknown (six fields: a node too large for the stack
 * buffer its reader starts with). */
START_TEST(tbaa_struct_memcpy) {
  const char *ir =
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @assign(ptr %dst, ptr %src) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 40, i1 0),"
      " !tbaa.struct !30\n"
      "  ret void\n"
      "}\n" TBAA_NODES
      "!10 = !{!\"short\", !1, i64 0}\n"
      "!11 = !{!10, !10, i64 0}\n"
      "!30 = !{i64 0, i64 8, !12, i64 8, i64 4, !15, i64 16, i64 8, !14,"
      " i64 24, i64 8, !13, i64 32, i64 4, !18, i64 36, i64 2, !11}\n";
  parsed p = analyze(ir, "assign");
  ck_kind(&p, "src", 0, "float64");
  ck_kind(&p, "dst", 8, "float32");
  ck_kind(&p, "src", 12, "unknown");
  ck_kind(&p, "dst", 16, "pointer");
  ck_kind(&p, "src", 24, "integer");
  ck_kind(&p, "dst", 36, "integer");
  ad_copy_layout l;
  LLVMValueRef call = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn));
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), &l),
                   0);
  static const struct {
    unsigned long long off, size;
    ad_byte_kind kind;
    unsigned bits;
  } want[] = {{0, 8, AD_BYTES_FLOAT, 64}, /* float widths never merge */
              {8, 4, AD_BYTES_FLOAT, 32},
              {12, 4, AD_BYTES_UNKNOWN, 0},
              {16, 8, AD_BYTES_POINTER, 0},
              {24, 14, AD_BYTES_INTEGER, 0}, /* long, int, short */
              {38, 2, AD_BYTES_UNKNOWN, 0}};
  ck_assert_uint_eq(l.n, 6);
  for (size_t i = 0; i < 6; i++) {
    ck_assert_uint_eq(l.segs[i].offset, want[i].off);
    ck_assert_uint_eq(l.segs[i].size, want[i].size);
    ck_assert_int_eq(l.segs[i].kind, want[i].kind);
    if (want[i].kind == AD_BYTES_FLOAT)
      ck_assert_uint_eq(l.segs[i].bits, want[i].bits);
  }
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* clang 22 at -O0 zeroes a struct initializer's padding with an
 * llvm.memset of its own: the four bytes after the int member of
 * struct { double v; int k; double *p; } are covered by no member of the
 * alloca's type, so they are integer bytes, not unknown ones; a memset
 * reaching into a member stays as the analysis says. */
START_TEST(struct_padding_memset) {
  const char *ir =
      "%struct.rec = type { double, i32, ptr }\n"
      "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
      "define double @init(double %x, i32 %n, ptr %q) {\n"
      "  %r = alloca %struct.rec, align 8\n"
      "  store double %x, ptr %r, align 8\n"
      "  %kp = getelementptr inbounds %struct.rec, ptr %r, i32 0, i32 1\n"
      "  store i32 %n, ptr %kp, align 8\n"
      "  %hole = getelementptr i8, ptr %r, i64 12\n"
      "  call void @llvm.memset.p0.i64(ptr %hole, i8 0, i64 4, i1 false)\n"
      "  %into = getelementptr i8, ptr %r, i64 10\n"
      "  call void @llvm.memset.p0.i64(ptr %into, i8 0, i64 4, i1 false)\n"
      "  %pp = getelementptr inbounds %struct.rec, ptr %r, i32 0, i32 2\n"
      "  store ptr %q, ptr %pp, align 8\n"
      "  %v = load double, ptr %r, align 8\n"
      "  ret double %v\n"
      "}\n";
  parsed p = analyze(ir, "init");
  LLVMValueRef hole = NULL, into = NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p.fn));
       i; i = LLVMGetNextInstruction(i))
    if (LLVMIsACallInst(i))
      *(hole ? &into : &hole) = i;
  ck_assert_ptr_nonnull(into);
  ad_copy_layout l;
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(hole, 0),
                                        LLVMGetOperand(hole, 0),
                                        LLVMGetOperand(hole, 2), &l),
                   0);
  ck_assert_uint_eq(l.n, 1);
  ck_assert_int_eq(l.segs[0].kind, AD_BYTES_INTEGER);
  ck_assert_uint_eq(l.segs[0].size, 4);
  ad_copy_layout_free(&l);
  /* bytes 10..13: two of the int's (no kind known of a parameter's
   * value) and two of padding: not all padding, so not made integer */
  ck_assert_int_eq(ad_types_copy_layout(p.t, LLVMGetOperand(into, 0),
                                        LLVMGetOperand(into, 0),
                                        LLVMGetOperand(into, 2), &l),
                   0);
  int any_unknown = 0;
  for (size_t i = 0; i < l.n; i++)
    any_unknown |= l.segs[i].kind == AD_BYTES_UNKNOWN &&
                   l.segs[i].offset < 2;
  ck_assert_int_eq(any_unknown, 1);
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* struct { long double v; int k; long double w; } on x86-64: an x86_fp80
 * stores 10 bytes in 16 and is 16-byte aligned, so the int leaves 12
 * bytes (20 to 32) before w, which no access reaches.  Copies between
 * records declared as such (elements of a local array, swapped through a
 * temporary; the whole array at a run-time length) take those bytes, and
 * each x86_fp80's last 6, for holes of the declared type: padding,
 * however long.  Between pointers with no declared type, unknown bytes
 * past the short tails are no padding (a double or a pointer could lie
 * there, unread). */
static const char *ld_record_ir =
    "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-"
    "i128:128-f80:128-n8:16:32:64-S128\"\n"
    "%rec = type { x86_fp80, i32, x86_fp80 }\n"
    "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
    "define x86_fp80 @swap(i64 %i, i64 %j, i64 %n, x86_fp80 %x, i32 %k,\n"
    "                      ptr %p, ptr %q) {\n"
    "  %a = alloca [4 x %rec], align 16\n"
    "  %b = alloca [4 x %rec], align 16\n"
    "  %t = alloca %rec, align 16\n"
    "  %ai = getelementptr inbounds [4 x %rec], ptr %a, i64 0, i64 %i\n"
    "  store x86_fp80 %x, ptr %ai, align 16\n"
    "  %ki = getelementptr inbounds %rec, ptr %ai, i64 0, i32 1\n"
    "  store i32 %k, ptr %ki, align 16\n"
    "  %wi = getelementptr inbounds %rec, ptr %ai, i64 0, i32 2\n"
    "  store x86_fp80 %x, ptr %wi, align 16\n"
    "  %aj = getelementptr inbounds [4 x %rec], ptr %a, i64 0, i64 %j\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %t, ptr %ai, i64 48, i1 0)\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %ai, ptr %aj, i64 48, i1 0)\n"
    "  %bytes = mul i64 %n, 48\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 %bytes, i1 0)\n"
    "  store x86_fp80 %x, ptr %p, align 16\n"
    "  %kp = getelementptr inbounds i8, ptr %p, i64 16\n"
    "  store i32 %k, ptr %kp, align 16\n"
    "  %wp = getelementptr inbounds i8, ptr %p, i64 32\n"
    "  store x86_fp80 %x, ptr %wp, align 16\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %q, ptr %p, i64 48, i1 0)\n"
    "  %r = load x86_fp80, ptr %b, align 16\n"
    "  ret x86_fp80 %r\n"
    "}\n";

/* The layout of call number `which` (0: the first) of p's function. */
static void layout_of_call(parsed *p, int which, ad_copy_layout *l) {
  LLVMValueRef call = NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(p->fn));
       i && !call; i = LLVMGetNextInstruction(i))
    if (LLVMIsACallInst(i) && which-- == 0)
      call = i;
  ck_assert_ptr_nonnull(call);
  ck_assert_int_eq(ad_types_copy_layout(p->t, LLVMGetOperand(call, 0),
                                        LLVMGetOperand(call, 1),
                                        LLVMGetOperand(call, 2), l),
                   0);
}

/* l's segments are the record's: x86_fp80, its tail, the int, the hole
 * before w, w, its tail.  The three gaps are integer bytes (`holes` 2:
 * the destination a struct alloca, holes_between_members) or unknown
 * bytes marked holes of the declared type (1): padding, all three. */
static void ck_ld_record(const ad_copy_layout *l, int holes) {
  static const struct {
    unsigned long long off, size;
    ad_byte_kind kind;
  } want[] = {{0, 10, AD_BYTES_FLOAT},   {10, 6, AD_BYTES_UNKNOWN},
              {16, 4, AD_BYTES_INTEGER}, {20, 12, AD_BYTES_UNKNOWN},
              {32, 10, AD_BYTES_FLOAT},  {42, 6, AD_BYTES_UNKNOWN}};
  ck_assert_uint_eq(l->n, 6);
  for (size_t i = 0; i < 6; i++) {
    ck_assert_uint_eq(l->segs[i].offset, want[i].off);
    ck_assert_uint_eq(l->segs[i].size, want[i].size);
    if (holes == 2 && want[i].kind == AD_BYTES_UNKNOWN) {
      ck_assert_int_eq(l->segs[i].kind, AD_BYTES_INTEGER);
      continue;
    }
    ck_assert_int_eq(l->segs[i].kind, want[i].kind);
    if (want[i].kind == AD_BYTES_FLOAT)
      ck_assert_uint_eq(l->segs[i].bits, 80);
    if (want[i].kind == AD_BYTES_UNKNOWN) {
      ck_assert_int_eq(l->segs[i].hole, 1);
      ck_assert_int_eq(ad_copy_segment_is_padding(l, i), 1);
    }
  }
}

START_TEST(long_double_record_holes) {
  parsed p = analyze(ld_record_ir, "swap");
  ad_copy_layout l;
  /* into the temporary, a struct alloca */
  layout_of_call(&p, 0, &l);
  ck_assert_uint_eq(l.period, 0);
  ck_ld_record(&l, 2);
  ad_copy_layout_free(&l);
  /* one array element into another, both at run-time indices */
  layout_of_call(&p, 1, &l);
  ck_assert_uint_eq(l.period, 0);
  ck_ld_record(&l, 1);
  ad_copy_layout_free(&l);
  /* the whole array, a run-time count of records: repeats every 48 */
  layout_of_call(&p, 2, &l);
  ck_assert_uint_eq(l.period, 48);
  ck_ld_record(&l, 1);
  ad_copy_layout_free(&l);
  /* between pointers: nothing declared (nor the int: a parameter's value
   * of no known kind), bytes 10 to 32 unknown and no padding */
  layout_of_call(&p, 3, &l);
  ck_assert_uint_eq(l.period, 0);
  ck_assert_uint_eq(l.n, 4);
  ck_assert_uint_eq(l.segs[1].offset, 10);
  ck_assert_uint_eq(l.segs[1].size, 22);
  ck_assert_int_eq(l.segs[1].kind, AD_BYTES_UNKNOWN);
  ck_assert_int_eq(l.segs[1].hole, 0);
  ck_assert_int_eq(ad_copy_segment_is_padding(&l, 1), 0);
  ck_assert_int_eq(ad_copy_segment_is_padding(&l, 3), 1); /* w's tail */
  ad_copy_layout_free(&l);
  release(&p);
}
END_TEST

/* -new-struct-path-tbaa's format: the copy of struct { double x[3]; long
 * n; } carries a tag whose access type is the struct, with sizes; the
 * array member is three doubles. */
START_TEST(tbaa_new_format_struct_copy) {
  const char *ir =
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define void @assign(ptr %dst, ptr %src) {\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 32, i1 0),"
      " !tbaa !44\n"
      "  ret void\n"
      "}\n"
      "!40 = !{!\"Simple C/C++ TBAA\"}\n"
      "!41 = !{!40, i64 1, !\"omnipotent char\"}\n"
      "!42 = !{!41, i64 8, !\"double\"}\n"
      "!43 = !{!41, i64 8, !\"long\"}\n"
      "!45 = !{!41, i64 32, !\"S\", !42, i64 0, i64 24, !43, i64 24, i64 8}\n"
      "!44 = !{!45, !45, i64 0, i64 32}\n";
  parsed p = analyze(ir, "assign");
  ck_kind(&p, "src", 0, "float64");
  ck_kind(&p, "src", 8, "float64");
  ck_kind(&p, "dst", 16, "float64");
  ck_kind(&p, "dst", 24, "integer");
  release(&p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("types");
  TCase *tc = tcase_create("analysis");
  tcase_add_test(tc, device_handle_from_cumemalloc);
  tcase_add_test(tc, device_handle_renamed);
  tcase_add_test(tc, device_handle_renamed_by_handle);
  tcase_add_test(tc, rule_table_argument_types);
  tcase_add_test(tc, struct_copied_with_memcpy);
  tcase_add_test(tc, struct_array_runtime_length);
  tcase_add_test(tc, copy_from_constant_global);
  tcase_add_test(tc, array_in_struct_variable_index);
  tcase_add_test(tc, element_pointer_returned_by_call);
  tcase_add_test(tc, pointer_reloaded_from_slot);
  tcase_add_test(tc, two_dimensional_member_array);
  tcase_add_test(tc, member_array_elements_keep_their_fields);
  tcase_add_test(tc, callee_copy_known_from_callers);
  tcase_add_test(tc, byte_offsets_of_pointer_distances);
  tcase_add_test(tc, shared_callee_apart_on_call_paths);
  tcase_add_test(tc, integer_difference_operands);
  tcase_add_test(tc, pointer_through_integers);
  tcase_add_test(tc, pointer_integer_in_memory);
  tcase_add_test(tc, across_calls);
  tcase_add_test(tc, union_conflict);
  tcase_add_test(tc, float_bits_copied_as_integer);
  tcase_add_test(tc, blas_argument_types);
  tcase_add_test(tc, tbaa_tagged_load_store);
  tcase_add_test(tc, tbaa_struct_memcpy);
  tcase_add_test(tc, struct_padding_memset);
  tcase_add_test(tc, long_double_record_holes);
  tcase_add_test(tc, tbaa_new_format_struct_copy);
  suite_add_tcase(s, tc);
  TCase *te = tcase_create("engine");
  tcase_set_timeout(te, 60);
  tcase_add_test(te, conflict_is_an_error);
  tcase_add_test(te, integer_fields_derivative_value);
  tcase_add_test(te, handle_in_memory_derivative);
  suite_add_tcase(s, te);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
