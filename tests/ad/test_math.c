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
int ad_math_table_check(char *why, size_t whysize);

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
 * converting to and from the spelling's types. */
static void build_ir(char *buf, size_t size, const char *fname, unsigned which,
                     unsigned arity, unsigned ints) {
  const char *t = type_names[which];
  char params[256] = "", named[256] = "", conv[1024] = "", args[256] = "";
  size_t pl = 0, nl = 0, cl = 0, al = 0;
  for (unsigned k = 0; k < arity; k++) {
    int is_int = (ints >> k) & 1;
    pl += (size_t)snprintf(params + pl, sizeof params - pl, "%s%s",
                           k ? ", " : "", is_int ? "i32" : t);
    nl += (size_t)snprintf(named + nl, sizeof named - nl, "%s%s %%c%u",
                           k ? ", " : "", is_int ? "i32" : t, k);
    if (is_int)
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
                           k ? ", " : "", is_int ? "i32" : t, k);
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
    if ((ints >> k) & 1)
      continue;
    char rargs[512] = "";
    size_t rl = 0;
    for (unsigned j = 0; j < arity; j++) {
      if ((ints >> j) & 1)
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

START_TEST(test_math_table) {
  unsigned ran = 0, skipped = 0;
  static char ir[16384];
  for (size_t i = 0; i < ad_math_table_size(); i++) {
    unsigned arity = ad_math_table_arity(i), ints = ad_math_table_int_args(i);
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
      build_ir(ir, sizeof ir, fname, which, arity, ints);
      typedef double (*fn3)(double, double, double);
      fn3 prim = (fn3)jit_symbol(ir, "prim", 0);
      double a[3];
      for (unsigned k = 0; k < 3; k++)
        a[k] = (ints >> k) & 1 ? 3.0 : point(base, k);
      for (unsigned k = 0; k < arity; k++) {
        if ((ints >> k) & 1)
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
  tcase_add_test(t, test_math_table);
  suite_add_tcase(s, t);
  return s;
}
