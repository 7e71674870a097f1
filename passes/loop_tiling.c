/* loop_tiling.c -- STRATEGIES §2.2: tile two adjacent spatial loops.
 *
 * Pre (REF): >= 3 loops, no index used as a value, adjacent positions p,
 * p+1 whose indices both occur in the first statement's left subscript and
 * whose extents n1, n2 have factor pairs.  Rewrite: fresh g, h inserted as
 * `L^{f1}_{g=0}L^{f2}_{h=0}` before p, the two loops get extents n1/f1 and
 * n2/f2 (kinds kept), i -> g*(n1/f1)+i, j -> h*(n2/f2)+j in every subscript.
 * REC legality: the new order (g,h,i,j) interleaves the two loops, which is
 * legal iff no dependence that is not carried by an outer loop has a
 * negative component in the band (deps_check_band).  Params: factor1 and
 * factor2, the outer extents; enumerate lists REF's pairs (2 <= f <=
 * sqrt(n)); -O accepts any divisor 1 < f < n.  Class E. */
#include "passes/deps.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the first (outer) loop of the pair"},
  {"factor1", true, "outer extent for the first loop"},
  {"factor2", true, "outer extent for the second loop"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (n->nloops < 3) continue;
    for (int i = 0; i + 1 < n->nloops; i++) {
      if (!rw_in_first_output(n, n->loops[i]->index) || !rw_in_first_output(n, n->loops[i + 1]->index)) continue;
      int64_t f1[64], f2[64];
      int n1 = rw_factor_pairs(n->loops[i]->extent, f1, 64), n2 = rw_factor_pairs(n->loops[i + 1]->extent, f2, 64);
      for (int a = 0; a < n1; a++)
        for (int b = 0; b < n2; b++) {
          PassCand *c = pass_cand_new(pc);
          pass_cand_set_int(pc->ctx, c, "nest", k);
          pass_cand_set(pc->ctx, c, "loop", n->loops[i]->index);
          pass_cand_set_int(pc->ctx, c, "factor1", f1[a]);
          pass_cand_set_int(pc->ctx, c, "factor2", f2[b]);
          pass_emit(pc, c);
        }
    }
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  if (n->nloops < 3)
    return pass_reason(pc, "nest %d has %d loops; loop_tiling needs at least 3", c->nest, n->nloops);
  if (pos + 1 >= n->nloops)
    return pass_reason(pc, "loop '%s' is the innermost loop; tiling needs the loop after it too",
                       n->loops[pos]->index);
  const IrLoop *l1 = n->loops[pos], *l2 = n->loops[pos + 1];
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  for (int i = 0; i < 2; i++) {
    const IrLoop *l = i ? l2 : l1;
    if (!rw_in_first_output(n, l->index))
      return pass_reason(pc, "loop '%s' does not occur in the left subscript of the first statement of nest %d",
                         l->index, c->nest);
  }
  int64_t f;
  if ((why = pass_check_factor(pc, c, "factor1", l1, &f)) || (why = pass_check_factor(pc, c, "factor2", l2, &f)))
    return why;
  const NestDeps *d = deps_of_nest(pc, c->nest);
  if (d->unsupported) return d->unsupported;
  DepVerdict r = deps_check_band(d, pos, pos + 1);
  if (!r.ok)
    return pass_reason(pc, "tiling loops '%s' and '%s' would reverse a dependence on %s", l1->index, l2->index,
                       deps_describe(pc, r.bad));
  c->why = pass_reason(pc, "loops '%s' (extent %lld) and '%s' (extent %lld) are adjacent in nest %d (%d loops), both "
                       "occur in the left subscript of its first statement, no index is used as a value, factor1=%s "
                       "and factor2=%s divide the extents; %s; tiling the band reverses none",
                       l1->index, (long long)l1->extent, l2->index, (long long)l2->extent, c->nest, n->nloops,
                       pass_cand_get(c, "factor1"), pass_cand_get(c, "factor2"), deps_summary(pc, d));
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  int64_t f1, f2;
  if (pos < 0 || pass_cand_get_int(c, "factor1", &f1) != 1 || pass_cand_get_int(c, "factor2", &f2) != 1)
    return false;
  const char *g = pass_fresh_index(pc->ctx, n, NULL, 0);
  const char *h = pass_fresh_index(pc->ctx, n, &g, 1);
  /* split the second loop first so that the first keeps its position, then
     move h in front of the first loop's remainder */
  pass_split_loop(pc->ctx, n, pos + 1, f2, h); /* ... i, h, j ... */
  pass_split_loop(pc->ctx, n, pos, f1, g);     /* ... g, i, h, j ... */
  IrLoop *hl = n->loops[pos + 2];
  n->loops[pos + 2] = n->loops[pos + 1];
  n->loops[pos + 1] = hl; /* ... g, h, i, j ... */
  return true;
}

const PassImpl pass_impl_loop_tiling = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
