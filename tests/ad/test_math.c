/*
 * The math rule table, entry by entry: for every spelling (double, float,
 * long double, LLVM intrinsic) a module computes the function and its
 * derivative along each float argument; the derivative must match a central
 * finite difference of the primal.  A spelling LLVM lacks (an intrinsic
 * newer than the LLVM built against) is skipped and counted; the test fails
 * if fewer than the expected number of spellings ran.
 */
#include "test_common.h"

/* src/ad/rules/math.c's table, as its test interface exposes it */
size_t ad_math_table_size(void);
const char *ad_math_table_name(size_t i, unsigned which);
unsigned ad_math_table_arity(size_t i);
unsigned ad_math_table_int_args(size_t i);
unsigned ad_math_table_out_args(size_t i);
int ad_math_table_check(char *why, size_t whysize);
int ad_math_program_check(const char *program, unsigned arity,
                          unsigned int_args, char *why, size_t whysize);

static const char *const type_names[4] = {"double", "float", "x86_fp80",
                                          "double"};

/* Where to evaluate: inside each function's domain, away from kinks. */
static double point(const char *name, unsigned k) {
  static const double dflt[3] = {0.6, 0.35, 1.7};
  if (strstr(name, "acosh") && k == 0)
    return 1.7;
  return dflt[k];
}

/* Builds the IR: @prim(double a0, a1, a2) and @tan<k>(double a0, a1, a2)
 * converting to and from the spelling's types; an out-parameter (an int
 * the call writes) is a fresh slot, duplicated into a second one. */
static void build_ir(char *buf, size_t size, const char *fname, unsigned which,
                     unsigned arity, unsigned ints, unsigned outs) {
  const char *t = type_names[which];
  char params[256] = "", named[256] = "", conv[1024] = "", args[256] = "";
  size_t pl = 0, nl = 0, cl = 0, al = 0;
  for (unsigned k = 0; k < arity; k++) {
    int is_int = (ints >> k) & 1, is_out = (outs >> k) & 1;
    const char *kt = is_int ? "i32" : is_out ? "ptr" : t;
    pl += (size_t)snprintf(params + pl, sizeof params - pl, "%s%s",
                           k ? ", " : "", kt);
    nl += (size_t)snprintf(named + nl, sizeof named - nl, "%s%s %%c%u",
                           k ? ", " : "", kt, k);
    if (is_out)
      cl += (size_t)snprintf(conv + cl, sizeof conv - cl,
                             "  %%c%u = alloca i32\n  %%s%u = alloca i32\n",
                             k, k);
    else if (is_int)
      cl += (size_t)snprintf(conv + cl, sizeof conv - cl,
                             "  %%c%u = fptosi double %%a%u to i32\n", k, k);
    else if (which == 1)
      cl += (size_t)snprintf(conv + cl, sizeof conv - cl,
                             "  %%c%u = fptrunc double %%a%u to float\n", k, k);
    else if (which == 2)
      cl += (size_t)snprintf(conv + cl, sizeof conv - cl,
                             "  %%c%u = fpext double %%a%u to x86_fp80\n", k, k);
    else
      cl += (size_t)snprintf(conv + cl, sizeof conv - cl,
                             "  %%c%u = fadd double %%a%u, 0.0\n", k, k);
    al += (size_t)snprintf(args + al, sizeof args - al, "%s%s %%c%u",
                           k ? ", " : "", kt, k);
  }
  const char *back = which == 1   ? "fpext float %r to double"
                     : which == 2 ? "fptrunc x86_fp80 %r to double"
                                  : "fadd double %r, 0.0";
  size_t n = (size_t)snprintf(
      buf, size,
      REQ_DECLS "declare %s @\"%s\"(%s)\n"
                "define %s @f(%s) {\n"
                "  %%r = call %s @\"%s\"(%s)\n"
                "  ret %s %%r\n"
                "}\n"
                "define double @prim(double %%a0, double %%a1, double %%a2) {\n"
                "%s"
                "  %%r = call %s @f(%s)\n"
                "  %%d = %s\n"
                "  ret double %%d\n"
                "}\n",
      t, fname, params, t, named, t, fname, args, t, conv, t, args, back);
  /* one derivative entry per float argument, seeded along that argument */
  for (unsigned k = 0; k < arity; k++) {
    if (((ints | outs) >> k) & 1)
      continue;
    char rargs[512] = "";
    size_t rl = 0;
    for (unsigned j = 0; j < arity; j++) {
      if ((outs >> j) & 1)
        rl += (size_t)snprintf(rargs + rl, sizeof rargs - rl,
                               ", ptr %%c%u, ptr %%s%u", j, j);
      else if ((ints >> j) & 1)
        rl += (size_t)snprintf(rargs + rl, sizeof rargs - rl, ", i32 %%c%u", j);
      else
        rl += (size_t)snprintf(rargs + rl, sizeof rargs - rl,
                               ", %s %%c%u, %s %s", t, j, t,
                               j == k ? (which == 2 ? "0xK3FFF8000000000000000"
                                                    : "1.0")
                                      : (which == 2 ? "0xK00000000000000000000"
                                                    : "0.0"));
    }
    n += (size_t)snprintf(
        buf + n, size - n,
        "define double @tan%u(double %%a0, double %%a1, double %%a2) {\n"
        "%s"
        "  %%r = call %s (ptr, ...) @__enzyme_fwddiff(ptr @f%s)\n"
        "  %%d = %s\n"
        "  ret double %%d\n"
        "}\n",
        k, conv, t, rargs, back);
  }
}

