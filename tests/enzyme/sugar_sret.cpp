// A function that returns through a hidden sret pointer (a std::vector, a
// struct of three doubles), differentiated through the request Enzyme's
// C++ header (<enzyme/enzyme>) writes for enzyme::autodiff<enzyme::Forward>
// (CppSugar/sret.cpp): the request itself returns through sret, and its
// result memory holds the primal (after enzyme_primal_return) then one
// tangent per lane, each laid out as the function's result; the function's
// own result pointer is not among the request's arguments.
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_interleave, enzyme_width;
extern int enzyme_noret, enzyme_primal_return, enzyme_dup_return,
    enzyme_const_return;

template <typename R, typename... A> R __enzyme_fwddiff(void *, A...);

struct vec3 {
  double x, y, z;
};
template <typename T> struct one {
  T value;
};
template <typename T> struct two {
  T first, second;
};
template <typename T> struct three {
  T first, second, third;
};

// basic_elasticity_kernel of Enzyme's test, with arithmetic on it
static std::vector<double> scaled(const std::vector<double> &u, double s) {
  std::vector<double> r(u.size());
  for (size_t i = 0; i < u.size(); i++)
    r[i] = s * u[i] * u[i];
  return r;
}

// elasticity_kernel: the result is a copy of the argument
static std::vector<double> copied(const std::vector<double> &u) { return u; }

static vec3 cross(const vec3 &a, vec3 b) {
  return vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
              a.x * b.y - a.y * b.x};
}

int main() {
  std::vector<double> u{3.4, 5.7}, du{9.2, 11.3};
  double s = 1.5, ds = 0.25;

  // DuplicatedNoNeed result: the tangent alone
  {
    auto t = __enzyme_fwddiff<one<std::vector<double>>>(
        (void *)scaled, &enzyme_dup_return, &enzyme_noret, enzyme_dup, &u,
        enzyme_dup, s, enzyme_interleave, &du, ds);
    for (int i = 0; i < 2; i++)
      APPROX_EQ(t.value[i], ds * u[i] * u[i] + 2 * s * u[i] * du[i], 1e-12);
  }
  // Duplicated result: {primal, tangent}
  {
    auto t = __enzyme_fwddiff<two<std::vector<double>>>(
        (void *)scaled, &enzyme_dup_return, &enzyme_primal_return, enzyme_dup,
        &u, enzyme_const, s, enzyme_interleave, &du);
    for (int i = 0; i < 2; i++) {
      APPROX_EQ(t.first[i], s * u[i] * u[i], 1e-12);
      APPROX_EQ(t.second[i], 2 * s * u[i] * du[i], 1e-12);
    }
  }
  {
    auto t = __enzyme_fwddiff<two<std::vector<double>>>(
        (void *)copied, &enzyme_dup_return, &enzyme_primal_return, enzyme_dup,
        &u, enzyme_interleave, &du);
    for (int i = 0; i < 2; i++) {
      APPROX_EQ(t.first[i], u[i], 0);
      APPROX_EQ(t.second[i], du[i], 0);
    }
  }
  // Const result with the primal, nothing active: the function runs
  {
    auto t = __enzyme_fwddiff<one<std::vector<double>>>(
        (void *)scaled, &enzyme_const_return, &enzyme_primal_return,
        enzyme_const, &u, enzyme_const, s);
    APPROX_EQ(t.value[1], s * u[1] * u[1], 1e-12);
  }

  // A plain struct through sret, the markers after the arguments they
  // qualify (no interleave), two lanes: {primal, tangent 1, tangent 2}
  vec3 a{1.0, 2.0, 3.0}, b{-0.5, 4.0, 0.25};
  vec3 da1{1.0, 0.0, 0.0}, da2{0.0, 0.0, 1.0};
  {
    auto t = __enzyme_fwddiff<three<vec3>>(
        (void *)cross, &enzyme_dup_return, &enzyme_primal_return, enzyme_width,
        2, enzyme_dup, &a, &da1, &da2, enzyme_const, b);
    vec3 p = cross(a, b), t1 = cross(da1, b), t2 = cross(da2, b);
    APPROX_EQ(t.first.x, p.x, 1e-15);
    APPROX_EQ(t.first.z, p.z, 1e-15);
    APPROX_EQ(t.second.x, t1.x, 1e-15);
    APPROX_EQ(t.second.y, t1.y, 1e-15);
    APPROX_EQ(t.second.z, t1.z, 1e-15);
    APPROX_EQ(t.third.x, t2.x, 1e-15);
    APPROX_EQ(t.third.y, t2.y, 1e-15);
    APPROX_EQ(t.third.z, t2.z, 1e-15);
  }
  return enzyme_compat_result();
}
