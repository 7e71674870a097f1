/* tensor_split_to_decouple_operators.c -- STRATEGIES §1.6: split one
 * computation into two halves along a loop.
 *
 * Pre (REF): a single-statement nest; split axes = loops whose index is in
 * the output subscript, extent > 1; reduce axes = loops not in the output,
 * extent > 1, not tx; the fresh-inputs rule; the calc skeleton is not a
 * pure copy; no index used as a value; for a reduce axis the statement
 * accumulates (`X+`, `X*`, `min(X`, `max(X`).  REC: a statement that
 * updates itself must be an accumulation (rw_accum_op) with the implicit
 * initialisation of SPEC §9.5, so that the partial tensors start from the
 * identity too, and whose per-step conversion to the output's dtype
 * recombines exactly (rw_accum_not_associative); a reduce axis must be mentioned by the statement; every
 * subscript item that uses the axis is affine (so shifting the axis by v1
 * maps the second half's elements one to one); a split axis separates the
 * output's elements (two iterations that differ in it never write the same
 * element: the halves do not overlap); no input read along the axis is
 * read only inside if_then_else branches (the copies read unconditionally);
 * no nested nests.
 * Rewrite (axis k split at v1, v2 = n - v1; P_i, Q_i fresh per input read
 * along k, then O1, O2):
 *   H[k:v1][P_i_{s}=X_{s};]  H[k:v2][Q_i_{s}=X_{s+v1};]   (the tx loop
 *      gets extent 1 when no copied subscript uses tx)
 *   H[k:v1][O1=expr(P...)]   H[k:v2][O2=expr(Q...)]
 * split axis:  H[k:v1][Out_{o}=O1_{o}]  H[k:v2][Out_{o+v1}=O2_{o}]
 * (s+v1: k becomes k+v1 where it is only added, as REF writes it: c+g ->
 * c+25+g; in any other affine item a*k+... the item becomes item+a*v1)
 * reduce axis: O1, O2 are indexed by every loop the statement mentions
 *              except k (as REF), so they reduce over k only;
 *              H without k (B^{1}_{tx=0} first if no tx loop remains)
 *              [Out_{o}=Out_{o}+(O1_{s}+O2_{s})]  (* likewise; max/min nest
 *              the calls) reduces over the other loops, with the implicit
 *              initialisation of SPEC 9.5 (none left: Out = O1 + O2).
 * Params: nest, axis, split (= v1 in 1..n-1; enumerate lists n/2).  Size
 * guard: nests of more than 2^31 iterations.
 * Class E† per candidate: split axis E; reduce axis T for + - *, E for max
 * and min. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the nest (0-based); it must have one statement"},
  {"axis", true, "index of the loop to split"},
  {"split", true, "extent of the first half (1 <= split < extent)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (!rw_single_stmt(n)) continue;
    for (int i = 0; i < n->nloops; i++) {
      if (n->loops[i]->extent < 2) continue;
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set(pc->ctx, c, "axis", n->loops[i]->index);
      pass_cand_set_int(pc->ctx, c, "split", n->loops[i]->extent / 2);
      pass_emit(pc, c);
    }
  }
}

/* Resolves nest, axis and split on p. */
static const char *resolve(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **np, IrStmt **sp, int *pos,
                           int64_t *v1) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s)
    return pass_reason(pc, "nest %d has %d statements; tensor_split_to_decouple_operators needs exactly one", c->nest,
                       n->nitems);
  c->site = s->loc;
  const char *axis = pass_cand_get(c, "axis");
  if (!axis) return "missing parameter 'axis'";
  *pos = rw_loop_pos(n, axis);
  if (*pos < 0) return pass_reason(pc, "nest %d has no loop '%s'", c->nest, axis);
  c->site = n->loops[*pos]->loc;
  int r = pass_cand_get_int(c, "split", v1);
  if (r <= 0) return r == 0 ? "missing parameter 'split'" : pass_reason(pc, "split=%s is not an integer", pass_cand_get(c, "split"));
  *np = n;
  *sp = s;
  return NULL;
}

