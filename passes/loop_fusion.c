/* loop_fusion.c -- STRATEGIES §2.4: merge an outer/inner loop pair into one
 * loop (the reverse of loop_split; REF only swaps loop_split's pairs, the
 * forward rule is REC).
 *
 * Pre: adjacent loops `L^{f}_{g=0}` and `K^{m}_{i=0}` such that every
 * occurrence of g and of i in the nest is inside a subscript term of the
 * exact form `g*m+i` (parentheses around it allowed); hence neither is used
 * as a value.  Rewrite: delete the g loop, i's extent becomes f*m, every
 * `g*m+i` becomes `i`.  Iterations keep their order: always legal.  REC:
 * refuse when the merged loop is a B loop that breaks a hardware limit.
 * Class E. */
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"loop", true, "index of the outer loop g (the next loop is i)"},
  {NULL, false, NULL},
};

static bool is_index(const IrExpr *e, const char *name) {
  e = ir_expr_unparen(e);
  return e && e->kind == E_INDEX && !strcmp(e->u.index.name, name);
}

/* Is e (parentheses skipped) the term g*m+i (or m*g+i)? */
static bool is_term(const IrExpr *e, const char *g, int64_t m, const char *i) {
  e = ir_expr_unparen(e);
  if (!e || e->kind != E_BINARY || e->u.bin.op != OP_ADD || !is_index(e->u.bin.b, i)) return false;
  const IrExpr *mul = ir_expr_unparen(e->u.bin.a);
  if (!mul || mul->kind != E_BINARY || mul->u.bin.op != OP_MUL) return false;
  const IrExpr *x = ir_expr_unparen(mul->u.bin.a), *y = ir_expr_unparen(mul->u.bin.b);
  if (x->kind == E_INT) {
    const IrExpr *t = x;
    x = y;
    y = t;
  }
  return is_index(x, g) && y->kind == E_INT && y->u.ilit.value == m;
}

typedef struct Fuse {
  LeirCtx *ctx;
  const char *g, *i;
  int64_t m;
  int stray;    /* occurrences of g or i outside a g*m+i term */
  bool rewrite; /* replace the terms by i */
} Fuse;

static void walk(Fuse *f, IrExpr **slot, bool in_sub) {
  IrExpr *e = *slot;
  if (!e) return;
  if (in_sub && is_term(e, f->g, f->m, f->i)) {
    if (f->rewrite) *slot = ir_index(f->ctx, f->i);
    return;
  }
  switch (e->kind) {
  case E_INDEX:
    if (!strcmp(e->u.index.name, f->g) || !strcmp(e->u.index.name, f->i)) f->stray++;
    break;
  case E_REF:
    for (int k = 0; k < e->u.ref->nsub; k++) walk(f, &e->u.ref->sub[k], true);
    break;
  case E_UNARY: walk(f, &e->u.unary.a, in_sub); break;
  case E_BINARY:
    walk(f, &e->u.bin.a, in_sub);
    walk(f, &e->u.bin.b, in_sub);
    break;
  case E_CMP:
    for (int k = 0; k < e->u.cmp.n; k++) walk(f, &e->u.cmp.operand[k], in_sub);
    break;
  case E_CALL:
    for (int k = 0; k < e->u.call.nargs; k++) walk(f, &e->u.call.args[k], in_sub);
    break;
  case E_PAREN: walk(f, &e->u.paren, in_sub); break;
  default: break;
  }
}

static void walk_stmt(IrStmt *s, void *u) {
  Fuse *f = u;
  for (int k = 0; k < s->lhs->nsub; k++) walk(f, &s->lhs->sub[k], true);
  walk(f, &s->rhs, false);
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++)
    for (int i = 0; i + 1 < p->nests[k]->nloops; i++) {
      if (p->nests[k]->loops[i]->kind != LOOP_L) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "loop", p->nests[k]->loops[i]->index);
      pass_emit(pc, c);
    }
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  int pos;
  IrNest *n = rw_cand_nest_loop(pc, pc->prog, c, &pos, &why);
  if (!n) return why;
  const IrLoop *g = n->loops[pos];
  if (g->kind != LOOP_L)
    return pass_reason(pc, "loop '%s' is a %c loop; only an L loop is merged into the next one", g->index,
                       ir_loop_kind_char(g->kind));
  if (pos + 1 >= n->nloops) return pass_reason(pc, "loop '%s' is the innermost loop; there is no inner loop to merge it with", g->index);
  const IrLoop *i = n->loops[pos + 1];
  Fuse f = {pc->ctx, g->index, i->index, i->extent, 0, false};
  rw_for_stmts(n, walk_stmt, &f);
  if (f.stray)
    return pass_reason(pc, "'%s' and '%s' do not occur only in terms %s*%lld+%s", g->index, i->index, g->index,
                       (long long)i->extent, i->index);
  int64_t ext;
  if (__builtin_mul_overflow(g->extent, i->extent, &ext) || ext > INT32_MAX)
    return pass_reason(pc, "the merged loop would have more than 2^31-1 iterations");
  IrLoop **loops = arena_alloc(&pc->ctx->arena, sizeof(IrLoop *) * (size_t)n->nloops);
  int k = 0;
  for (int j = 0; j < n->nloops; j++) {
    if (j == pos) continue;
    loops[k] = rw_loop_clone(pc->ctx, n->loops[j]);
    if (j == pos + 1) loops[k]->extent = ext;
    k++;
  }
  const char *hw = rw_hw_limits_loops(pc, loops, k);
  if (hw) return pass_reason(pc, "merging into the B loop '%s': %s", i->index, hw);
  c->why = pass_reason(pc, "'%s' (L, extent %lld) and the next loop '%s' (extent %lld) occur only in terms "
                       "%s*%lld+%s, so one loop '%s' of extent %lld enumerates the same elements in the same "
                       "order%s",
                       g->index, (long long)g->extent, i->index, (long long)i->extent, g->index, (long long)i->extent,
                       i->index, i->index, (long long)ext, i->kind == LOOP_B ? " within the hardware limits" : "");
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  IrNest *n = q->nests[c->nest];
  int pos = rw_loop_pos(n, pass_cand_get(c, "loop"));
  if (pos < 0 || pos + 1 >= n->nloops) return false;
  IrLoop *g = n->loops[pos], *i = n->loops[pos + 1];
  Fuse f = {pc->ctx, g->index, i->index, i->extent, 0, true};
  rw_for_stmts(n, walk_stmt, &f);
  rw_set_extent(i, g->extent * i->extent);
  rw_remove_loop(n, pos);
  return true;
}

const PassImpl pass_impl_loop_fusion = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
