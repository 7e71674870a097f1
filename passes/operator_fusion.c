/* operator_fusion.c -- STRATEGIES §1.1: put two consecutive nests with the
 * same loops into one body.
 *
 * Pre (REF): nests i and i+1, neither a "barrier" (a nest with a statement
 * that updates itself: a reduction or accumulation); every ref in nest i+1
 * to a tensor nest i writes is at a subscript nest i writes it at; the two
 * headers are identical, or one of them is empty.  REC: no nested nests,
 * and (dataflow.h) no dependence between a statement of nest i and one of
 * nest i+1 may go backwards in the iteration order of the fused nest (this
 * covers writes of nest i+1 that nest i reads, and a header-less nest that
 * would now run once per iteration).  Statement order is kept, so the
 * implicit initialisations of SPEC §9.5 are unchanged.
 * Rewrite: H[S1;S2;] (statements of i then i+1; the non-empty header).
 * With `scope`, the fused pair's output tensors that are intermediates
 * accessed in no other nest, at one subscript, and whose elements SPEC
 * §9.3 lets stay in that scope (l: every B loop separates the elements; s:
 * every block loop does) get that scope on every occurrence.  REF gives
 * the random scope to every output no longer used later, the program
 * output included (lowering ignores it); without `scope` the tags are kept.
 * Params: nest (= i), scope (l|s, optional).  Scopes do not change values:
 * class E. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the first of the two nests (0-based)"},
  {"scope", false, "l or s: the scope of the intermediates that live only in the fused nest"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  static const char *const sc[] = {NULL, "l", "s"};
  for (int k = 0; k + 1 < pc->prog->nnests; k++)
    for (int s = 0; s < 3; s++) {
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      if (sc[s]) pass_cand_set(pc->ctx, c, "scope", sc[s]);
      pass_emit(pc, c);
    }
}

/* The fused nest, sharing a's and b's statements (for analysis and for
 * apply on the copy). */
static IrNest *fuse(LeirCtx *ctx, const IrNest *a, const IrNest *b) {
  IrNest *m = gx_nest_like(ctx, a->nloops ? a : b);
  m->loc = a->loc;
  for (int i = 0; i < a->nitems; i++) ir_nest_add_item(ctx, m, ITEM_STMT, a->items[i].u.stmt);
  for (int i = 0; i < b->nitems; i++) ir_nest_add_item(ctx, m, ITEM_STMT, b->items[i].u.stmt);
  return m;
}

static const IrStmt *self_updating(const IrNest *n) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].u.stmt->self_ref) return n->items[i].u.stmt;
  return NULL;
}

/* A header-less nest that the fusion makes run once per iteration of the
 * other nest's loops gives the same values every time unless one of its
 * statements reads a tensor the nest writes: the name of such a tensor. */
static const char *rerun_hazard(LeirCtx *ctx, const IrNest *n) {
  for (int s = 0; s < n->nitems; s++) {
    PtrVec refs = {0};
    rw_stmt_refs(ctx, n->items[s].u.stmt, &refs);
    for (int r = 1; r < refs.n; r++)
      for (int w = 0; w < n->nitems; w++)
        if (!strcmp(((IrRef *)refs.v[r])->name, n->items[w].u.stmt->lhs->name)) return n->items[w].u.stmt->lhs->name;
  }
  return NULL;
}

/* REF's rule: refs in b to tensors a writes are at a subscript a writes. */
static const char *same_refs(PassCtx *pc, const IrNest *a, const IrNest *b, int i) {
  LeirCtx *ctx = pc->ctx;
  for (int s = 0; s < b->nitems; s++) {
    PtrVec refs = {0};
    rw_stmt_refs(ctx, b->items[s].u.stmt, &refs);
    for (int r = 0; r < refs.n; r++) {
      IrRef *x = refs.v[r];
      bool written = false, same = false;
      for (int w = 0; w < a->nitems; w++) {
        IrRef *l = a->items[w].u.stmt->lhs;
        if (strcmp(l->name, x->name)) continue;
        written = true;
        same |= !strcmp(rw_sub_text(ctx, l), rw_sub_text(ctx, x));
      }
      if (written && !same)
        return pass_reason(pc, "nest %d accesses '%s' at %s, which nest %d does not write", i + 1, x->name,
                           gx_ref_text(ctx, x), i);
    }
  }
  return NULL;
}

/* May tensor t (written in the fused nest m) take scope sc?  It must be an
 * intermediate accessed only in m (nests i, i+1 of df), always at the same
 * subscript, and its elements must stay within one thread (l) or one block
 * (s) of m. */
static bool scope_ok(PassCtx *pc, const DataFlow *df, int i, const IrNest *m, const IrRef *w, IrScope sc) {
  const IrProgram *p = pc->prog;
  if (!w->tensor || w->tensor->role != ROLE_TMP) return false;
  if (df_find(df, w->name, 0, i, DF_ANY, NULL) || df_find(df, w->name, i + 2, p->nnests, DF_ANY, NULL)) return false;
  const char *sub = rw_sub_text(pc->ctx, w);
  for (int k = i; k <= i + 1; k++)
    for (int a = 0; a < df->nests[k].naccess; a++) {
      const IrRef *r = df->nests[k].access[a].ref;
      if (!strcmp(r->name, w->name) && strcmp(rw_sub_text(pc->ctx, r), sub)) return false;
    }
  for (int l = 0; l < m->nloops; l++) {
    const IrLoop *lp = m->loops[l];
    if (lp->kind != LOOP_B) continue;
    IrHwAxis ax = ir_hw_axis_of_index(lp->index);
    bool block = ax == HW_BX || ax == HW_BY || ax == HW_BZ;
    if ((sc == SC_L || block) && !df_loop_separates(m, w, l)) return false;
  }
  return true;
}

