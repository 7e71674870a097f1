/* loop_split.c -- STRATEGIES §2.3: split one spatial loop in two.
 *
 * Pre (REF): a nest with >= 2 loops, no index used as a value (no_var), the
 * loop's index in the first statement's left subscript, and an extent with
 * a divisor.  Rewrite: fresh g = idx(k) inserted as `L^{f}_{g=0}` before the
 * loop, whose extent becomes n/f (kind kept); i -> g*(n/f)+i in every
 * subscript.  Iterations run in the same order, so the split is always
 * legal.  Params: factor = the outer extent f, any divisor 1 < f < n (REC;
 * REF draws f <= sqrt(n)); enumerate lists every such divisor.  Class E. */
#include "passes/passes.h"
#include "passes/rewrite.h"

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the loop to split"},
  {"factor", true, "extent of the new outer loop (a divisor 1 < f < n)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    for (int i = 0; i < n->nloops; i++) {
      if (!rw_in_first_output(n, n->loops[i]->index)) continue;
      int64_t f[64];
      int nf = rw_divisors(n->loops[i]->extent, f, 64);
      for (int j = 0; j < nf; j++) {
        PassCand *c = pass_cand_new(pc);
        pass_cand_set_int(pc->ctx, c, "nest", k);
        pass_cand_set(pc->ctx, c, "loop", n->loops[i]->index);
        pass_cand_set_int(pc->ctx, c, "factor", f[j]);
        pass_emit(pc, c);
      }
    }
  }
}

const char *pass_check_factor(PassCtx *pc, const PassCand *c, const char *key, const IrLoop *l, int64_t *f) {
  int r = pass_cand_get_int(c, key, f);
  if (r == 0) return pass_reason(pc, "missing parameter '%s'", key);
  if (r < 0) return pass_reason(pc, "%s=%s is not an integer", key, pass_cand_get(c, key));
  if (*f <= 1 || *f >= l->extent)
    return pass_reason(pc, "%s=%lld must be between 2 and %lld (the extent of loop '%s' minus 1)", key,
                       (long long)*f, (long long)l->extent - 1, l->index);
  if (l->extent % *f)
    return pass_reason(pc, "%s=%lld does not divide the extent %lld of loop '%s'", key, (long long)*f,
                       (long long)l->extent, l->index);
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  const IrLoop *l = n->loops[pos];
  if (n->nloops < 2) return pass_reason(pc, "nest %d has 1 loop; loop_split needs at least 2", c->nest);
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  if (!rw_in_first_output(n, l->index))
    return pass_reason(pc, "loop '%s' does not occur in the left subscript of the first statement of nest %d",
                       l->index, c->nest);
  int64_t f;
  if ((why = pass_check_factor(pc, c, "factor", l, &f))) return why;
  c->why = pass_reason(pc, "loop '%s' of nest %d has extent %lld, which factor=%lld divides; it occurs in the left "
                       "subscript of the nest's first statement and no index is used as a value, so the split "
                       "keeps the iteration order",
                       l->index, c->nest, (long long)l->extent, (long long)f);
  return NULL;
}

typedef struct Sub {
  LeirCtx *ctx;
  const char *name;
  IrExpr *repl;
} Sub;

static void subst_stmt(IrStmt *s, void *u) {
  Sub *x = u;
  rw_subst_sub_stmt(x->ctx, s, x->name, x->repl);
}

void pass_split_loop(LeirCtx *ctx, IrNest *n, int pos, int64_t f, const char *g) {
  IrLoop *l = n->loops[pos];
  int64_t m = l->extent / f;
  rw_insert_loop(ctx, n, pos, rw_loop(ctx, LOOP_L, f, g));
  rw_set_extent(l, m);
  Sub x = {ctx, l->index, rw_affine(ctx, g, m, l->index)};
  rw_for_stmts(n, subst_stmt, &x);
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  int64_t f;
  if (pos < 0 || pass_cand_get_int(c, "factor", &f) != 1) return false;
  const char *g = pass_fresh_index(pc->ctx, n, NULL, 0);
  pass_split_loop(pc->ctx, n, pos, f, g);
  return true;
}

const PassImpl pass_impl_loop_split = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
