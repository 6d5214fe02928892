// Operator overloading on a small Vec3, positions in a std::array of them,
// range-for over pairs: a Lennard-Jones cluster energy plus a torsion term
// through the cross product (both modes).
#include <array>
#include <cmath>
#include "both_modes.h"
struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  Vec3 &operator+=(const Vec3 &o) { x += o.x, y += o.y, z += o.z; return *this; }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  Vec3 cross(const Vec3 &o) const {
    return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
  }
  double norm() const { return std::sqrt(dot(*this)); }
};
static double cluster(double *x, int n) {
  (void)n;
  std::array<Vec3, 4> pos;
  int k = 0;
  for (Vec3 &p : pos) { p = {x[k], x[k + 1], x[k + 2]}; k += 3; }
  double e = 0;
  for (size_t i = 0; i < pos.size(); i++)
    for (size_t j = i + 1; j < pos.size(); j++) {
      double r = (pos[i] - pos[j]).norm();
      double s6 = std::pow(1.0 / r, 6);
      e += 4 * (s6 * s6 - s6);
    }
  Vec3 c{0, 0, 0};
  for (const Vec3 &p : pos) c += p * 0.25;
  Vec3 a = pos[1] - pos[0], b = pos[2] - pos[1];
  return e + a.cross(b).norm() + 0.1 * c.dot(c);
}
// near the potential's minimum (r ~ 1.12) its fifth derivatives are large
// enough to spoil the finite differences' step: the cluster is spread out
static const double x0[12] = {0, 0, 0, 1.45, 0.1, 0, 0.7, 1.3, 0.1, 0.5, 0.4, 1.3};
static const double dir[12] = {0.1, -0.1, 0.2, 0.05, 0.3, -0.2, 0.1, 0.1, -0.3, 0.25, -0.05, 0.15};
BM_ARRAY_BOTH(cluster, 12, x0, dir)
int main() {
  both_cluster();
  return rc_result();
}
