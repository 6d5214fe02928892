/* Throwing an active value: the exception object has no shadow, so the
 * request fails, naming the throw (a handler computing the value from x
 * again is the way: see exceptions.cpp). */
extern double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double thrower(double x) {
  if (x > 1)
    throw x * 2;
  return x;
}

double f(double x) {
  try {
    return thrower(x);
  } catch (double v) {
    return v * x;
  }
}

int main() { return __enzyme_fwddiff((void *)f, 3.0, 1.0) > 0; }