/* Every subscript item that uses the axis is affine; NULL or a reason. */
static const char *check_affine(PassCtx *pc, const IrNest *n, IrStmt *s, const char *axis) {
  PtrVec refs = {0};
  rw_stmt_refs(pc->ctx, s, &refs);
  int64_t cst, coef[DEP_MAX_LOOPS];
  for (int r = 0; r < refs.n; r++) {
    const IrRef *x = refs.v[r];
    for (int d = 0; d < x->nsub; d++)
      if (rw_expr_mentions(x->sub[d], axis) && !dep_affine(x->sub[d], n, &cst, coef))
        return pass_reason(pc, "the subscript item %s of '%s' is not affine in the loop indices",
                           rw_text(pc->ctx, x->sub[d]), x->name);
  }
  return NULL;
}

/* The sites of s's right side that read along the axis (GxSite*: a lazy
 * one sits in an if_then_else branch or the right operand of & or |). */
static void axis_reads(PassCtx *pc, IrStmt *s, const char *axis, PtrVec *out) {
  const PtrVec *sites = gx_sites_of(pc, pc->prog, s);
  for (int i = 0; i < sites->n; i++) {
    const GxSite *g = sites->v[i];
    if (g->e->kind == E_REF && rw_ref_mentions(g->e->u.ref, axis)) ptrvec_push(&pc->ctx->arena, out, (void *)g);
  }
}

/* The site of an input read along the axis only where evaluated lazily:
 * the copy nests would read it where the branch is not taken (possibly out
 * of bounds).  A ref also read unconditionally (e.g. in the condition) is
 * safe. */
static const GxSite *lazy_only_read(PassCtx *pc, IrStmt *s, const char *axis) {
  PtrVec reads = {0};
  axis_reads(pc, s, axis, &reads);
  for (int i = 0; i < reads.n; i++) {
    const GxSite *g = reads.v[i];
    const IrRef *r = g->e->u.ref;
    if (!g->lazy || !strcmp(r->name, s->lhs->name)) continue;
    bool eager = false;
    for (int j = 0; j < reads.n && !eager; j++) {
      const GxSite *h = reads.v[j];
      eager = !h->lazy && !strcmp(gx_ref_text(pc->ctx, h->e->u.ref), gx_ref_text(pc->ctx, r));
    }
    if (!eager) return g;
  }
  return NULL;
}

static void first_read(IrExpr *e, void *u) {
  const IrRef **r = u;
  if (e->kind == E_REF && !*r) *r = e->u.ref;
}

/* The first tensor read inside an item of r's subscript (a data-dependent
 * index), or NULL. */
static const IrRef *subscript_read(const IrRef *r) {
  const IrRef *x = NULL;
  for (int d = 0; d < r->nsub && !x; d++) ir_walk_expr(r->sub[d], first_read, &x);
  return x;
}

