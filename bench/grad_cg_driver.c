/* The gradient benchmark's side-by-side driver: grad_kernels.c's losses
 * (included, its main left out), each primal and each gradient called REPS
 * times inside its own measured window (cg_on / cg_off_dump: callgrind
 * windows with bench/cgctl.c, a stopwatch with bench/timectl.c), labelled
 * "<loss>/primal" and "<loss>/grad", after an empty loop "noop/primal"
 * whose cost cg_parse.py subtracts.  The same file is compiled for tanjit
 * (its CLI, or clang IR) and with Enzyme's plugin, so only the gradients
 * differ.  Each gradient is checked against finite differences first; the
 * exit status is nonzero if one disagrees.
 * Usage (under `tanjit run ... --lib LIB --`): REPS [LOSS-NAME-PART] */
#define GRAD_BENCH_NO_MAIN
#include "grad_kernels.c"

void cg_on(void);
void cg_off_dump(const char *label);

NOINLINE double noop_loss(const double *in) {
  BARRIER();
  return in[0];
}

int main(int argc, char **argv) {
  long reps = argc > 1 ? atol(argv[1]) : 100;
  const char *only = argc > 2 ? argv[2] : NULL;
  char label[96];
  loss_fn volatile noop = noop_loss;
  volatile double sink = 0;
  int bad = 0;
  {
    double a = 0;
    cg_on();
    for (long r = 0; r < reps; r++) {
      sink = noop(&a);
      BARRIER();
    }
    cg_off_dump("noop/primal");
  }
  for (size_t k = 0; k < NLOSSES; k++) {
    const struct loss *kn = &losses[k];
    if (only && !strstr(kn->name, only))
      continue;
    double *in = alloc_doubles(kn->n_in), *din = alloc_doubles(kn->n_in);
    make_input(kn, in);
    if (!gradient_agrees(kn, in))
      bad = 1;
    sink = kn->primal(in);
    kn->gradient(in, din);
    snprintf(label, sizeof label, "%s/primal", kn->name);
    cg_on();
    for (long r = 0; r < reps; r++) {
      sink = kn->primal(in);
      BARRIER();
    }
    cg_off_dump(label);
    snprintf(label, sizeof label, "%s/grad", kn->name);
    cg_on();
    for (long r = 0; r < reps; r++) {
      kn->gradient(in, din);
      BARRIER();
    }
    cg_off_dump(label);
    printf("%s done (din[0]=%g)\n", kn->name, din[0]);
    free(in);
    free(din);
  }
  (void)sink;
  return bad;
}
