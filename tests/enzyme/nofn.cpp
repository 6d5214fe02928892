// Enzyme ForwardMode/nofn.cpp, a negative test: the function to
// differentiate reaches __enzyme_fwddiff through a function-pointer
// parameter of a function template, so at -O0 the request's first argument
// is a value loaded from memory, not a function.  Enzyme reports "failed to
// find fn to differentiate"; tanjit must fail as clearly (meson checks the
// message), never crash.
extern "C" int printf(const char *, ...);

extern int enzyme_dup;
extern int enzyme_out;
extern int enzyme_const;

template <typename return_type, typename... T>
extern return_type __enzyme_fwddiff(void *, T...);

double square(double x) { return x * x; }

template <typename function, typename T>
auto jvp(function f, T arg, T darg) {
  using output_type = decltype(f(arg));
  return __enzyme_fwddiff<output_type>((void *)f, enzyme_dup, arg, darg);
}

int main() {
  // calling fwddiff with the same args in a function template crashes
  auto output2 = jvp(square, 1.0, 1.0);
  printf("%f\n", output2);
}