static const char *check(PassCtx *pc, PassCand *c) {
  IrNest *n;
  IrStmt *s;
  int pos;
  int64_t v1;
  const char *why = resolve(pc, pc->prog, c, &n, &s, &pos, &v1);
  if (why) return why;
  const IrLoop *l = n->loops[pos];
  const char *axis = l->index;
  if (l->extent < 2) return pass_reason(pc, "loop '%s' has extent 1", axis);
  bool spatial = rw_ref_mentions(s->lhs, axis);
  if (!spatial && !strcmp(axis, "tx")) return "loop 'tx' is not in the output subscript and is excluded as a reduce axis";
  if (!spatial && !rw_stmt_mentions(s, axis))
    return pass_reason(pc, "the statement does not use index '%s' (a repeated loop, not a reduction)", axis);
  if ((why = rw_fresh_inputs_rule(pc, pc->prog, c->nest))) return why;
  if (rw_is_pure_copy(s)) return "the statement is a pure copy";
  const char *v = rw_index_used_as_value(n);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, c->nest);
  IrReduceOp op = rw_accum_op(pc->ctx, s, NULL);
  if (!spatial && op == RED_NONE)
    return pass_reason(pc, "the statement does not accumulate into '%s' (%s=%s+..., *..., max(%s,...) or min(%s,...))",
                       s->lhs->name, s->lhs->name, s->lhs->name, s->lhs->name, s->lhs->name);
  if (s->self_ref && (op == RED_NONE || s->init != INIT_REDUCE))
    return pass_reason(pc, "'%s' updates itself but is not a reduction with an implicit initialisation (SPEC 9.5)",
                       s->lhs->name);
  if (!spatial && (why = rw_accum_not_associative(pc, s, op))) return why;
  /* (fuzz_passes: L^4_c B^4_tx L^16_a [S=S+A_{c,a}] split at c, as in
     reduction_factorization) */
  if (!spatial && (why = rw_repeated_reduction(pc, n, s))) return why;
  if (spatial && !df_loop_separates(n, s->lhs, pos))
    return pass_reason(pc, "iterations that differ in '%s' may write the same element of '%s' (%s)", axis,
                       s->lhs->name, gx_ref_text(pc->ctx, s->lhs));
  if ((why = check_affine(pc, n, s, axis))) return why;
  /* the partial outputs take the output's subscript on a spatial axis: a
     tensor read in it leaves their shapes uninferable (issue 11, fuzz) */
  const IrRef *ix = spatial ? subscript_read(s->lhs) : NULL;
  if (ix)
    return pass_reason(pc, "the subscript of '%s' reads '%s' (a data-dependent index): the shapes of the partial "
                       "outputs cannot be inferred", s->lhs->name, ix->name);
  /* the copies (and, on a spatial axis, the partial outputs) are written
     at these subscripts: an item without a bounded range (1%c, c from 0)
     leaves their shapes uninferable (fuzz_passes) */
  PtrVec along = {0};
  axis_reads(pc, s, axis, &along);
  int nalong = along.n + spatial;
  for (int i = 0; i < nalong; i++) {
    const IrRef *r = i < along.n ? ((const GxSite *)along.v[i])->e->u.ref : s->lhs;
    int ub = rw_unbounded_item(r);
    if (ub >= 0)
      return pass_reason(pc, "item %d of '%s' (%s) has no bounded range: the shapes of the tensors the split writes "
                         "there cannot be inferred", ub, r->name, rw_sub_text(pc->ctx, r));
    int64_t hi;
    if ((ub = rw_oversized_item(r, NULL, &hi)) >= 0)
      return pass_reason(pc, "item %d of '%s' (%s) reaches %lld: a tensor the split writes there would have more "
                         "than %lld elements", ub, r->name, rw_sub_text(pc->ctx, r), (long long)hi,
                         (long long)IR_MAX_NUMEL);
  }
  const GxSite *lz = lazy_only_read(pc, s, axis);
  if (lz)
    return pass_reason(pc, "'%s' is read only inside %s: its copy would read it where %s", lz->e->u.ref->name,
                       gx_lazy_place(lz), lz->logic ? "the left operand decides the result" : "the branch is not taken");
  if (v1 < 1 || v1 >= l->extent)
    return pass_reason(pc, "split=%lld is out of range 1..%lld", (long long)v1, (long long)l->extent - 1);
  if (rw_extent_product(n, -1) > (int64_t)1 << 31)
    return pass_reason(pc, "size guard: nest %d runs more than 2^31 iterations", c->nest);
  c->cls = spatial || op == RED_MAX || op == RED_MIN ? PASS_E : PASS_T;
  c->why = pass_reason(pc, "loop '%s' (extent %lld) of nest %d is %s; no index is used as a value, the subscripts are "
                       "affine in '%s', no input is read only in a lazy branch, and split=%lld is in 1..%lld%s",
                       axis, (long long)l->extent, c->nest,
                       spatial ? pass_reason(pc, "a spatial axis: iterations that differ in it write different "
                                                 "elements of '%s'", s->lhs->name)
                               : pass_reason(pc, "a reduction axis of the implicitly initialised reduction into '%s'",
                                             s->lhs->name),
                       axis, (long long)v1, (long long)l->extent - 1,
                       c->cls == PASS_T ? "; the two partial sums re-associate the reduction (class T)" : "");
  return NULL;
}

