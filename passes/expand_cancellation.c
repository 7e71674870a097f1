/* expand_cancellation.c -- STRATEGIES §4.4: rational function as a sum of simpler fractions.
 *
 * REF pairs are cancellation's swapped.  leirc's forward rule (REC, the
 * inverse of cancellation "as partial sums"): the rational normal form p/q
 * is split into one fraction per term of p, each with its monomial gcd
 * with q removed; a part whose denominator is a polynomial in one leaf that
 * splits into linear factors over Q is further split into partial
 * fractions: `1/(A**2+A)` -> `1/A-1/(A+1)`, `(C*O-O*S+Q*R)/R` ->
 * `C*O/R-O*S/R+Q`.  Refused when there is no denominator or nothing to
 * split.
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_EXPAND_CANCELLATION); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_EXPAND_CANCELLATION); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_EXPAND_CANCELLATION); }

const PassImpl pass_impl_expand_cancellation = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
