/*
 * The rule registry (src/ad/registry/registry.c): the families registered
 * in the order ARCHITECTURE.md documents, and a lookup that stops at the
 * first family that answers.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/ad.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

/* The order ARCHITECTURE.md states: custom rules first, the inactive
 * table, then the built-in families, and last the calls that never
 * return. */
static const char *const documented_order[] = {
    "custom", "inactive", "math", "memory", "vector", "cuda", "complex", "tree", "blas",
    "noreturn",
};

START_TEST(test_families_in_documented_order) {
  size_t n = sizeof documented_order / sizeof *documented_order;
  ck_assert_uint_eq(ad_rule_family_count(), n);
  for (size_t i = 0; i < n; i++) {
    const ad_rule_family *f = ad_rule_family_at(i);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->name, documented_order[i]);
    /* exactly one way to answer */
    ck_assert_int_eq(!!f->lookup + !!f->lookup_call, 1);
  }
  ck_assert_ptr_null(ad_rule_family_at(n));
}
END_TEST

/* A module calling sin (twice: once plainly, once marked inactive at the
 * call site) and fabs; *calls receives the three calls. */
static LLVMModuleRef parse_calls(LLVMContextRef ctx, LLVMValueRef calls[3]) {
  static const char ir[] =
      "declare double @sin(double)\n"
      "declare double @fabs(double)\n"
      "define double @f(double %x) {\n"
      "  %a = call double @sin(double %x)\n"
      "  %b = call double @sin(double %a) \"enzyme_inactive\"\n"
      "  %c = call double @fabs(double %b)\n"
      "  ret double %c\n"
      "}\n";
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(
      LLVMParseIRInContext(
          ctx, LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t"),
          &m, &msg) == 0,
      "%s", msg ? msg : "");
  LLVMValueRef i = LLVMGetFirstInstruction(
      LLVMGetFirstBasicBlock(LLVMGetNamedFunction(m, "f")));
  for (int k = 0; k < 3; k++, i = LLVMGetNextInstruction(i))
    calls[k] = i;
  return m;
}

static const ad_rule_family *family_named(const char *name) {
  for (size_t i = 0; i < ad_rule_family_count(); i++)
    if (strcmp(ad_rule_family_at(i)->name, name) == 0)
      return ad_rule_family_at(i);
  return NULL;
}

/* The registry's answers are the first answering family's: custom rules
 * (the call site's enzyme_inactive) before math, math for a plain sin. */
START_TEST(test_registered_lookup_takes_the_first_answer) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMValueRef calls[3];
  LLVMModuleRef m = parse_calls(ctx, calls);
  ad_engine *e = ad_engine_new();
  const ad_rule_family *math = family_named("math");
  const ad_rule_family *custom = family_named("custom");
  ck_assert_ptr_nonnull(math);
  ck_assert_ptr_nonnull(custom);
  const ad_call_rule *sin_rule = math->lookup("sin");
  ck_assert_ptr_nonnull(sin_rule);
  ck_assert_ptr_eq(ad_find_call_rule(e, calls[0]), sin_rule);
  const ad_call_rule *inactive = custom->lookup_call(e, calls[1]);
  ck_assert_ptr_nonnull(inactive);
  ck_assert_int_eq(inactive->inactive, 1);
  ck_assert_ptr_eq(ad_find_call_rule(e, calls[1]), inactive);
  ck_assert_ptr_eq(ad_find_call_rule(e, calls[2]), math->lookup("fabs"));
  /* typed entries come from the families with typed rows, in order */
  const ad_rule_family *memory = family_named("memory");
  const ad_rule_family *cuda = family_named("cuda");
  ck_assert_ptr_nonnull(memory->typed_lookup);
  ck_assert_ptr_nonnull(cuda->typed_lookup);
  ck_assert_ptr_eq(ad_typed_rule_of("memcpy"), memory->typed_lookup("memcpy"));
  ck_assert_ptr_eq(ad_typed_rule_of("cuMemcpyHtoD_v2"),
                   cuda->typed_lookup("cuMemcpyHtoD_v2"));
  ck_assert_ptr_eq(&ad_typed_rule_of("memcpy")->rule, memory->lookup("memcpy"));
  ck_assert_ptr_null(ad_typed_rule_of("sin"));
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* Families that count the questions they get; `answer` answers for the
 * rule name it holds. */
static unsigned asked[4];
static char names_asked[4][64];
static const ad_call_rule answer = {.name = "sin"};
static const ad_call_rule by_call_answer = {.name = "by call"};
static int by_call_answers;

static const ad_call_rule *by_call(const ad_engine *e, LLVMValueRef call) {
  (void)e;
  (void)call;
  asked[0]++;
  return by_call_answers ? &by_call_answer : NULL;
}
static const ad_call_rule *silent(const char *name) {
  asked[1]++;
  snprintf(names_asked[1], sizeof names_asked[1], "%s", name);
  return NULL;
}
static const ad_call_rule *answers_sin(const char *name) {
  asked[2]++;
  snprintf(names_asked[2], sizeof names_asked[2], "%s", name);
  return strcmp(name, answer.name) == 0 ? &answer : NULL;
}
static const ad_call_rule *last(const char *name) {
  (void)name;
  asked[3]++;
  return &answer;
}

