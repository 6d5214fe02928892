/*
 * Which names are derivative requests (ad_request_kind_of, src/ad/engine.c):
 * a declaration whose name holds an entry point anywhere, a definition that
 * is the entry point itself or its C++ mangling (_Z<length><name> and then
 * anything).  The mangled prefix is read in place; these pin down where it
 * stops matching.
 */
#include <check.h>
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "ad/ad.h"

static ad_request_kind kind_of(const char *name, int defined) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("names", ctx);
  LLVMTypeRef fn = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(m, name, fn);
  if (defined) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
  }
  ad_request_kind k = ad_request_kind_of(f);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return k;
}

START_TEST(test_definitions_match_the_name_or_its_mangling) {
  ck_assert_int_eq(kind_of("__enzyme_fwddiff", 1), AD_REQUEST_FORWARD);
  ck_assert_int_eq(kind_of("_Z16__enzyme_fwddiffIdJddEET_PvDpT0_", 1),
                   AD_REQUEST_FORWARD);
  ck_assert_int_eq(kind_of("_Z16__enzyme_fwddiff", 1), AD_REQUEST_FORWARD);
  ck_assert_int_eq(kind_of("_Z17__enzyme_autodiffIdJdEET_PvDpT0_", 1),
                   AD_REQUEST_REVERSE);
  ck_assert_int_eq(kind_of("_Z14__enzyme_batchIdJdEET_PvDpT0_", 1), AD_REQUEST_BATCH);
  ck_assert_int_eq(kind_of("_Z16__enzyme_reverseIvJEEvPv", 1), AD_REQUEST_SPLIT);
}
END_TEST

START_TEST(test_definitions_with_another_length_or_name_do_not) {
  ck_assert_int_eq(kind_of("_Z15__enzyme_fwddiffId", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("_Z160__enzyme_fwddiff", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("_Z016__enzyme_fwddiff", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("_Z16__enzyme_fwddifg", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("_Z16__enzyme_fwddif", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("_Z", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("my__enzyme_fwddiff", 1), AD_NOT_A_REQUEST);
  ck_assert_int_eq(kind_of("__enzyme_fwddiff_helper", 1), AD_NOT_A_REQUEST);
}
END_TEST

START_TEST(test_declarations_match_anywhere) {
  ck_assert_int_eq(kind_of("my__enzyme_fwddiff", 0), AD_REQUEST_FORWARD);
  ck_assert_int_eq(kind_of("_Z15__enzyme_fwddiffId", 0), AD_REQUEST_FORWARD);
  ck_assert_int_eq(kind_of("enzyme_fwddiff", 0), AD_NOT_A_REQUEST);
}
END_TEST

int main(void) {
  Suite *s = suite_create("request-names");
  TCase *t = tcase_create("names");
  tcase_add_test(t, test_definitions_match_the_name_or_its_mangling);
  tcase_add_test(t, test_definitions_with_another_length_or_name_do_not);
  tcase_add_test(t, test_declarations_match_anywhere);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
