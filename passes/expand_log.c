/* expand_log.c -- STRATEGIES §4.9: split logarithms of products and powers.
 *
 * leirc follows the strategy DESCRIPTIONS: expand_log SPLITS
 * logarithms.  The reference's code swaps the two names (its expand_log
 * is sympy's logcombine, its logsimp the reverse), so corpus pairs labelled
 * expand_log by REF combine; STRATEGIES §4.0 "Naming inversion".
 * Rule (REC): `log(a*b)` -> `log(a)+log(b)`, `log(a**k)` -> `k*log(a)`,
 * `log(a/b)` -> `log(a)-log(b)`, a positive numeric factor c giving
 * `log(c)`; a log whose argument has a negative factor is left alone.
 * REF assumes positive arguments; leirc proves them (alg_rules.c
 * log_split_safe: every base provably >= 0 by mp_sign_expr, or a single
 * base of unknown sign with an odd power, the others > 0), since otherwise
 * log((A*A)**3) -> 3*(log(A)+log(A)) turns a number into NaN (fuzz_passes).
 * --unsafe-math assumes them, with the note "assumes positive arguments".
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

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_EXPAND_LOG); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_EXPAND_LOG); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_EXPAND_LOG); }

const PassImpl pass_impl_expand_log = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