static const ad_rule_family fake_by_call = {.name = "a", .lookup_call = by_call};
static const ad_rule_family fake_silent = {.name = "b", .lookup = silent};
static const ad_rule_family fake_sin = {.name = "c", .lookup = answers_sin};
static const ad_rule_family fake_last = {.name = "d", .lookup = last};
static const ad_rule_family *const fakes[] = {&fake_by_call, &fake_silent,
                                              &fake_sin, &fake_last};

START_TEST(test_lookup_stops_at_the_first_family_that_answers) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMValueRef calls[3];
  LLVMModuleRef m = parse_calls(ctx, calls);
  memset(asked, 0, sizeof asked);
  by_call_answers = 0;
  ck_assert_ptr_eq(ad_find_call_rule_in(fakes, 4, NULL, calls[0]), &answer);
  ck_assert_uint_eq(asked[0], 1);
  ck_assert_uint_eq(asked[1], 1);
  ck_assert_uint_eq(asked[2], 1);
  ck_assert_uint_eq(asked[3], 0); /* not asked after an answer */
  /* every family by name got the call's rule name */
  ck_assert_str_eq(names_asked[1], "sin");
  ck_assert_str_eq(names_asked[2], "sin");
  /* fabs: the third family is silent, the fourth answers */
  memset(asked, 0, sizeof asked);
  ck_assert_ptr_eq(ad_find_call_rule_in(fakes, 4, NULL, calls[2]), &answer);
  ck_assert_uint_eq(asked[3], 1);
  ck_assert_str_eq(names_asked[2], "fabs");
  /* a family answering by the call comes first: nothing after it asked */
  memset(asked, 0, sizeof asked);
  by_call_answers = 1;
  ck_assert_ptr_eq(ad_find_call_rule_in(fakes, 4, NULL, calls[0]),
                   &by_call_answer);
  ck_assert_uint_eq(asked[0], 1);
  ck_assert_uint_eq(asked[1] + asked[2] + asked[3], 0);
  /* no family answers: NULL, each asked once */
  memset(asked, 0, sizeof asked);
  by_call_answers = 0;
  ck_assert_ptr_null(ad_find_call_rule_in(fakes, 3, NULL, calls[2]));
  ck_assert_uint_eq(asked[0] + asked[1] + asked[2], 3);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* The inactive family's library rows (registry/inactive.c): std::string
 * members, printing, std::__throw_* and hashing are inactive by contract;
 * whatever may move doubles (memcpy, std::vector<double> and std::copy
 * over doubles, a basic_string of doubles) is not in it, nor is an
 * unknown function. */
static const char *const contract_inactive[] = {
    "printf", "puts", "snprintf",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1EPKcRKS3_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEED1Ev",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareERKS4_",
    "_ZNSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEEpLEw",
    "_ZNSsC1EPKcRKSaIcE", /* the pre-C++11 ABI's std::string */
    "_ZNSt7__cxx119to_stringEd",
    "_ZNKSt4hashINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEclERKS5_",
    "_ZSt20__throw_length_errorPKc",
    "_ZSt24__throw_out_of_range_fmtPKcz",
    "_ZSt17__throw_bad_allocv",
    "_ZNSolsEd", /* std::ostream << double */
};
static const char *const not_contract_inactive[] = {
    "memcpy", "llvm.memcpy.p0.p0.i64", "memmove", "smooth_in_place",
    "_ZNSt6vectorIdSaIdEE9push_backERKd",
    "_ZNSt6vectorIdSaIdEE17_M_realloc_insertIJRKdEEEvN9__gnu_cxx17__normal_iteratorIPdS1_EEDpOT_",
    "_ZSt4copyIPdS0_ET0_T_S2_S1_",
    "_ZNSt7__cxx1112basic_stringIdSt11char_traitsIdESaIdEE6appendEPKd",
    "_ZSt9__fill_a1IPddEvT_S1_RKT0_", /* std::fill over doubles */
    "_ZSt", "_ZSt8", "__throw_length_error", /* not std::'s */
};

START_TEST(test_inactive_library_rows) {
  const ad_rule_family *inactive = ad_rule_family_at(1);
  ck_assert_str_eq(inactive->name, "inactive");
  for (size_t i = 0; i < sizeof contract_inactive / sizeof *contract_inactive;
       i++) {
    const ad_call_rule *r = inactive->lookup(contract_inactive[i]);
    ck_assert_msg(r && r->inactive, "%s is not inactive", contract_inactive[i]);
  }
  for (size_t i = 0;
       i < sizeof not_contract_inactive / sizeof *not_contract_inactive; i++)
    ck_assert_msg(!inactive->lookup(not_contract_inactive[i]),
                  "%s is inactive", not_contract_inactive[i]);
}
END_TEST

