/* logsimp.c -- STRATEGIES §4.10: combine sums of logarithms.
 *
 * leirc follows the strategy DESCRIPTIONS: logsimp COMBINES logarithms
 * (the reference's code calls this expand_log and its logsimp splits:
 * STRATEGIES §4.0 "Naming inversion"; corpus pairs are labelled the REF
 * way).  Rule (REC): in every sum, the terms k*log(a) with integer k
 * combine into one logarithm, `log(a)+log(b)` -> `log(a*b)`, and
 * `k*log(a)` -> `log(a**k)`.  The arguments must be provably
 * nonnegative, as for expand_log (log(A)+log(C) is NaN for A, C < 0 but
 * log(A*C) is not); --unsafe-math assumes it, with a note.  REF conditions
 * (of its logcombine row): the result differs from factorization's,
 * cancellation's and expand_factorization's.
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_LOGSIMP); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_LOGSIMP); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_LOGSIMP); }

const PassImpl pass_impl_logsimp = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
