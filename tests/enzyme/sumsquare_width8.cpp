// Enzyme ForwardModeVector/VectorizedAtLeafNodes/sumsquare.cpp: the
// gradient of a sum of squares, 8 directions per width-8 request
// (enzyme_dupnoneed for the input and the output, the size constant).
//
// The original runs under -enzyme-vectorize-at-leaf-nodes, an Enzyme pass
// option with which one shadow pointer per argument holds the 8 lanes
// interleaved (element-major).  tanjit has no such option; its vector mode
// is Enzyme's default one, with a shadow argument per lane, so here each
// lane gets its own tangent array and output.  The original printed its
// results; here each derivative is checked against 2 x.  std::vector,
// std::array and <random> are replaced by fixed arrays and a small linear
// congruential generator on [0, 1).
extern "C" {
double fabs(double);
int printf(const char *, ...);
}
typedef __SIZE_TYPE__ size_t;

extern int enzyme_width;
extern int enzyme_dupnoneed;
extern int enzyme_const;

// width 8: the input's eight shadows, then the output's eight
extern void __enzyme_fwddiff(void (*)(double const *, double *, size_t), int,
                             size_t, int, double const *, double *, double *,
                             double *, double *, double *, double *, double *,
                             double *, int, double *, double *, double *,
                             double *, double *, double *, double *, double *,
                             double *, int, size_t);

void square_sum(double const *in, double *out, size_t size) {
  double result = 0.0;
  for (int i = 0; i < size; ++i) {
    result += in[i] * in[i];
  }
  *out = result;
}

enum { N = 8, SIZE = 1024 };

static double din[N][SIZE];

template <size_t W>
void dsquare_sum(double const *in, double *derivatives, size_t size) {
  static_assert(W == N, "the request below passes eight lanes");
  double out = 0.0;
  double dout[W] = {0};

  for (size_t i = 0; i < size; i += W) {
    for (size_t j = 0; j < W; ++j)
      din[j][i + j] = 1.0;

    __enzyme_fwddiff(square_sum, enzyme_width, W, enzyme_dupnoneed, in,
                     din[0], din[1], din[2], din[3], din[4], din[5], din[6],
                     din[7], enzyme_dupnoneed, &out, &dout[0], &dout[1],
                     &dout[2], &dout[3], &dout[4], &dout[5], &dout[6],
                     &dout[7], enzyme_const, size);

    for (size_t j = 0; j < W; ++j) {
      derivatives[i + j] = dout[j];
      din[j][i + j] = 0.0;
    }
  }
}

static unsigned long long lcg_state = 1;
static double uniform01() {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) * 0x1.0p-53;
}

int main() {
  static double control[SIZE], derivatives[SIZE];
  for (size_t i = 0; i < SIZE; ++i)
    control[i] = uniform01();

  dsquare_sum<N>(control, derivatives, SIZE);

  int failures = 0;
  for (size_t i = 0; i < SIZE; ++i)
    if (!(fabs(derivatives[i] - 2 * control[i]) <= 1e-12)) {
      if (failures++ < 10)
        printf("MISMATCH [%zu]: control %.17g, derivative %.17g, expected "
               "%.17g\n",
               i, control[i], derivatives[i], 2 * control[i]);
    }
  if (failures) {
    printf("%d mismatches\n", failures);
    return 1;
  }
  printf("sumsquare_width8: ok\n");
  return 0;
}