/* The tensors that get the scope: their names, at most max. */
static int scoped_tensors(PassCtx *pc, const DataFlow *df, int i, const IrNest *m, IrScope sc, const char **out,
                          int max) {
  int n = 0;
  for (int s = 0; s < m->nitems; s++) {
    const IrRef *w = m->items[s].u.stmt->lhs;
    bool dup = false;
    for (int j = 0; j < n; j++) dup |= !strcmp(out[j], w->name);
    if (!dup && n < max && scope_ok(pc, df, i, m, w, sc)) out[n++] = w->name;
  }
  return n;
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *b;
  IrNest *a = gx_cand_pair(pc, pc->prog, c, &b, &why);
  if (!a) return why;
  int i = c->nest;
  const IrStmt *s;
  if ((s = self_updating(a)) || (s = self_updating(b))) {
    c->site = s->loc;
    return pass_reason(pc, "nest %d is a barrier: '%s' updates itself", s == self_updating(a) ? i : i + 1,
                       s->lhs->name);
  }
  if (a->nloops && b->nloops && !df_same_header(a, b))
    return pass_reason(pc, "nests %d and %d have different loop headers", i, i + 1);
  if ((why = same_refs(pc, a, b, i))) return why;
  const IrNest *bare = !a->nloops ? a : !b->nloops ? b : NULL, *other = bare == a ? b : a;
  const char *t;
  if (bare && rw_extent_product(other, -1) > 1 && (t = rerun_hazard(pc->ctx, bare)))
    return pass_reason(pc, "nest %d has no loops and reads '%s', which it writes: it would run once per iteration",
                       bare == a ? i : i + 1, t);
  IrNest *m = fuse(pc->ctx, a, b);
  int *group = arena_alloc(&pc->ctx->arena, sizeof(int) * (size_t)m->nitems);
  for (int k = 0; k < m->nitems; k++) group[k] = k >= a->nitems;
  const Dep *bad = df_check_groups(pc, m, group, &why);
  if (why) return pass_reason(pc, "the fused nest cannot be analysed: %s", why);
  if (bad) {
    c->site = bad->y->stmt->loc;
    return pass_reason(pc, "fusing would reverse a dependence on %s", deps_describe(pc, bad));
  }
  const char *sc = pass_cand_get(c, "scope");
  if (sc) {
    if (strcmp(sc, "l") && strcmp(sc, "s")) return pass_reason(pc, "scope=%s is not l or s", sc);
    const char *names[1];
    if (!scoped_tensors(pc, df_analyse(pc, pc->prog), i, m, ir_scope_from_name(sc), names, 1))
      return pass_reason(pc, "no intermediate of the fused nest can take scope '%s' (SPEC 9.3)", sc);
  }
  c->why = pass_reason(pc, "nests %d and %d are adjacent, neither updates itself, %s; the dataflow analysis of the "
                       "fused nest finds no dependence that running them in one loop reverses%s",
                       i, i + 1, a->nloops && b->nloops ? "their loop headers are the same" : "one has no loops and "
                       "reads nothing it writes",
                       sc ? pass_reason(pc, ", and an intermediate of it can take scope '%s'", sc) : "");
  return NULL;
}

typedef struct SetScope {
  const char **names;
  int n;
  IrScope sc;
} SetScope;

static void set_walk(IrExpr *e, void *u) {
  SetScope *s = u;
  if (e->kind != E_REF) return;
  for (int i = 0; i < s->n; i++)
    if (!strcmp(e->u.ref->name, s->names[i])) e->u.ref->sc_tag = s->sc;
}

static void set_stmt(IrStmt *st, void *u) {
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = st->lhs;
  ir_walk_expr(&tmp, set_walk, u);
  ir_walk_expr(st->rhs, set_walk, u);
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  int i = c->nest;
  IrNest *m = fuse(ctx, q->nests[i], q->nests[i + 1]);
  const char *sc = pass_cand_get(c, "scope");
  if (sc) {
    /* decided on the original program: same statements, same positions */
    IrNest *m0 = fuse(ctx, pc->prog->nests[i], pc->prog->nests[i + 1]);
    SetScope s = {NULL, 0, ir_scope_from_name(sc)};
    s.names = arena_alloc(&ctx->arena, sizeof(char *) * (size_t)m0->nitems);
    s.n = scoped_tensors(pc, df_analyse(pc, pc->prog), i, m0, s.sc, s.names, m0->nitems);
    rw_for_stmts(m, set_stmt, &s);
  }
  q->nests[i] = m;
  for (int k = i + 1; k + 1 < q->nnests; k++) q->nests[k] = q->nests[k + 1];
  q->nnests--;
  return true;
}

const PassImpl pass_impl_operator_fusion = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