/* ------------------------------------------------------------ rewrite */

typedef struct Split {
  LeirCtx *ctx;
  const char *axis;
  int pos;
  int64_t v1, v2;
  int nin;
  const IrRef **in;     /* the inputs read along the axis (distinct texts) */
  const char **p, **q;  /* their halves */
} Split;

/* Does k occur in e only under + nodes (either operand)? */
static bool additive_only(const IrExpr *e, const char *k) {
  switch (e->kind) {
  case E_BINARY:
    if (e->u.bin.op == OP_ADD) return additive_only(e->u.bin.a, k) && additive_only(e->u.bin.b, k);
    return !rw_expr_mentions(e, k);
  case E_INDEX: return true;
  default: return !rw_expr_mentions(e, k);
  }
}

/* Replaces each k under + nodes by k+v1 (no parentheses: c+g gives
 * c+25+g, d+h gives d+h+1, as REF writes them). */
static void add_after(const Split *sp, IrExpr **slot) {
  IrExpr *e = *slot;
  if (e->kind == E_INDEX && !strcmp(e->u.index.name, sp->axis))
    *slot = ir_binary(sp->ctx, OP_ADD, e, ir_int(sp->ctx, sp->v1));
  else if (e->kind == E_BINARY) {
    add_after(sp, &e->u.bin.a);
    add_after(sp, &e->u.bin.b);
  }
}

/* r's subscript with the axis k shifted to k+v1 (items are affine, checked):
 * k+v1 in place where k is only added, else item+a*v1 for an item a*k+... */
static void shift_ref(const Split *sp, const IrNest *n, IrRef *r) {
  LeirCtx *ctx = sp->ctx;
  int64_t c, coef[DEP_MAX_LOOPS];
  for (int d = 0; d < r->nsub; d++) {
    if (!rw_expr_mentions(r->sub[d], sp->axis) || !dep_affine(r->sub[d], n, &c, coef)) continue;
    if (additive_only(r->sub[d], sp->axis)) {
      add_after(sp, &r->sub[d]);
      continue;
    }
    int64_t delta = coef[sp->pos] * sp->v1;
    if (delta) r->sub[d] = ir_binary(ctx, delta > 0 ? OP_ADD : OP_SUB, r->sub[d], ir_int(ctx, delta > 0 ? delta : -delta));
  }
}

/* Inputs of s read along the axis (not the output), distinct by text. */
static void collect_inputs(LeirCtx *ctx, IrStmt *s, Split *sp) {
  PtrVec refs = {0};
  rw_stmt_refs(ctx, s, &refs);
  sp->in = arena_alloc(&ctx->arena, sizeof(IrRef *) * (size_t)refs.n);
  sp->nin = 0;
  for (int r = 1; r < refs.n; r++) {
    const IrRef *x = refs.v[r];
    if (!strcmp(x->name, s->lhs->name) || !rw_ref_mentions(x, sp->axis)) continue;
    bool dup = false;
    for (int i = 0; i < sp->nin; i++) dup |= !strcmp(gx_ref_text(ctx, sp->in[i]), gx_ref_text(ctx, x));
    if (!dup) sp->in[sp->nin++] = x;
  }
}

static IrNest *half(const Split *sp, const IrNest *n, bool second) {
  IrNest *m = gx_nest_like(sp->ctx, n);
  rw_set_extent(m->loops[sp->pos], second ? sp->v2 : sp->v1);
  return m;
}

