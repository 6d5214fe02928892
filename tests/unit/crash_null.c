/* A program whose JIT-compiled function dereferences NULL: the debugger
 * test (gdb_backtrace.sh) expects gdb to name crash_here and this file's
 * line of the dereference. */
#include <stddef.h>

static int *nowhere(void) { return NULL; }

__attribute__((noinline)) int crash_here(int x) {
  int *p = nowhere();
  return *p + x; /* CRASH LINE */
}

int main(void) { return crash_here(1); }
