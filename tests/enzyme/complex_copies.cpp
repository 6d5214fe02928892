/*
 * std::complex values copied as whole objects (issue 15, item 9): a mixed
 * radix FFT's generic butterfly (a DFT of p points through a variable-length
 * scratch array, as KISS FFT's C++ header writes it), for complex<float>
 * and complex<double>, and struct copies into local and heap arrays.  At
 * -O2 clang moves a complex<float> as one i64 and takes its halves with
 * `lshr 32` and `trunc` before a bitcast to floats: byte moves, which type
 * analysis once took for integer arithmetic, leaving those floats without
 * tangents (a silently wrong derivative).  The butterfly is linear, so its
 * tangent is the butterfly of the tangent; the rest is checked against
 * central finite differences.
 */
#include "enzyme_compat.h"

#include <complex>
#include <vector>

extern "C" void __enzyme_fwddiff_void(void *, ...) __asm__("__enzyme_fwddiff");

template <typename T>
void butterfly(std::complex<T> *out, const std::complex<T> *twiddles,
               std::size_t p) {
  std::complex<T> scratch[p];
  for (std::size_t q = 0; q < p; ++q)
    scratch[q] = out[q];
  for (std::size_t k = 0; k < p; ++k) {
    out[k] = scratch[0];
    for (std::size_t q = 1; q < p; ++q)
      out[k] += scratch[q] * twiddles[(q * k) % p];
  }
}

template <typename T> static void check_butterfly(std::size_t p, double tol) {
  std::vector<std::complex<T>> x(p), dx(p), tw(p), ref(p);
  for (std::size_t i = 0; i < p; i++) {
    x[i] = std::complex<T>(T(i + 1), T(0.5) * T(i));
    dx[i] = std::complex<T>(T(1 + i), T(-1));
    tw[i] = std::polar(T(1), T(-2 * M_PI * double(i) / double(p)));
    ref[i] = dx[i];
  }
  __enzyme_fwddiff_void((void *)butterfly<T>, enzyme_dup, x.data(), dx.data(),
                        enzyme_const, tw.data(), p);
  butterfly<T>(ref.data(), tw.data(), p);
  for (std::size_t i = 0; i < p; i++) {
    APPROX_EQ(dx[i].real(), ref[i].real(), tol);
    APPROX_EQ(dx[i].imag(), ref[i].imag(), tol);
  }
}

/* complex values copied whole into a local array, a heap array and a
 * struct member, then combined */
struct Holder {
  int tag;
  std::complex<double> c[3];
};

template <typename T> double copies(double x) {
  typedef std::complex<T> C;
  C src[3] = {C(T(x), T(2 * x)), C(T(x * x), T(1)), C(T(1), T(-x))};
  C local[3];
  for (int i = 0; i < 3; i++)
    local[i] = src[2 - i];
  C *heap = new C[3];
  for (int i = 0; i < 3; i++)
    heap[i] = local[i] * src[i];
  Holder h;
  h.tag = 3;
  for (int i = 0; i < 3; i++)
    h.c[i] = std::complex<double>(heap[i].real(), heap[i].imag());
  Holder g = h;
  delete[] heap;
  double s = 0;
  for (int i = 0; i < g.tag; i++)
    s += std::norm(g.c[i]);
  return s;
}

template <typename T> static void check_copies(double x, double tol) {
  double d = __enzyme_fwddiff((void *)copies<T>, x, 1.0);
  double h = sizeof(T) == sizeof(float) ? 1e-2 : 1e-5;
  double fd = (copies<T>(x + h) - copies<T>(x - h)) / (2 * h);
  APPROX_EQ(d, fd, tol * (1 + __builtin_fabs(fd)));
}

int main() {
  for (std::size_t p = 2; p <= 7; p++) {
    check_butterfly<float>(p, 1e-4);
    check_butterfly<double>(p, 1e-12);
  }
  check_copies<float>(0.7, 2e-3);
  check_copies<double>(0.7, 1e-6);
  return enzyme_compat_result();
}
