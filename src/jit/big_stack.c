/*
 * A large stack for LLVM's recursive algorithms.
 *
 * LLVM's IR parser, bitcode reader, verifier, constant folder, optimizer,
 * bitcode writer and code generator recurse once per level of nesting of
 * a type, constant expression or metadata node (issue 10: constant
 * expressions 10,000 deep, [1 x ...] 50,000 deep, !{!{...}} 100,000 deep
 * overflow a host's 8 MiB main stack).  Every public call that reaches them
 * runs its work on a thread with JIT_BIG_STACK_BYTES of stack and waits for
 * it.  The stack is address space reserved by mmap: pages are committed
 * only as the recursion touches them, so a shallow module costs a thread
 * creation (tens of microseconds), not memory.
 *
 * ORC compiles a module on the thread that looks its symbols up, so a
 * lookup itself runs on the big stack; thread-locals the lookup path uses
 * (jit_frontend_lookup, the transform error, diagnostics) live on that one
 * thread from start to end.  Nested calls (a lookup inside tanjit_fwddiff)
 * run in place, on the big stack already, so a recursive jit_lock held by
 * the worker is never waited for by a second worker.
 */
#include <pthread.h>

#include "jit/jit.h"

static _Thread_local int on_big_stack;

typedef struct big_stack_job {
  void (*fn)(void *);
  void *arg;
} big_stack_job;

static void *run_job(void *p) {
  big_stack_job *job = p;
  on_big_stack = 1;
  job->fn(job->arg);
  jit_clear_diagnostic_errors(); /* thread-local text nobody took */
  return NULL;
}

int jit_on_big_stack(void) { return on_big_stack; }

void jit_run_on_big_stack(void (*fn)(void *), void *arg) {
  if (on_big_stack) {
    fn(arg);
    return;
  }
  big_stack_job job = {fn, arg};
  /* Halve the request where the address space is limited (RLIMIT_AS, a
   * 32-bit host); below the smallest size, run here rather than fail. */
  for (size_t size = JIT_BIG_STACK_BYTES; size >= JIT_BIG_STACK_MIN_BYTES;
       size /= 2) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
      break;
    pthread_t worker;
    int rc = pthread_attr_setstacksize(&attr, size);
    if (rc == 0)
      rc = pthread_create(&worker, &attr, run_job, &job);
    pthread_attr_destroy(&attr);
    if (rc == 0) {
      pthread_join(worker, NULL);
      return;
    }
  }
  fn(arg);
}
