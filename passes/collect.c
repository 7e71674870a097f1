/* collect.c -- STRATEGIES §4.11: group the terms of a sum by a leaf.
 *
 * Rule (REC of §4.0): in every sum, the terms that contain v**k (same k)
 * are grouped when there are at least two: `v*b+v*c+d` -> `v*(b+c)+d`,
 * `A*C+A*D+C` -> `A*(C+D)+C` (v=A) or `A*D+C*(A+1)` (v=C).  v is a leaf or
 * function term in its bare spelling.  REF conditions: the result differs
 * from logsimp's, factorization's, cancellation's and
 * expand_factorization's.
 *
 * Candidates, the X=X+rest form and the common refusals: alg_pass.h.
 * Class T. */
#include "passes/alg_pass.h"
#include "passes/passes.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest's body (0-based)"},
  {"v", true, "the leaf to collect (a tensor name, index or function term)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) { alg_pass_enumerate(pc, ALG_COLLECT); }
static const char *check(PassCtx *pc, PassCand *c) { return alg_pass_check(pc, c, ALG_COLLECT); }
static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) { return alg_pass_apply(pc, q, c, ALG_COLLECT); }

const PassImpl pass_impl_collect = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
