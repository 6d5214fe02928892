/*
 * A dynamic-language frontend in miniature: it parses a one-line function
 * definition such as
 *
 *     f(x, y) = x * sin(y) + exp(x / y)
 *
 * into LLVM IR with the LLVM-C builder at run time, hands the module to a
 * tanjit session, asks for the derivative by name (tanjit_fwddiff), and
 * prints the gradient next to central finite differences.
 *
 *   usage: embed 'f(x, y) = x * sin(y) + exp(x / y)' 1.5 0.5
 *
 * Grammar:  def  := name '(' params ')' '=' expr
 *           expr := term (('+'|'-') term)*      term := unary (('*'|'/') unary)*
 *           unary:= '-' unary | pow             pow  := atom ('^' unary)?
 *           atom := number | param | name '(' expr ')' | '(' expr ')'
 * Functions: sin cos tan exp log sqrt tanh fabs (as LLVM intrinsics or libm).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "tanjit/tanjit.h"

#define MAX_PARAMS 8

typedef struct parser {
  const char *p;
  char error[256];
  LLVMModuleRef module;
  LLVMBuilderRef b;
  LLVMTypeRef f64;
  char params[MAX_PARAMS][32];
  LLVMValueRef param_values[MAX_PARAMS];
  int n_params;
} parser;

static void skip_space(parser *ps) {
  while (isspace((unsigned char)*ps->p))
    ps->p++;
}

static int accept(parser *ps, char c) {
  skip_space(ps);
  if (*ps->p != c)
    return 0;
  ps->p++;
  return 1;
}

static int read_name(parser *ps, char *out, size_t cap) {
  skip_space(ps);
  size_t n = 0;
  while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n + 1 < cap)
    out[n++] = *ps->p++;
  out[n] = '\0';
  return n > 0 && !isdigit((unsigned char)out[0]);
}

static LLVMValueRef fail(parser *ps, const char *what) {
  if (!ps->error[0])
    snprintf(ps->error, sizeof ps->error, "%s at \"%.20s\"", what, ps->p);
  return NULL;
}

/* One-argument math functions, as the intrinsic or libm name. */
static LLVMValueRef math_function(parser *ps, const char *name) {
  static const char *const intrinsics[][2] = {
      {"sin", "llvm.sin.f64"}, {"cos", "llvm.cos.f64"}, {"exp", "llvm.exp.f64"},
      {"log", "llvm.log.f64"}, {"sqrt", "llvm.sqrt.f64"}, {"fabs", "llvm.fabs.f64"},
      {"tan", "tan"},          {"tanh", "tanh"}};
  for (size_t i = 0; i < sizeof intrinsics / sizeof *intrinsics; i++)
    if (strcmp(name, intrinsics[i][0]) == 0) {
      LLVMValueRef f = LLVMGetNamedFunction(ps->module, intrinsics[i][1]);
      if (!f)
        f = LLVMAddFunction(ps->module, intrinsics[i][1],
                            LLVMFunctionType(ps->f64, &ps->f64, 1, 0));
      return f;
    }
  return NULL;
}

static LLVMValueRef parse_expr(parser *ps);
static LLVMValueRef parse_unary(parser *ps);

static LLVMValueRef parse_atom(parser *ps) {
  skip_space(ps);
  if (accept(ps, '(')) {
    LLVMValueRef v = parse_expr(ps);
    return v && accept(ps, ')') ? v : fail(ps, "expected ')'");
  }
  if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
    char *end;
    double d = strtod(ps->p, &end);
    ps->p = end;
    return LLVMConstReal(ps->f64, d);
  }
  char name[32];
  if (!read_name(ps, name, sizeof name))
    return fail(ps, "expected a number, a parameter or a function");
  for (int i = 0; i < ps->n_params; i++)
    if (strcmp(name, ps->params[i]) == 0)
      return ps->param_values[i];
  LLVMValueRef fn = math_function(ps, name);
  if (!fn)
    return fail(ps, "unknown name");
  if (!accept(ps, '('))
    return fail(ps, "expected '(' after a function name");
  LLVMValueRef arg = parse_expr(ps);
  if (!arg || !accept(ps, ')'))
    return fail(ps, "expected ')'");
  return LLVMBuildCall2(ps->b, LLVMFunctionType(ps->f64, &ps->f64, 1, 0), fn, &arg, 1, "");
}