START_TEST(test_math_table_programs_parse) {
  char why[256] = "";
  ck_assert_msg(ad_math_table_check(why, sizeof why) == 0, "%s", why);
}
END_TEST

/* The check every row's program gets when the table is parsed: what it
 * rejects, and why. */
START_TEST(test_math_program_check) {
  static const struct {
    const char *program;
    unsigned arity, int_args;
    const char *why; /* NULL: accepted */
  } cases[] = {
      {"x cos", 1, 0, NULL},
      {"y itof x y dec powi * y itof nz", 2, 2, NULL},
      {"x y +", 1, 0, "'y' names argument 2 of 1"},
      {"x frob", 1, 0, "unknown token 'frob'"},
      {"x x", 1, 0, "leaves 2 values"},
      {"+", 2, 0, "stack underflow at '+'"},
      {"x y *", 2, 2, "'*' takes a float as operand 2"},
      {"x itof", 1, 0, "'itof' takes an integer as operand 1"},
      {"y dec", 2, 2, "leaves 1 values (an integer)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char why[256] = "";
    int rc = ad_math_program_check(cases[i].program, cases[i].arity,
                                   cases[i].int_args, why, sizeof why);
    if (!cases[i].why) {
      ck_assert_msg(rc == 0, "%s: %s", cases[i].program, why);
      continue;
    }
    ck_assert_msg(rc == -1, "%s accepted", cases[i].program);
    ck_assert_msg(strstr(why, cases[i].why), "%s: got \"%s\", want \"%s\"",
                  cases[i].program, why, cases[i].why);
  }
}
END_TEST

/* The analyses and the rules ask which rule a call gets many times (each
 * activity round, each tangent, each copy layout); the registry answers the
 * families once per call site of a transform. */
START_TEST(test_rule_lookups_once_per_call_site) {
  static const char ir[] =
      "declare double @sin(double)\n"
      "declare double @cos(double)\n"
      "declare double @exp(double)\n"
      "declare double @pow(double, double)\n"
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "define internal double @g(double %x, ptr %p) {\n"
      "  %s = call double @sin(double %x)\n"
      "  %t = alloca double\n"
      "  store double %s, ptr %t\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %t, i64 8, i1 false)\n"
      "  %c = call double @cos(double %s)\n"
      "  %e = call double @exp(double %c)\n"
      "  %w = call double @pow(double %e, double %x)\n"
      "  ret double %w\n"
      "}\n"
      "define double @f(double %x, ptr %p) {\n"
      "  %a = call double @g(double %x, ptr %p)\n"
      "  %b = call double @g(double %a, ptr %p)\n"
      "  %s = call double @sin(double %b)\n"
      "  ret double %s\n"
      "}\n"
      "declare double @__enzyme_fwddiff(...)\n"
      "define double @df(double %x, double %dx, ptr %p, ptr %dp) {\n"
      "  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double "
      "%dx, ptr %p, ptr %dp)\n"
      "  ret double %r\n"
      "}\n";
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_int_eq(
      LLVMParseIRInContext(
          ctx, LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t"),
          &m, &msg),
      0);
  /* the call sites of the functions differentiated (g and f) */
  unsigned sites = 0;
  const char *differentiated[] = {"f", "g"};
  for (int k = 0; k < 2; k++)
    for (LLVMBasicBlockRef bb =
             LLVMGetFirstBasicBlock(LLVMGetNamedFunction(m, differentiated[k]));
         bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        sites += LLVMIsACallInst(i) != NULL;
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  ck_assert_msg(ad_transform_module(e, m, &err) == 0, "%s",
                err ? tanjit_error_message(err) : "");
  unsigned long lookups = ad_engine_rule_lookups(e);
  ck_assert_msg(lookups > 0 && lookups <= sites,
                "%lu rule lookups for %u call sites", lookups, sites);
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(test_math_table) {
  unsigned ran = 0, skipped = 0;
  static char ir[16384];
  for (size_t i = 0; i < ad_math_table_size(); i++) {
    unsigned arity = ad_math_table_arity(i), ints = ad_math_table_int_args(i),
             outs = ad_math_table_out_args(i);
    for (unsigned which = 0; which < 4; which++) {
      const char *base = ad_math_table_name(i, which);
      if (!base)
        continue;
      char fname[96];
      if (which == 3) {
        snprintf(fname, sizeof fname, "%s.f64%s", base, ints ? ".i32" : "");
        if (!LLVMLookupIntrinsicID(fname, strlen(fname))) {
          skipped++;
          continue;
        }
      } else {
        snprintf(fname, sizeof fname, "%s", base);
      }
      build_ir(ir, sizeof ir, fname, which, arity, ints, outs);
      typedef double (*fn3)(double, double, double);
      fn3 prim = (fn3)jit_symbol(ir, "prim", 0);
      double a[3];
      for (unsigned k = 0; k < 3; k++)
        a[k] = (ints >> k) & 1 ? 3.0 : point(base, k);
      for (unsigned k = 0; k < arity; k++) {
        if (((ints | outs) >> k) & 1)
          continue;
        char sym[16];
        snprintf(sym, sizeof sym, "tan%u", k);
        fn3 tan = (fn3)jit_symbol(ir, sym, 0);
        double h = which == 1 ? 1e-3 : 1e-6;
        double ap[3] = {a[0], a[1], a[2]}, am[3] = {a[0], a[1], a[2]};
        ap[k] += h;
        am[k] -= h;
        double fd = (prim(ap[0], ap[1], ap[2]) - prim(am[0], am[1], am[2])) /
                    (2 * h);
        double got = tan(a[0], a[1], a[2]);
        double tol = which == 1 ? 2e-3 : 1e-6;
        ck_assert_msg(fabs(got - fd) <= tol * fmax(1.0, fabs(fd)),
                      "%s (%s) d/darg%u at (%g, %g, %g): engine %.12g, "
                      "finite difference %.12g",
                      fname, type_names[which], k, a[0], a[1], a[2], got, fd);
      }
      ran++;
      close_sessions();
    }
  }
  /* ~50 entries, 3 libm spellings each plus the intrinsics LLVM has */
  ck_assert_msg(ran >= 150, "only %u spellings ran (%u skipped)", ran, skipped);
}
END_TEST

Suite *math_suite(void) {
  Suite *s = suite_create("ad-math");
  TCase *t = tcase_create("table");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, test_math_table_programs_parse);
  tcase_add_test(t, test_math_program_check);
  tcase_add_test(t, test_rule_lookups_once_per_call_site);
  tcase_add_test(t, test_math_table);
  suite_add_tcase(s, t);
  return s;
}
