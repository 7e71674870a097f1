/* together.c -- STRATEGIES §4.6: sum of fractions to one fraction.
 *
 * Rule (REC of §4.0): every sum (not inside function arguments) is put
 * over one denominator, the product of its terms' distinct denominator
 * factors each at its highest power (and the lcm of rational coefficients'
 * denominators); numerators are not expanded: `A+1/(C+1)` ->
 * `(A*(C+1)+1)/(C+1)`.  REF conditions: the text has `/`; the result
 * differs from factorization's, cancellation's and
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_TOGETHER); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_TOGETHER); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_TOGETHER); }

const PassImpl pass_impl_together = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