/* The copy nests: P_i = X (first half), Q_i = X shifted (second half). */
static void copies(const Split *sp, const IrNest *n, IrNest **pa, IrNest **pb) {
  LeirCtx *ctx = sp->ctx;
  IrNest *a = half(sp, n, false), *b = half(sp, n, true);
  bool tx_used = false;
  for (int i = 0; i < sp->nin; i++) tx_used |= rw_ref_mentions(sp->in[i], "tx");
  int tx = rw_loop_pos(n, "tx");
  if (!tx_used && tx >= 0 && tx != sp->pos) {
    rw_set_extent(a->loops[tx], 1);
    rw_set_extent(b->loops[tx], 1);
  }
  for (int i = 0; i < sp->nin; i++) {
    const IrRef *x = sp->in[i];
    IrDType dt = x->tensor ? x->tensor->dtype : x->dt_tag;
    IrRef *pr = rw_ref(ctx, sp->p[i], dt, SC_G, x->sub, x->nsub), *qr = rw_ref(ctx, sp->q[i], dt, SC_G, x->sub, x->nsub);
    IrRef *xs = ir_ref_clone(ctx, x);
    shift_ref(sp, n, xs);
    ir_nest_add_item(ctx, a, ITEM_STMT, ir_stmt_new(ctx, pr, ir_refexpr(ctx, ir_ref_clone(ctx, x))));
    ir_nest_add_item(ctx, b, ITEM_STMT, ir_stmt_new(ctx, qr, ir_refexpr(ctx, xs)));
  }
  *pa = a;
  *pb = b;
}

typedef struct Swap {
  const Split *sp;
  const char **to;
} Swap;

static void swap_walk(IrExpr *e, void *u) {
  Swap *w = u;
  if (e->kind != E_REF) return;
  const char *t = gx_ref_text(w->sp->ctx, e->u.ref);
  for (int i = 0; i < w->sp->nin; i++)
    if (!strcmp(t, gx_ref_text(w->sp->ctx, w->sp->in[i]))) {
      IrRef *r = e->u.ref;
      r->name = w->to[i];
      r->dt_tag = w->sp->in[i]->tensor ? w->sp->in[i]->tensor->dtype : w->sp->in[i]->dt_tag;
      r->sc_tag = SC_G;
      r->tensor = NULL;
      return;
    }
}

/* The subscript of the partial results O1, O2: the output's for a split
 * axis; for a reduce axis (as REF) every loop the statement mentions except
 * the axis, in nest order, so that each partial reduces over the axis only
 * and the combine nest reduces over the other loops. */
static IrRef *partial_ref(const Split *sp, const IrNest *n, const IrStmt *s, const char *o) {
  LeirCtx *ctx = sp->ctx;
  if (rw_ref_mentions(s->lhs, sp->axis)) return rw_ref(ctx, o, rw_ref_dtype(s->lhs), s->lhs->sc_tag, s->lhs->sub, s->lhs->nsub);
  IrExpr **items = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(n->nloops ? n->nloops : 1));
  int k = 0;
  for (int i = 0; i < n->nloops; i++)
    if (i != sp->pos && rw_stmt_mentions(s, n->loops[i]->index)) items[k++] = ir_index(ctx, n->loops[i]->index);
  return rw_ref(ctx, o, rw_ref_dtype(s->lhs), s->lhs->sc_tag, items, k);
}

typedef struct Self {
  const char *name;
  const IrRef *to;
  LeirCtx *ctx;
} Self;

static void self_walk(IrExpr *e, void *u) {
  Self *w = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, w->name)) e->u.ref = ir_ref_clone(w->ctx, w->to);
}

/* A half of the computation: the statement on P (or Q) into O1 (or O2). */
static IrNest *partial(const Split *sp, const IrNest *n, const IrStmt *s, bool second, const char *o) {
  LeirCtx *ctx = sp->ctx;
  IrNest *m = half(sp, n, second);
  IrRef *pr = partial_ref(sp, n, s, o);
  IrStmt *c = ir_stmt_new(ctx, pr, ir_expr_clone(ctx, s->rhs));
  Swap w = {sp, second ? sp->q : sp->p};
  ir_walk_expr(c->rhs, swap_walk, &w);
  Self sw = {s->lhs->name, pr, ctx};
  ir_walk_expr(c->rhs, self_walk, &sw);
  ir_nest_add_item(ctx, m, ITEM_STMT, c);
  return m;
}

