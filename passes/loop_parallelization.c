/* loop_parallelization.c -- STRATEGIES §2.6: mark a loop `P` (parallel).
 *
 * Pre (REF): >= 3 loops with at least one L; the parallel axes are the
 * indices present in every statement's left subscript, minus tx.  REC: only
 * L loops after the first B loop (REF-BUG: REF picks among all parallel
 * axes), and the loop must carry no dependence: no two iterations of it
 * (for fixed outer loops) may touch the same element when one of them
 * writes it (deps_check_parallel).  Class E. */
#include "passes/deps.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the loop to mark P"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++)
    for (int i = 0; i < p->nests[k]->nloops; i++) {
      if (p->nests[k]->loops[i]->kind != LOOP_L) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", p->nests[k]->loops[i]->index);
      pass_emit(pc, c);
    }
}

/* The checks shared with loop_vectorization: an L loop of a nest with >= 3
 * loops, not tx, present in every left subscript, carrying no dependence. */
const char *pass_check_parallel_loop(PassCtx *pc, PassCand *c, const char *verb, IrNest **np, int *posp) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  const IrLoop *l = n->loops[pos];
  *np = n;
  *posp = pos;
  if (n->nloops < 3) return pass_reason(pc, "nest %d has %d loops; %s needs at least 3", c->nest, n->nloops, verb);
  if (l->kind != LOOP_L)
    return pass_reason(pc, "loop '%s' is a %c loop; only L loops are marked", l->index, ir_loop_kind_char(l->kind));
  if (!strcmp(l->index, "tx")) return pass_reason(pc, "loop 'tx' is excluded");
  if (!rw_in_every_output(n, l->index))
    return pass_reason(pc, "loop '%s' does not occur in the left subscript of every statement of nest %d", l->index,
                       c->nest);
  const NestDeps *d = deps_of_nest(pc, c->nest);
  if (d->unsupported) return d->unsupported;
  DepVerdict r = deps_check_parallel(d, pos, false, 0);
  if (!r.ok) return pass_reason(pc, "loop '%s' carries a dependence on %s", l->index, deps_describe(pc, r.bad));
  c->why = pass_reason(pc, "loop '%s' of nest %d is an L loop that occurs in the left subscript of every statement; "
                       "%s; none is carried by '%s', so its iterations are independent",
                       l->index, c->nest, deps_summary(pc, d), l->index);
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  int pos;
  const char *why = pass_check_parallel_loop(pc, c, "loop_parallelization", &n, &pos);
  if (why) return why;
  int fb = rw_first_b(n);
  if (fb < 0 || pos < fb)
    return pass_reason(pc, "loop '%s' is not inside the first B loop of nest %d", n->loops[pos]->index, c->nest);
  c->why = pass_reason(pc, "%s; it lies inside the nest's first B loop '%s'", c->why, n->loops[fb]->index);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  if (pos < 0) return false;
  n->loops[pos]->kind = LOOP_P;
  (void)pc;
  return true;
}

const PassImpl pass_impl_loop_parallelization = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
