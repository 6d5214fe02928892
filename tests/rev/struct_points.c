#include "rev_check.h"
typedef struct point {
  double x, y;
} point;
/* an array of structs: the polygon's area and perimeter squared */
static double polygon(point *p, int n) {
  double area = 0, per = 0;
  for (int i = 0; i < n; i++) {
    point a = p[i], b = p[(i + 1) % n];
    area += a.x * b.y - b.x * a.y;
    per += (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
  }
  return 0.5 * area + per;
}
static double struct_points(double *x, int n) { return polygon((point *)x, n / 2); }
RC_ARRAY_TEST(struct_points, 8, 0, 0, 1.0, 0.1, 1.2, 0.9, -0.1, 1.1)
