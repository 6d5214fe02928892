/*
 * What a derivative's signature asks of a constant (whether its shadow is
 * the constant itself, tangent/shadow_globals.c) is a query: it gives the
 * answer making the shadow would give, and makes no shadow global.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/analysis/globals.h"
#include "ad/core/context.h"
#include "ad/tangent/tangent.h"

/* Constants of every kind the shadow of a constant distinguishes: active
 * and inactive mutable globals, constant tables (of floats, of pointers),
 * an external global, expressions over them, aggregates holding them,
 * floats zero and not. */
static const char ir[] =
    "@active = global double 1.0\n"
    "@inactive = global double 2.0\n"
    "@table = constant [2 x double] [double 1.0, double 2.0]\n"
    "@pointers = constant [2 x ptr] [ptr @inactive, ptr @inactive]\n"
    "@external = external global double\n"
    "@ints = constant [3 x i32] [i32 1, i32 2, i32 3]\n"
    "define void @uses() {\n"
    "  store ptr getelementptr (i8, ptr @active, i64 8), ptr @inactive\n"
    "  store ptr getelementptr (i8, ptr @inactive, i64 8), ptr @inactive\n"
    "  store ptr getelementptr (i8, ptr @table, i64 8), ptr @inactive\n"
    "  store ptr @external, ptr @inactive\n"
    "  store i64 ptrtoint (ptr @inactive to i64), ptr @inactive\n"
    "  store i64 ptrtoint (ptr @active to i64), ptr @inactive\n"
    "  store {ptr, double} {ptr @inactive, double 0.0}, ptr @inactive\n"
    "  store {ptr, double} {ptr @inactive, double 3.0}, ptr @inactive\n"
    "  store {ptr, i32} {ptr @active, i32 1}, ptr @inactive\n"
    "  store [2 x ptr] [ptr @inactive, ptr @ints], ptr @inactive\n"
    "  store double 0.0, ptr @inactive\n"
    "  store double 5.0, ptr @inactive\n"
    "  store <2 x i32> <i32 1, i32 2>, ptr @inactive\n"
    "  store ptr null, ptr @inactive\n"
    "  store ptr @uses, ptr @inactive\n"
    "  ret void\n"
    "}\n";

static size_t count_globals(LLVMModuleRef m) {
  size_t n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    n++;
  return n;
}

START_TEST(test_constant_is_own_shadow_agrees_and_makes_nothing) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(
      LLVMParseIRInContext(
          ctx, LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t"),
          &m, &msg) == 0,
      "%s", msg ? msg : "");
  ad_module_ctx mc;
  memset(&mc, 0, sizeof mc);
  mc.mod = m;
  mc.llctx = ctx;
  ad_active_globals globals;
  ad_global_shadows shadows;
  ad_active_globals_init(&globals);
  ad_global_shadows_init(&shadows);
  mc.globals = &globals;
  mc.shadows = &shadows;
  ck_assert_int_eq(
      ad_map_put(&globals.set, LLVMGetNamedGlobal(m, "active"), (void *)1), 0);

  unsigned own = 0, not_own = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(
           LLVMGetFirstBasicBlock(LLVMGetNamedFunction(m, "uses")));
       i && LLVMIsAStoreInst(i); i = LLVMGetNextInstruction(i)) {
    LLVMValueRef c = LLVMGetOperand(i, 0);
    size_t before = count_globals(m);
    int query = ad_constant_is_own_shadow(&mc, c);
    ck_assert_uint_eq(count_globals(m), before); /* a query makes nothing */
    int made = ad_constant_shadow(&mc, c, 0) == c;
    char *text = LLVMPrintValueToString(c);
    ck_assert_msg(query == made, "%s: the query says %d, its shadow %d", text,
                  query, made);
    LLVMDisposeMessage(text);
    own += query != 0;
    not_own += query == 0;
  }
  /* both answers occur: the comparison is not vacuous */
  ck_assert_uint_ge(own, 5);
  ck_assert_uint_ge(not_own, 5);
  ad_global_shadows_free(&shadows);
  ad_active_globals_free(&globals);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("constant-shadow");
  TCase *t = tcase_create("query");
  tcase_add_test(t, test_constant_is_own_shadow_agrees_and_makes_nothing);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
