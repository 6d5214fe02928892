/*
 * The BLAS/LAPACK routine table's vocabulary, shared by the forward rules
 * (rules/blas.c, which holds the table: one row per routine, its
 * arguments by role in Fortran order) and the reverse ones (rev/blas.c,
 * which reads the same rows: no second table of names, interfaces or
 * precisions).
 */
#ifndef TANJIT_AD_RULES_BLAS_H
#define TANJIT_AD_RULES_BLAS_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

struct ad_call_rule;

/* What an argument is for; its class (option, integer, scalar, array)
 * follows from the role (class_of). */
typedef enum blas_role {
  R_END = 0,
  R_LAYOUT, R_TRANS, R_TRANSB, R_UPLO, R_SIDE, R_DIAG, /* options */
  R_M, R_N, R_K, R_NRHS, R_LDA, R_LDB, R_LDC, R_KL, R_KU, R_INCX, R_INCY, /* integers */
  R_ALPHA, R_BETA, R_CFROM, R_CTO,          /* scalars */
  R_A, R_B, R_C, R_X, R_Y,                  /* arrays */
  R_INFO,                                   /* LAPACK's status (int out) */
  R_HANDLE, /* cuBLAS's handle, before the roles (passed on as it is) */
  R_RESULT, /* cuBLAS _v2's result pointer, after them (dot, nrm2) */
  R_COUNT
} blas_role;

typedef enum role_class {
  C_OPTION, C_INT, C_SCALAR, C_ARRAY, C_INFO, C_HANDLE, C_RESULT
} role_class;

static inline role_class class_of(unsigned r) {
  if (r <= R_DIAG)
    return C_OPTION;
  if (r <= R_INCY)
    return C_INT;
  if (r <= R_BETA)
    return C_SCALAR;
  if (r <= R_Y)
    return C_ARRAY;
  if (r == R_INFO)
    return C_INFO;
  return r == R_HANDLE ? C_HANDLE : C_RESULT;
}

typedef enum blas_iface {
  IF_CBLAS,        /* cblas_<p><base> */
  IF_F77,          /* <p><base>_ */
  IF_F77_64,       /* <p><base>_64_ */
  IF_F77_64_OPEN,  /* <p><base>64_ */
  /* cuBLAS: cublas<P><base>, the handle first, no layout (column major),
   * options as its enums by value, integers by value, scalars by
   * pointer; _v2 passes dot's and nrm2's result through a last pointer
   * (without it they return it); _64: 8-byte integers */
  IF_CUBLAS,       /* cublas<P><base> */
  IF_CUBLAS_V2,    /* cublas<P><base>_v2 */
  IF_CUBLAS_64,    /* cublas<P><base>_64 */
  IF_CUBLAS_V2_64, /* cublas<P><base>_v2_64 */
  IF_COUNT
} blas_iface;

static inline int ad_blas_is_fortran(blas_iface i) {
  return i == IF_F77 || i == IF_F77_64 || i == IF_F77_64_OPEN;
}
static inline int ad_blas_is_cublas(blas_iface i) { return i >= IF_CUBLAS; }
/* Whether dot and nrm2 write their result through R_RESULT. */
static inline int ad_blas_result_by_pointer(blas_iface i) {
  return i == IF_CUBLAS_V2 || i == IF_CUBLAS_V2_64;
}
enum { PREC_D, PREC_S, PREC_COUNT };

typedef enum blas_routine_id {
  RT_DOT, RT_NRM2, RT_AXPY, RT_SCAL, RT_GEMV, RT_SYMV, RT_GEMM, RT_SYRK,
  RT_SYR2K, RT_POTRF, RT_COPY, RT_TRSM, RT_TRMM, RT_LACPY, RT_LASCL,
  RT_GER, RT_SYR2, RT_SYMM, /* called by reverse mode's adjoints only */
  RT_TRMV, RT_POTRS, RT_TRTRS, /* rules in reverse mode only (forward
                                 refuses them) */
  RT_COUNT
} blas_routine_id;

enum { AD_BLAS_MAX_ARGS = 24 };

/* Which routine, interface and precision a rule of the BLAS family is:
 * 1 and *id, *iface, *prec set, or 0 when `rule` is not one of its rows. */
int ad_blas_rule_info(const struct ad_call_rule *rule, blas_routine_id *id,
                      blas_iface *iface, unsigned *prec);
/* Routine id's roles in Fortran order (R_END-terminated); *cblas_layout
 * whether its C form starts with the layout argument. */
const unsigned char *ad_blas_roles(blas_routine_id id, int *cblas_layout);
/* Whether routine id returns its real result (dot, nrm2). */
int ad_blas_returns_real(blas_routine_id id);
/* The array routine id writes in place (R_END: none named; the routines
 * only the derivatives call, trsm, lacpy, lascl, name none). */
unsigned ad_blas_output(blas_routine_id id);
/* The role of each operand of a call to routine id under interface iface
 * (the layout or handle first, the result pointer last), R_END-terminated
 * in out[AD_BLAS_MAX_ARGS + 1]; the count. */
unsigned ad_blas_operand_roles(blas_routine_id id, blas_iface iface,
                               unsigned char *out);
/* Routine id's symbol under that interface and precision (cblas_dlascl). */
const char *ad_blas_name(blas_routine_id id, blas_iface iface, unsigned prec);

/* How ad_blas_emit calls a routine: the interface, precision and real
 * type of the primal call `primal` (the call it is declared next to: same
 * calling convention and rename; its debug location), the C layout to
 * pass (NULL for Fortran), and for a Fortran call that passes hidden
 * character lengths their type (NULL: none). */
typedef struct ad_blas_site {
  ad_module_ctx *mc;
  LLVMValueRef primal;
  blas_iface iface;
  unsigned prec;
  LLVMTypeRef real;
  LLVMValueRef layout;
  LLVMValueRef handle; /* cuBLAS: the primal's handle */
  LLVMTypeRef hidden_len;
  const char *name; /* the primal's rule name, for messages */
} ad_blas_site;

/* Emits routine id at b with the operand of each role in ops (as the
 * interface passes it; cuBLAS's result pointer as R_RESULT), `hidden` the
 * hidden lengths to pass (NULL: 1 each), its real result of type `ret`
 * (NULL: the precision's real; cuBLAS's routines otherwise return their
 * status, an int).  Where the routine is declared already, its parameters
 * decide: a scalar is passed by value where a pointer to it was given and
 * the declaration takes a value (and the other way round).  The call, or
 * NULL with the error in mc. */
LLVMValueRef ad_blas_emit(const ad_blas_site *site, LLVMBuilderRef b,
                          blas_routine_id id, LLVMValueRef *ops,
                          LLVMValueRef *hidden, LLVMTypeRef ret);

#endif
