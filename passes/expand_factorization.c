/* expand_factorization.c -- STRATEGIES §4.2: distribute products over sums, expand integer powers of sums.
 *
 * Rule (REC of §4.0): at every node, children first, integer powers of sums
 * with exponent 2..4 (or -2..-4, the sum expanded under the division) are
 * multiplied out and products are distributed over the sums of their
 * numerator: `(A+C)**2` -> `A**2+2*A*C+C**2`, `A*(C+D)` -> `A*C+A*D`,
 * `(A+B)/C` -> `A/C+B/C`.  REF's extra condition factor(expand(e)) = e needs
 * a full factorisation over Q, which leirc does not have: not applied.
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_EXPAND_FACTORIZATION); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_EXPAND_FACTORIZATION); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_EXPAND_FACTORIZATION); }

const PassImpl pass_impl_expand_factorization = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
