// A request whose sret result is too small for what it asks of a function
// that returns through sret: the primal and a tangent (two vec3) into room
// for one.  It must fail, naming the sizes, not write past the result.
extern int enzyme_dup, enzyme_dup_return, enzyme_primal_return;
template <typename R, typename... A> R __enzyme_fwddiff(void *, A...);

struct vec3 {
  double x, y, z;
};

static vec3 twice(const vec3 &a) { return vec3{2 * a.x, 2 * a.y, 2 * a.z}; }

int main() {
  vec3 a{1, 2, 3}, da{1, 0, 0};
  vec3 r = __enzyme_fwddiff<vec3>((void *)twice, &enzyme_dup_return,
                                  &enzyme_primal_return, enzyme_dup, &a, &da);
  return r.x != 2;
}