static LLVMValueRef parse_pow(parser *ps) {
  LLVMValueRef base = parse_atom(ps);
  if (!base || !accept(ps, '^'))
    return base;
  LLVMValueRef exponent = parse_unary(ps);
  if (!exponent)
    return NULL;
  LLVMTypeRef two[] = {ps->f64, ps->f64};
  LLVMValueRef pow = LLVMGetNamedFunction(ps->module, "llvm.pow.f64");
  if (!pow)
    pow = LLVMAddFunction(ps->module, "llvm.pow.f64", LLVMFunctionType(ps->f64, two, 2, 0));
  LLVMValueRef args[] = {base, exponent};
  return LLVMBuildCall2(ps->b, LLVMFunctionType(ps->f64, two, 2, 0), pow, args, 2, "");
}

static LLVMValueRef parse_unary(parser *ps) {
  if (accept(ps, '-')) {
    LLVMValueRef v = parse_unary(ps);
    return v ? LLVMBuildFNeg(ps->b, v, "") : NULL;
  }
  return parse_pow(ps);
}

static LLVMValueRef parse_term(parser *ps) {
  LLVMValueRef v = parse_unary(ps);
  while (v) {
    int mul = accept(ps, '*');
    if (!mul && !accept(ps, '/'))
      break;
    LLVMValueRef r = parse_unary(ps);
    v = !r ? NULL : mul ? LLVMBuildFMul(ps->b, v, r, "") : LLVMBuildFDiv(ps->b, v, r, "");
  }
  return v;
}

static LLVMValueRef parse_expr(parser *ps) {
  LLVMValueRef v = parse_term(ps);
  while (v) {
    int add = accept(ps, '+');
    if (!add && !accept(ps, '-'))
      break;
    LLVMValueRef r = parse_term(ps);
    v = !r ? NULL : add ? LLVMBuildFAdd(ps->b, v, r, "") : LLVMBuildFSub(ps->b, v, r, "");
  }
  return v;
}

/* Builds `double name(double p0, ...)` from the definition; returns the
 * module (the caller's, in ctx) or NULL with ps->error set. */
