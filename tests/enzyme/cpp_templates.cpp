// C++ requests, as Enzyme's own C++ tests and users declare them: a variadic
// template whose instantiations are mangled (_Z16__enzyme_fwddiffIdJ...),
// a member function through an enzyme_dup pointer, a function template, a
// void request with enzyme_dupnoneed and enzyme_const.  No C++ library
// headers, so it builds wherever clang does.
extern "C" {
double sqrt(double);
double sin(double);
double cos(double);
double fabs(double);
int printf(const char *, ...);
}

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

static int failures;
static void check(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("MISMATCH %s: got %.17g, expected %.17g\n", what, got, want);
    failures++;
  }
}

double square(double x) { return x * x; }

struct Vec2 {
  double x, y;
  double norm() const { return sqrt(x * x + y * y); }
};
double vec_norm(const Vec2 *v) { return v->norm(); }

template <typename T> T cube(T x) { return x * x * x; }

void scale(const double *in, double *out, double k, int n) {
  for (int i = 0; i < n; i++)
    out[i] = k * sin(in[i]);
}

int main() {
  check("square", __enzyme_fwddiff<double>((void *)square, 3.0, 1.0), 6.0, 1e-14);
  Vec2 v{3, 4}, dv{1, 2};
  check("norm", __enzyme_fwddiff<double>((void *)vec_norm, enzyme_dup, &v, &dv),
        (3 * 1 + 4 * 2) / 5.0, 1e-14);
  check("cube<float>",
        __enzyme_fwddiff<float>((void *)cube<float>, 2.0f, 1.0f), 12.0, 1e-6);
  double in[3] = {0.1, 0.2, 0.3}, din[3] = {1, 1, 1}, out[3], dout[3];
  __enzyme_fwddiff<void>((void *)scale, enzyme_dup, in, din, enzyme_dupnoneed,
                         out, dout, enzyme_const, 2.5, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check("scale", dout[i], 2.5 * cos(in[i]), 1e-14);
  if (failures)
    return 1;
  printf("cpp_templates: ok\n");
  return 0;
}
