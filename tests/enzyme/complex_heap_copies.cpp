/*
 * std::complex<double> copied whole into heap memory, built with exceptions
 * on (issue 15, item 9): std::vector copies, a range constructor,
 * push_back, a struct returned by value and std::copy into a new[] array.
 * With exceptions on, operator new is reached through invoke; the memory
 * it returns gets its shadow only once activity analysis sees through the
 * invoke as through a call (before, -O2 failed with "llvm.memcpy copies
 * active memory into memory with no shadow" and -O0 lost tangents
 * silently).  Checked against central finite differences.
 */
#include "enzyme_compat.h"

#include <complex>
#include <vector>

typedef std::complex<double> cpx;

struct Block {
  cpx a[4];
};

__attribute__((noinline)) Block make_block(double x) {
  Block b;
  for (int i = 0; i < 4; i++)
    b.a[i] = cpx(x * i, x);
  return b;
}

double copies(double x) {
  std::vector<cpx> in(4);
  for (int i = 0; i < 4; i++)
    in[i] = cpx(x * i, x + i);
  std::vector<cpx> copy = in;
  std::vector<cpx> range(copy.begin(), copy.end());
  range.push_back(in[1]);
  Block b = make_block(x);
  cpx *heap = new cpx[4];
  std::copy(b.a, b.a + 4, heap);
  double s = 0;
  for (const cpx &z : range)
    s += std::norm(z);
  for (int i = 0; i < 4; i++)
    s += std::abs(heap[i] * b.a[i]);
  delete[] heap;
  return s;
}

int main() {
  for (double x : {0.4, 1.3}) {
    double d = __enzyme_fwddiff((void *)copies, x, 1.0);
    double h = 1e-6;
    double fd = (copies(x + h) - copies(x - h)) / (2 * h);
    APPROX_EQ(d, fd, 1e-6 * (1 + fabs(fd)));
  }
  return enzyme_compat_result();
}