static LLVMModuleRef compile_definition(LLVMContextRef ctx, const char *text,
                                        char *name, size_t name_cap, int *n_params,
                                        char (*param_names)[32], char *error,
                                        size_t error_cap) {
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.p = text;
  ps.f64 = LLVMDoubleTypeInContext(ctx);
  if (!read_name(&ps, name, name_cap) || !accept(&ps, '(')) {
    snprintf(error, error_cap, "expected `name(params) = expr`");
    return NULL;
  }
  do {
    if (ps.n_params == MAX_PARAMS || !read_name(&ps, ps.params[ps.n_params], 32)) {
      snprintf(error, error_cap, "bad parameter list");
      return NULL;
    }
    ps.n_params++;
  } while (accept(&ps, ','));
  if (!accept(&ps, ')') || !accept(&ps, '=')) {
    snprintf(error, error_cap, "expected `) =` after the parameters");
    return NULL;
  }
  ps.module = LLVMModuleCreateWithNameInContext("expression", ctx);
  LLVMTypeRef params[MAX_PARAMS];
  for (int i = 0; i < ps.n_params; i++)
    params[i] = ps.f64;
  LLVMValueRef fn = LLVMAddFunction(ps.module, name,
                                    LLVMFunctionType(ps.f64, params, (unsigned)ps.n_params, 0));
  for (int i = 0; i < ps.n_params; i++) {
    ps.param_values[i] = LLVMGetParam(fn, (unsigned)i);
    LLVMSetValueName2(ps.param_values[i], ps.params[i], strlen(ps.params[i]));
  }
  ps.b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(ps.b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef body = parse_expr(&ps);
  skip_space(&ps);
  if (body && *ps.p)
    body = fail(&ps, "unexpected text");
  if (body)
    LLVMBuildRet(ps.b, body);
  LLVMDisposeBuilder(ps.b);
  if (!body) {
    snprintf(error, error_cap, "%s", ps.error);
    LLVMDisposeModule(ps.module);
    return NULL;
  }
  *n_params = ps.n_params;
  memcpy(param_names, ps.params, sizeof ps.params);
  return ps.module;
}

/* Calls a double function of n doubles (n <= MAX_PARAMS) through a pointer. */
static double call_primal(void *fn, const double *x, int n) {
  switch (n) {
  case 1: return ((double (*)(double))fn)(x[0]);
  case 2: return ((double (*)(double, double))fn)(x[0], x[1]);
  case 3: return ((double (*)(double, double, double))fn)(x[0], x[1], x[2]);
  default: return ((double (*)(double, double, double, double))fn)(x[0], x[1], x[2], x[3]);
  }
}

/* The derivative interleaves values and tangents: (x0, dx0, x1, dx1, ...). */
static double call_tangent(void *fn, const double *x, const double *dx, int n) {
  switch (n) {
  case 1: return ((double (*)(double, double))fn)(x[0], dx[0]);
  case 2: return ((double (*)(double, double, double, double))fn)(x[0], dx[0], x[1], dx[1]);
  case 3:
    return ((double (*)(double, double, double, double, double, double))fn)(
        x[0], dx[0], x[1], dx[1], x[2], dx[2]);
  default:
    return ((double (*)(double, double, double, double, double, double, double, double))fn)(
        x[0], dx[0], x[1], dx[1], x[2], dx[2], x[3], dx[3]);
  }
}

int main(int argc, char **argv) {
  const char *definition = argc > 1 ? argv[1] : "f(x, y) = x * sin(y) + exp(x / y)";
  char name[32], error[256], params[MAX_PARAMS][32];
  int n = 0;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = compile_definition(ctx, definition, name, sizeof name, &n, params,
                                       error, sizeof error);
  if (!m || n > 4) {
    fprintf(stderr, "embed: %s\n", m ? "at most 4 parameters" : error);
    return 2;
  }
  if (argc > 2 && argc - 2 != n) {
    fprintf(stderr, "embed: %s takes %d values\n", name, n);
    return 2;
  }
  double x[4] = {1.5, 0.5, 0.25, 2.0};
  for (int i = 0; i < n && argc > 2; i++)
    x[i] = strtod(argv[2 + i], NULL);

  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  /* The session takes the module (and disposes it); the context stays ours. */
  if (!s || tanjit_load_module(s, m, &err) != 0) {
    fprintf(stderr, "embed: %s\n", tanjit_error_message(err));
    return 1;
  }
  void *f = tanjit_lookup(s, name, &err);
  tanjit_activity act[4] = {TANJIT_DUP, TANJIT_DUP, TANJIT_DUP, TANJIT_DUP};
  void *df = f ? tanjit_fwddiff(s, name, act, (size_t)n, 1, &err) : NULL;
  if (!df) {
    fprintf(stderr, "embed: %s\n", tanjit_error_message(err));
    return 1;
  }
  printf("%s\n%s = %.12g\n", definition, name, call_primal(f, x, n));
  int status = 0;
  for (int i = 0; i < n; i++) {
    double dx[4] = {0}, xp[4], xm[4];
    dx[i] = 1.0;
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    const double h = 1e-6 * fmax(1.0, fabs(x[i]));
    xp[i] += h;
    xm[i] -= h;
    double tangent = call_tangent(df, x, dx, n);
    double fd = (call_primal(f, xp, n) - call_primal(f, xm, n)) / (2 * h);
    int ok = fabs(tangent - fd) <= 1e-6 * fmax(1.0, fabs(fd));
    status |= !ok;
    printf("  d%s/d%s = %.12g   finite difference %.12g   %s\n", name, params[i],
           tangent, fd, ok ? "ok" : "MISMATCH");
  }
  tanjit_session_free(s);
  LLVMContextDispose(ctx);
  return status;
}
