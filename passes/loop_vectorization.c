/* loop_vectorization.c -- STRATEGIES §2.7: mark a short loop `V`.
 *
 * Pre (REF): as loop_parallelization without the "after tx" test, and the
 * loop's extent is <= 4.  REC: only L loops; the loop must carry no
 * dependence.  A bare -O loop_vectorization prefers the innermost candidate
 * of the first nest that has one (REC "prefer the innermost").  Class E. */
#include "passes/passes.h"
#include "passes/rewrite.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the loop to mark V (extent <= 4)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++)
    for (int i = 0; i < p->nests[k]->nloops; i++) {
      const IrLoop *l = p->nests[k]->loops[i];
      if (l->kind != LOOP_L || l->extent > 4) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", l->index);
      pass_emit(pc, c);
    }
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  int pos;
  const char *why = pass_check_parallel_loop(pc, c, "loop_vectorization", &n, &pos);
  if (why) return why;
  if (n->loops[pos]->extent > 4)
    return pass_reason(pc, "loop '%s' has extent %lld; only loops of extent 4 or less are vectorised",
                       n->loops[pos]->index, (long long)n->loops[pos]->extent);
  c->why = pass_reason(pc, "%s; its extent %lld is at most 4", c->why, (long long)n->loops[pos]->extent);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  if (pos < 0) return false;
  n->loops[pos]->kind = LOOP_V;
  (void)pc;
  return true;
}

/* The innermost candidate of the first nest that has one. */
static int pick_default(PassCtx *pc, PassCand *const *legal, int n) {
  int best = 0, best_pos = -1;
  for (int i = 0; i < n && legal[i]->nest == legal[0]->nest; i++) {
    int pos = rw_loop_pos(pc->prog->nests[legal[i]->nest], pass_cand_get(legal[i], "loop"));
    if (pos > best_pos) {
      best_pos = pos;
      best = i;
    }
  }
  return best;
}

const PassImpl pass_impl_loop_vectorization = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply, .pick_default = pick_default};
