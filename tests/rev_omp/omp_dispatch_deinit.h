/* clang 19 ends each dynamic or guided loop with __kmpc_dispatch_deinit,
 * which libomp 14 (the libomp these tests load) predates; clang 14 called
 * nothing there, so a no-op is libomp 14's behaviour.  Programs that run
 * on the libomp of their clang's version need no such definition. */
#ifndef OMP_DISPATCH_DEINIT_H
#define OMP_DISPATCH_DEINIT_H
void __kmpc_dispatch_deinit(void *loc, int gtid);
void __kmpc_dispatch_deinit(void *loc, int gtid) {
  (void)loc;
  (void)gtid;
}
#endif
