/* expand_collect.c -- STRATEGIES §4.12: expand grouped terms.
 *
 * REF pairs are collect's swapped.  leirc's forward rule (REC, collect's
 * inverse): every product that has v as a factor and sums as factors is
 * multiplied out: `v*(b+c)+d` -> `v*b+v*c+d`.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {"v", true, "the leaf whose products are expanded"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_EXPAND_COLLECT); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_EXPAND_COLLECT); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_EXPAND_COLLECT); }

const PassImpl pass_impl_expand_collect = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
