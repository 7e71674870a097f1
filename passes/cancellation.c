/* cancellation.c -- STRATEGIES §4.3: rational normal form with common factors removed.
 *
 * Rule (REC of §4.0): the part rewritten is taken as a rational function
 * p/q of its leaves and function terms (sums expanded), the gcd of p and q
 * is removed (monomial gcd always; a polynomial gcd by primitive remainder
 * sequences over Q with at most 4 variables of degree at most 4, else the
 * candidate is refused), q gets coprime integer coefficients and a positive
 * leading coefficient: `1/A-1/(A+1)` -> `1/(A**2+A)`.  REF conditions: the
 * text has `/`; the result differs from factorization's and
 * expand_factorization's.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_CANCELLATION); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_CANCELLATION); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_CANCELLATION); }

const PassImpl pass_impl_cancellation = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
