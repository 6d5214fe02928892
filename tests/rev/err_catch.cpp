// A catch handler that returns normally: refused in reverse mode.
extern "C" double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) static double checked(double x) {
  if (x > 100)
    throw 1;
  return x * x;
}
static double f(double x) {
  try {
    return checked(x);
  } catch (...) {
    return 0;
  }
}
int main() { return __enzyme_autodiff((void *)f, 2.0) != 4.0; }
