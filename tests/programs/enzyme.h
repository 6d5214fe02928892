/*
 * Enzyme's C interface, declared the way Enzyme users declare it.  The
 * activity markers are only ever read by the differentiating compiler (the
 * JIT's engine), which recognises the loads of these globals in a request's
 * argument list; the request itself is replaced by a call to a generated
 * derivative, so neither symbol needs a definition at run time.
 *
 * A request whose result is not one double (float, a struct of tangents for
 * enzyme_width, void) declares its own prototype bound to the same symbol
 * with asm("__enzyme_fwddiff").
 */
#ifndef TANJIT_TESTS_ENZYME_H
#define TANJIT_TESTS_ENZYME_H

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed, enzyme_width,
    enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);

#endif