/* The noreturn family (registry/inactive.c, asked last): a call to a
 * declaration that never returns, by its callee's or call site's noreturn
 * or by `unreachable` right after it (a debug intrinsic between), keeps its
 * primal call alone; a call that returns, an invoke (its unwind edge goes
 * on) and a callee with a body are not its, and a call some family covers
 * gets that family's rule. */
START_TEST(test_noreturn_calls) {
  static const char ir[] =
      "declare void @raise(double) noreturn\n"
      "declare void @bounds(ptr, i64)\n"
      "declare double @sqrt(double)\n"
      "declare void @llvm.dbg.value(metadata, metadata, metadata)\n"
      "declare i32 @__gxx_personality_v0(...)\n"
      "define void @thrower(double %x) {\n"
      "  call void @raise(double %x)\n"
      "  unreachable\n"
      "}\n"
      "define double @f(double %x, ptr %a) personality ptr "
      "@__gxx_personality_v0 !dbg !2 {\n"
      "top:\n"
      "  switch i32 0, label %e0 [i32 1, label %e1\n"
      "                           i32 2, label %e2\n"
      "                           i32 3, label %e3\n"
      "                           i32 4, label %e4\n"
      "                           i32 5, label %e5\n"
      "                           i32 6, label %e6]\n"
      "e0:\n"
      "  call void @raise(double %x)\n" /* 0: noreturn callee */
      "  ret double 0.0\n"
      "e1:\n"
      "  call void @bounds(ptr %a, i64 1)\n" /* 1: unreachable next */
      "  call void @llvm.dbg.value(metadata double %x, metadata !1, "
      "metadata !DIExpression()), !dbg !6\n"
      "  unreachable\n"
      "e2:\n"
      "  call void @bounds(ptr %a, i64 2)\n" /* 2: returns */
      "  ret double %x\n"
      "e3:\n"
      "  call void @bounds(ptr %a, i64 3) noreturn\n" /* 3: call site's */
      "  ret double %x\n"
      "e4:\n"
      "  invoke void @raise(double %x) to label %e0 unwind label %lp\n" /* 4 */
      "e5:\n"
      "  call void @thrower(double %x)\n" /* 5: a body */
      "  unreachable\n"
      "e6:\n"
      "  %s = call double @sqrt(double %x)\n" /* 6: math's */
      "  unreachable\n"
      "lp:\n"
      "  %l = landingpad { ptr, i32 } cleanup\n"
      "  ret double %x\n"
      "}\n"
      "!llvm.module.flags = !{!0}\n"
      "!llvm.dbg.cu = !{!3}\n"
      "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
      "!1 = !DILocalVariable(name: \"x\", scope: !2)\n"
      "!2 = distinct !DISubprogram(name: \"f\", unit: !3, spFlags: "
      "DISPFlagDefinition)\n"
      "!3 = distinct !DICompileUnit(language: DW_LANG_C, file: !4, "
      "emissionKind: FullDebug)\n"
      "!4 = !DIFile(filename: \"f.c\", directory: \"/\")\n"
      "!6 = !DILocation(line: 1, scope: !2)\n";
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(
      LLVMParseIRInContext(
          ctx, LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t"),
          &m, &msg) == 0,
      "%s", msg ? msg : "");
  LLVMValueRef calls[7];
  LLVMBasicBlockRef bb =
      LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(LLVMGetNamedFunction(m, "f")));
  for (int k = 0; k < 7; k++, bb = LLVMGetNextBasicBlock(bb))
    calls[k] = LLVMGetFirstInstruction(bb);
  ad_engine *e = ad_engine_new();
  const ad_rule_family *noreturn = family_named("noreturn");
  ck_assert_ptr_nonnull(noreturn);
  /* asked alone it answers for sqrt too: the order keeps that math's */
  const int expect[7] = {1, 1, 0, 1, 0, 0, 1};
  for (int k = 0; k < 7; k++) {
    const ad_call_rule *r = noreturn->lookup_call(e, calls[k]);
    ck_assert_msg(!!r == expect[k], "call %d: %s", k, r ? "noreturn" : "none");
    if (r)
      ck_assert_int_eq(r->inactive, 1);
  }
  /* the registry asks it only after every family: sqrt stays math's */
  ck_assert_ptr_eq(ad_find_call_rule(e, calls[6]), family_named("math")->lookup("sqrt"));
  ck_assert_ptr_eq(ad_find_call_rule(e, calls[1]), noreturn->lookup_call(e, calls[1]));
  ck_assert_ptr_null(ad_find_call_rule(e, calls[2]));
  /* the invoke's callee is noreturn, which the shared predicate says */
  ck_assert_int_eq(ad_call_never_returns(calls[4]), 1);
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("registry");
  TCase *t = tcase_create("families");
  tcase_add_test(t, test_families_in_documented_order);
  tcase_add_test(t, test_registered_lookup_takes_the_first_answer);
  tcase_add_test(t, test_lookup_stops_at_the_first_family_that_answers);
  tcase_add_test(t, test_inactive_library_rows);
  tcase_add_test(t, test_noreturn_calls);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
