/* A batch request without enzyme_width fails, naming the function. */
extern double __enzyme_batch(void *, ...);
extern int enzyme_vector;

double square(double x) { return x * x; }

int main(void) {
  return (int)__enzyme_batch((void *)square, enzyme_vector, 1.0);
}