static IrExpr *ref_as(LeirCtx *ctx, const IrRef *like, const char *name) {
  return ir_refexpr(ctx, rw_ref(ctx, name, rw_ref_dtype(like), like->sc_tag, like->sub, like->nsub));
}

/* The reduce-axis combine nest: Out = Out op (O1 op O2) over n's loops
 * without the axis. */
static IrNest *combine_nest(const Split *sp, const IrNest *n, const IrStmt *s, const char *o1, const char *o2) {
  LeirCtx *ctx = sp->ctx;
  IrNest *m = gx_nest_like(ctx, n);
  rw_remove_loop(m, sp->pos);
  bool has_tx = false;
  for (int i = 0; i < m->nloops; i++)
    has_tx |= !strcmp(m->loops[i]->index, "tx") || (m->loops[i]->kind == LOOP_B && m->loops[i]->hw == HW_TX);
  if (!has_tx) rw_insert_loop(ctx, m, 0, rw_loop(ctx, LOOP_B, 1, "tx"));
  IrReduceOp op = rw_accum_op(ctx, s, NULL);
  IrExpr *pair = rw_accum_combine(ctx, op, ir_refexpr(ctx, partial_ref(sp, n, s, o1)), ir_refexpr(ctx, partial_ref(sp, n, s, o2)));
  if (op != RED_MAX && op != RED_MIN) pair = ir_paren(ctx, pair);
  IrExpr *rhs = rw_accum_combine(ctx, op, ir_refexpr(ctx, ir_ref_clone(ctx, s->lhs)), pair);
  ir_nest_add_item(ctx, m, ITEM_STMT, ir_stmt_new(ctx, ir_ref_clone(ctx, s->lhs), rhs));
  return m;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  IrNest *n;
  IrStmt *s;
  int pos;
  int64_t v1;
  if (resolve(pc, q, &cc, &n, &s, &pos, &v1)) return false;
  Split sp = {ctx, n->loops[pos]->index, pos, v1, n->loops[pos]->extent - v1, 0, NULL, NULL, NULL};
  collect_inputs(ctx, s, &sp);
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  sp.p = arena_alloc(&ctx->arena, sizeof(char *) * (size_t)(sp.nin ? sp.nin : 1));
  sp.q = arena_alloc(&ctx->arena, sizeof(char *) * (size_t)(sp.nin ? sp.nin : 1));
  for (int i = 0; i < sp.nin; i++) {
    sp.p[i] = pass_fresh_tensor(&ns);
    sp.q[i] = pass_fresh_tensor(&ns);
  }
  const char *o1 = pass_fresh_tensor(&ns), *o2 = pass_fresh_tensor(&ns);
  IrNest *out[6];
  int k = 0;
  if (sp.nin) {
    copies(&sp, n, &out[0], &out[1]);
    k = 2;
  }
  out[k++] = partial(&sp, n, s, false, o1);
  out[k++] = partial(&sp, n, s, true, o2);
  if (rw_ref_mentions(s->lhs, sp.axis)) {
    IrNest *a = half(&sp, n, false), *b = half(&sp, n, true);
    ir_nest_add_item(ctx, a, ITEM_STMT, ir_stmt_new(ctx, ir_ref_clone(ctx, s->lhs), ref_as(ctx, s->lhs, o1)));
    IrRef *w = ir_ref_clone(ctx, s->lhs);
    shift_ref(&sp, n, w);
    ir_nest_add_item(ctx, b, ITEM_STMT, ir_stmt_new(ctx, w, ref_as(ctx, s->lhs, o2)));
    out[k++] = a;
    out[k++] = b;
  } else {
    out[k++] = combine_nest(&sp, n, s, o1, o2);
  }
  q->nests[cc.nest] = out[0];
  for (int i = 1; i < k; i++) rw_insert_nest(ctx, q, cc.nest + i, out[i]);
  return true;
}

const PassImpl pass_impl_tensor_split_to_decouple_operators = {
    .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
