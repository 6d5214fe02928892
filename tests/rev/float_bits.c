/* Floats carried as their bits through integers, by data movement only: a
 * memcpy to uint64_t (a bitcast), a union, an integer array holding the
 * bits (stores and loads of i64), a choice between two floats' bits (a
 * select or a PHI), a memcpy between a double array and a uint64_t one,
 * and the sign-bit masks C writes for fabs, negation and copysign.  Each
 * integer carries the adjoint of the float it holds, as in Enzyme. */
#include "rev_check.h"

#include "../common/float_bits_subject.h"

RC_ARRAY_TEST(float_bits, 5, 0.5, -1.25, 1.5, 0.75, -2.0)
