// A std::list<double> filled and summed.  Its header and its nodes are
// linked by the same pointers, so type analysis takes them for one
// object, in which the header's size counter lies where a node's double
// does: from -O1 the counter's `add i64 %n, 1` is integer arithmetic on
// what type analysis takes for an active float's bits.  Enzyme refuses
// the program too; the message names the load and says both readings of
// its bytes, not that a float was reinterpreted.  (At -O0 the list's
// _M_hook, compiled into libstdc++, has no body here: another error.)
#include <list>
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" int enzyme_dup, enzyme_const;

static double sum_of_squares(const double *x, int n) {
  std::list<double> values;
  for (int i = 0; i < n; ++i)
    values.push_back(x[i] * x[i]);
  double s = 0;
  for (double v : values)
    s += v;
  return s;
}

int main() {
  double x[3] = {0.5, -1.0, 2.0}, dx[3] = {0, 0, 0};
  __enzyme_autodiff((void *)sum_of_squares, enzyme_dup, x, dx, enzyme_const, 3);
  return dx[0] == 1.0 ? 0 : 1;
}
