/* loop_reorder.c -- STRATEGIES §2.1: swap two loops of a nest.
 *
 * Pre (REF): a nest with >= 3 loops; any two positions (any kinds, tx
 * included).  REC legality (deps.h): the swap must not reverse any
 * dependence -- e.g. a prefix form reading X_{...,c-1} keeps c's order --
 * except the accumulation order of a reduction: re-associating a + - *
 * reduction makes the candidate class T, max/min reductions stay exact
 * (E-dagger rule of §2.1: exact iff the relative order of the reduction
 * loops of every accumulating statement is kept).  Params: loop1 (the outer
 * of the two) and loop2. */
#include "passes/deps.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop1", true, "index of the outer loop of the pair"},
  {"loop2", true, "index of the inner loop of the pair"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (n->nloops < 3) continue;
    for (int i = 0; i < n->nloops; i++)
      for (int j = i + 1; j < n->nloops; j++) {
        PassCand *c = pass_cand_new(pc);
        pass_cand_set_int(pc->ctx, c, "nest", k);
        pass_cand_set(pc->ctx, c, "loop1", n->loops[i]->index);
        pass_cand_set(pc->ctx, c, "loop2", n->loops[j]->index);
        pass_emit(pc, c);
      }
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, pc->prog, c, &why);
  if (!n) return why;
  const char *a = pass_cand_get(c, "loop1"), *b = pass_cand_get(c, "loop2");
  if (!a || !b) return pass_reason(pc, "missing parameter '%s'", a ? "loop2" : "loop1");
  int i = rw_loop_pos(n, a), j = rw_loop_pos(n, b);
  if (i < 0 || j < 0) return pass_reason(pc, "nest %d has no loop '%s'", c->nest, i < 0 ? a : b);
  c->site = n->loops[i]->loc;
  if (i == j) return pass_reason(pc, "loop1 and loop2 are the same loop '%s'", a);
  if (i > j) return pass_reason(pc, "loop1 must be the outer loop of the two ('%s' is inside '%s')", a, b);
  if (n->nloops < 3)
    return pass_reason(pc, "nest %d has %d loops; loop_reorder needs at least 3", c->nest, n->nloops);
  const NestDeps *d = deps_of_nest(pc, c->nest);
  if (d->unsupported) return d->unsupported;
  int perm[DEP_MAX_LOOPS];
  for (int k = 0; k < n->nloops; k++) perm[k] = k;
  perm[i] = j;
  perm[j] = i;
  DepVerdict r = deps_check_permutation(d, perm);
  if (!r.ok)
    return pass_reason(pc, "swapping '%s' and '%s' would reverse a dependence on %s", a, b, deps_describe(pc, r.bad));
  c->cls = r.reassociates ? PASS_T : PASS_E;
  c->why = pass_reason(pc, "'%s' (extent %lld) and '%s' (extent %lld) are loops of nest %d, which has %d loops; %s; "
                       "swapping them reverses none%s",
                       a, (long long)n->loops[i]->extent, b, (long long)n->loops[j]->extent, c->nest, n->nloops,
                       deps_summary(pc, d), r.reassociates ? " (a + - * reduction is re-associated: class T)" : "");
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int i = rw_loop_pos(n, pass_cand_get(c, "loop1")), j = rw_loop_pos(n, pass_cand_get(c, "loop2"));
  if (i < 0 || j < 0) return false;
  IrLoop *t = n->loops[i];
  n->loops[i] = n->loops[j];
  n->loops[j] = t;
  (void)pc;
  return true;
}

const PassImpl pass_impl_loop_reorder = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
