// C++ shadow objects whose vtable pointer is the shadow of the primal's
// vtable, as Enzyme's virtualshadow3 builds them:
//   *(void **)d = __enzyme_virtualreverse(*(void **)d)
// Two classes override a virtual method (and have virtual destructors); the
// gradient flows through virtual calls into the objects' members (their
// shadows seeded nonzero) and into x.  The shadow vtable keeps the
// original's layout (RTTI: typeid of a shadow object is its class's) with
// each virtual function's slot holding its {augmented, reverse} table,
// which is called here by hand too.  Clang folds the vtable pointer into a
// constant from -O1 on; at -O0 it is loaded from the object at run time,
// which __enzyme_virtualreverse refuses (as Enzyme does), so this runs at
// -O1..-O3.
#define RC_OWN_PROTOTYPE
#include <math.h>
#include <typeinfo>
#include "rev_check.h"
#include "split_abi.h"
extern "C" double __enzyme_autodiff(void *, ...);
template <typename T> T __enzyme_virtualreverse(T);

struct force {
  virtual double energy(double x) const = 0;
  virtual ~force() {}
  double k;
};
struct spring : force {
  double energy(double x) const override { return 0.5 * k * x * x; }
};
struct pendulum : force {
  double energy(double x) const override { return k * (1 - cos(x)); }
};

// noinline: the calls stay virtual (through the vtable) at -O1..-O3
__attribute__((noinline)) static double total(const force &a, const force &b,
                                              double x) {
  return a.energy(x) * b.energy(x + 0.5) + b.energy(a.k * x);
}

static double total_of(double ka, double kb, double x) {
  spring a;
  pendulum b;
  a.k = ka;
  b.k = kb;
  return total(a, b, x);
}

// [ka, kb, x] -> total + <seeds, [ka, kb]> (the members are only read)
static long double run(const long double *p) {
  return total_of((double)p[0], (double)p[1], (double)p[2]) +
         rc_seed_value(0) * p[0] + rc_seed_value(1) * p[1];
}


int main() {
  long double p[3] = {1.5, 0.75, 0.6}, got[3];
  force *a = new spring, *b = new pendulum;
  a->k = (double)p[0];
  b->k = (double)p[1];
  // each right after its new, so that clang folds its vtable pointer
  force *da = new spring;
  *(void **)da = __enzyme_virtualreverse(*(void **)da);
  force *db = new pendulum;
  *(void **)db = __enzyme_virtualreverse(*(void **)db);
  rc_expect("typeid of a shadow spring", typeid(*da) == typeid(spring), 1, 0);
  rc_expect("typeid of a shadow pendulum", typeid(*db) == typeid(pendulum), 1,
            0);
  da->k = rc_seed_value(0);
  db->k = rc_seed_value(1);
  got[2] = __enzyme_autodiff((void *)total, enzyme_dup, a, da, enzyme_dup, b,
                             db, enzyme_out, (double)p[2]);
  got[0] = da->k;
  got[1] = db->k;
  rc_check("cpp_shadow_vtable", run, p, got, 3);

  // slot 0 of the shadow vtable: energy's {augmented, reverse} table
  void **table = (void **)(*(void ***)db)[0];
  augmented (*aug)(const force *, force *, double) =
      (augmented(*)(const force *, force *, double))table[0];
  gradient (*rev)(const force *, force *, double, double, void *) =
      (gradient(*)(const force *, force *, double, double, void *))table[1];
  db->k = 0;
  double x = 0.9;
  augmented r = aug(b, db, x);
  rc_expect("pendulum energy through its shadow slot", r.primal,
            b->energy(x), 1e-12);
  gradient g = rev(b, db, x, 2.0, r.tape);
  rc_expect("d energy / dx through the slot", g.dx, 2.0 * b->k * sin(x),
            1e-12);
  rc_expect("d energy / dk through the slot", db->k, 2.0 * (1 - cos(x)),
            1e-12);
  delete a;
  delete b;
  // a shadow's destructor slots hold tables, not functions: no delete
  ::operator delete(da);
  ::operator delete(db);
  return rc_result();
}
