/* tensor_concat_to_fuse_operators.c -- STRATEGIES §1.5: concatenate the
 * inputs of two identical computations and compute them in one nest.
 *
 * Pre (REF): consecutive single-statement nests (i, i+1) with the same
 * number of loops; nest i's output not read by nest i+1; equal calc
 * skeletons that are not a pure copy, and no max, min or if_then_else in
 * nest i.  K = the loop positions whose extents differ (none: position 0).
 * REC: the two statements are the same tree up to the names of the tensors
 * read along K (same operators, literals, parentheses and subscripts); the
 * loops have the same index names and kinds; a read not along K is the same
 * tensor in both; a K index appears only as a whole subscript item and is
 * in the output subscript (so the two halves never share an element: K is
 * never a reduction loop); no index is used as a value; a statement that
 * updates itself is an accumulation with its implicit initialisation
 * (SPEC §9.5), in both nests; equal output dtypes and equal dtypes of each
 * concatenated pair; no nested nests; the fused nest within the hardware
 * limits (REC: tx <= 1024); every item of a concatenated read and of the
 * output has a bounded range, and the tensors written there with the K
 * extents summed (the concat tensors, the fused output) have at most
 * IR_MAX_NUMEL elements (else the result would not analyse: fuzz_passes);
 * a concatenated read that the statement makes lazily (inside
 * if_then_else, right of a bool & or |) is provably in bounds, since the
 * copy nests read it at every iteration (gx_lazy_read_unbounded).
 * Rewrite, with E1 the extents of nest i and shift(k) = k+E1 at K:
 *   H(i)[Z1_{s}=X1_{s};...]   H(i+1)[Z1_{shift(s)}=X2_{s};...]
 *   H(i) with K extents summed [O_{o}=expr(Z...)]
 *   H(i)[Out1_{o}=O_{o}]      H(i+1)[Out2_{o}=O_{shift(o)}]
 * (REF-BUG: REF takes the output ref from the wrong nest; here nest i's.)
 * The fused nest also computes the off-diagonal blocks when two extents
 * differ (from never-written Z elements); nothing reads them.
 * Params: nest (= i).  Class E. */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"
#include "ir/range.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the first of the two nests (0-based)"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 1 < pc->prog->nnests; k++) {
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

/* ------------------------------------------------------------ structure */

typedef struct Pairs {
  LeirCtx *ctx;
  PtrVec a, b; /* IrRef* of the right sides, in the same walk order */
} Pairs;

/* Same tree up to the names of refs (whose subscripts must be equal). */
static bool same_tree(Pairs *pr, const IrExpr *x, const IrExpr *y) {
  if (x->kind != y->kind) return false;
  switch (x->kind) {
  case E_INT: return x->u.ilit.value == y->u.ilit.value;
  case E_FLOAT: return !memcmp(&x->u.flit.value, &y->u.flit.value, sizeof(double));
  case E_INF: return true;
  case E_INDEX: return !strcmp(x->u.index.name, y->u.index.name);
  case E_REF:
    if (x->u.ref->nsub != y->u.ref->nsub || strcmp(rw_sub_text(pr->ctx, x->u.ref), rw_sub_text(pr->ctx, y->u.ref)))
      return false;
    ptrvec_push(&pr->ctx->arena, &pr->a, x->u.ref);
    ptrvec_push(&pr->ctx->arena, &pr->b, y->u.ref);
    return true;
  case E_UNARY: return x->u.unary.op == y->u.unary.op && same_tree(pr, x->u.unary.a, y->u.unary.a);
  case E_BINARY:
    return x->u.bin.op == y->u.bin.op && same_tree(pr, x->u.bin.a, y->u.bin.a) && same_tree(pr, x->u.bin.b, y->u.bin.b);
  case E_CMP:
    if (x->u.cmp.n != y->u.cmp.n) return false;
    for (int i = 0; i < x->u.cmp.n; i++)
      if ((i && x->u.cmp.op[i - 1] != y->u.cmp.op[i - 1]) || !same_tree(pr, x->u.cmp.operand[i], y->u.cmp.operand[i]))
        return false;
    return true;
  case E_CALL:
    if (x->u.call.func != y->u.call.func || x->u.call.nargs != y->u.call.nargs) return false;
    for (int i = 0; i < x->u.call.nargs; i++)
      if (!same_tree(pr, x->u.call.args[i], y->u.call.args[i])) return false;
    return true;
  case E_PAREN: return same_tree(pr, x->u.paren, y->u.paren);
  }
  return false;
}

static bool has_minmax_ite(const IrExpr *e) {
  switch (e->kind) {
  case E_CALL:
    if (e->u.call.func == F_MAX || e->u.call.func == F_MIN || e->u.call.func == F_ITE) return true;
    for (int i = 0; i < e->u.call.nargs; i++)
      if (has_minmax_ite(e->u.call.args[i])) return true;
    return false;
  case E_UNARY: return has_minmax_ite(e->u.unary.a);
  case E_BINARY: return has_minmax_ite(e->u.bin.a) || has_minmax_ite(e->u.bin.b);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (has_minmax_ite(e->u.cmp.operand[i])) return true;
    return false;
  case E_PAREN: return has_minmax_ite(e->u.paren);
  default: return false;
  }
}

/* ------------------------------------------------------------ analysis */

typedef struct Plan {
  IrNest *a, *b;
  IrStmt *sa, *sb;
  int nk;
  int kpos[DEP_MAX_LOOPS];
  Pairs pr;
} Plan;

static bool uses_k(const Plan *pl, const IrRef *r) {
  for (int i = 0; i < pl->nk; i++)
    if (rw_ref_mentions(r, pl->a->loops[pl->kpos[i]]->index)) return true;
  return false;
}

/* A K index inside a compound item of r: its item text, else NULL. */
static const char *k_inside_item(LeirCtx *ctx, const Plan *pl, const IrRef *r) {
  for (int d = 0; d < r->nsub; d++) {
    const IrExpr *e = ir_expr_unparen(r->sub[d]);
    for (int i = 0; i < pl->nk; i++) {
      const char *k = pl->a->loops[pl->kpos[i]]->index;
      if (rw_expr_mentions(r->sub[d], k) && !(e->kind == E_INDEX && !strcmp(e->u.index.name, k)))
        return rw_text(ctx, r->sub[d]);
    }
  }
  return NULL;
}

static bool is_self(const IrStmt *s, const IrRef *r) { return !strcmp(r->name, s->lhs->name); }

/* Whether a fresh tensor written at r's subscript with the K extents
 * summed (a concat tensor, or the fused output) has an inferable shape of
 * at most IR_MAX_NUMEL elements: else the reason.  K items are bare
 * indices (k_inside_item), so only they grow, to E1+E2. */
static const char *fresh_shape(PassCtx *pc, const Plan *pl, const IrRef *r, const char *what) {
  int d = rw_unbounded_item(r);
  if (d >= 0) /* (fuzz_passes: f//+h, h from 0) */
    return pass_reason(pc, "item %d of '%s' (%s) has no bounded range, so the shape of %s cannot be inferred", d,
                       r->name, rw_sub_text(pc->ctx, r), what);
  int64_t *extent = arena_alloc(&pc->ctx->arena, (size_t)(r->nsub + 1) * sizeof *extent), hi;
  for (d = 0; d < r->nsub; d++) {
    const IrExpr *x = ir_expr_unparen(r->sub[d]);
    for (int k = 0; k < pl->nk && x->kind == E_INDEX; k++)
      if (!strcmp(x->u.index.name, pl->a->loops[pl->kpos[k]]->index))
        extent[d] = pl->a->loops[pl->kpos[k]]->extent + pl->b->loops[pl->kpos[k]]->extent;
  }
  if (rw_oversized_item(r, extent, &hi) >= 0)
    return pass_reason(pc, "%s, written at the subscript of '%s' (%s) with the concatenated extents, would have more "
                       "than %lld elements", what, r->name, rw_sub_text(pc->ctx, r), (long long)IR_MAX_NUMEL);
  return NULL;
}

static IrDType dtype_of(const IrRef *r) { return r->tensor ? r->tensor->dtype : r->dt_tag; }

static const char *check_loops(PassCtx *pc, Plan *pl, int i) {
  const IrNest *a = pl->a, *b = pl->b;
  if (a->nloops != b->nloops) return pass_reason(pc, "nests %d and %d have %d and %d loops", i, i + 1, a->nloops, b->nloops);
  if (a->nloops == 0) return pass_reason(pc, "nest %d has no loops", i);
  pl->nk = 0;
  for (int k = 0; k < a->nloops && k < DEP_MAX_LOOPS; k++) {
    const IrLoop *x = a->loops[k], *y = b->loops[k];
    if (strcmp(x->index, y->index) || x->kind != y->kind)
      return pass_reason(pc, "loop %d is %c '%s' in nest %d but %c '%s' in nest %d", k, ir_loop_kind_char(x->kind),
                         x->index, i, ir_loop_kind_char(y->kind), y->index, i + 1);
    if (x->extent != y->extent) pl->kpos[pl->nk++] = k;
  }
  if (pl->nk == 0) pl->kpos[pl->nk++] = 0;
  return NULL;
}

static const char *check_refs(PassCtx *pc, Plan *pl, int i) {
  LeirCtx *ctx = pc->ctx;
  PtrVec all = {0};
  rw_stmt_refs(ctx, pl->sa, &all);
  for (int r = 0; r < all.n; r++) {
    const char *item = k_inside_item(ctx, pl, all.v[r]);
    if (item)
      return pass_reason(pc, "'%s' has the concatenated index in the subscript item %s", ((IrRef *)all.v[r])->name,
                         item);
  }
  for (int k = 0; k < pl->nk; k++) {
    const char *x = pl->a->loops[pl->kpos[k]]->index;
    if (!rw_ref_mentions(pl->sa->lhs, x))
      return pass_reason(pc, "'%s' is not in the output subscript of nest %d: concatenating along it would merge two "
                         "reductions", x, i);
  }
  int nconcat = 0;
  for (int r = 0; r < pl->pr.a.n; r++) {
    const IrRef *x = pl->pr.a.v[r], *y = pl->pr.b.v[r];
    bool sx = is_self(pl->sa, x), sy = is_self(pl->sb, y);
    nconcat += !sx && uses_k(pl, x);
    if (sx != sy || (!sx && !uses_k(pl, x) && strcmp(x->name, y->name)))
      return pass_reason(pc, "nest %d reads '%s' where nest %d reads '%s'", i, x->name, i + 1, y->name);
    if (!sx && uses_k(pl, x) && dtype_of(x) != dtype_of(y))
      return pass_reason(pc, "'%s' is %s but '%s' is %s", x->name, ir_dtype_name(dtype_of(x)), y->name,
                         ir_dtype_name(dtype_of(y)));
  }
  if (nconcat == 0)
    return pass_reason(pc, "nest %d reads no tensor along '%s', the concatenated loop", i,
                       pl->a->loops[pl->kpos[0]]->index);
  return NULL;
}

static const char *check_accum(PassCtx *pc, const IrStmt *s, int k) {
  if (!s->self_ref) return NULL;
  if (rw_accum_op(pc->ctx, s, NULL) == RED_NONE || s->init != INIT_REDUCE)
    return pass_reason(pc, "'%s' in nest %d updates itself but is not a reduction with an implicit initialisation "
                       "(SPEC 9.5)", s->lhs->name, k);
  return NULL;
}

/* The fused nest's loops (nest i's with the extents along K summed). */
static IrNest *fused_header(LeirCtx *ctx, const Plan *pl) {
  IrNest *m = gx_nest_like(ctx, pl->a);
  for (int k = 0; k < pl->nk; k++) {
    int p = pl->kpos[k];
    rw_set_extent(m->loops[p], pl->a->loops[p]->extent + pl->b->loops[p]->extent);
  }
  return m;
}

static const char *analyse(PassCtx *pc, const IrProgram *p, PassCand *c, Plan *pl) {
  const char *why;
  LeirCtx *ctx = pc->ctx;
  pl->a = gx_cand_pair(pc, p, c, &pl->b, &why);
  if (!pl->a) return why;
  int i = c->nest;
  pl->sa = rw_single_stmt(pl->a);
  pl->sb = rw_single_stmt(pl->b);
  if (!pl->sa || !pl->sb)
    return pass_reason(pc, "nest %d has %d statements; both nests need exactly one", pl->sa ? i + 1 : i,
                       (pl->sa ? pl->b : pl->a)->nitems);
  c->site = pl->sa->loc;
  if ((why = check_loops(pc, pl, i))) return why;
  PtrVec refs = {0};
  rw_stmt_refs(ctx, pl->sb, &refs);
  for (int r = 1; r < refs.n; r++)
    if (!strcmp(((IrRef *)refs.v[r])->name, pl->sa->lhs->name))
      return pass_reason(pc, "nest %d reads '%s', which nest %d writes", i + 1, pl->sa->lhs->name, i);
  if (rw_is_pure_copy(pl->sa)) return pass_reason(pc, "the statement of nest %d is a pure copy", i);
  if (has_minmax_ite(pl->sa->rhs)) return pass_reason(pc, "nest %d uses max, min or if_then_else", i);
  pl->pr = (Pairs){ctx, {0}, {0}};
  if (strcmp(rw_sub_text(ctx, pl->sa->lhs), rw_sub_text(ctx, pl->sb->lhs)) || !same_tree(&pl->pr, pl->sa->rhs, pl->sb->rhs))
    return pass_reason(pc, "the statements of nests %d and %d are not the same computation", i, i + 1);
  const char *v = rw_index_used_as_value(pl->a);
  if (v) return pass_reason(pc, "index '%s' is used as a value in nest %d", v, i);
  if ((why = check_refs(pc, pl, i))) return why;
  if ((why = check_accum(pc, pl->sa, i)) || (why = check_accum(pc, pl->sb, i + 1))) return why;
  if (dtype_of(pl->sa->lhs) != dtype_of(pl->sb->lhs))
    return pass_reason(pc, "'%s' is %s but '%s' is %s", pl->sa->lhs->name, ir_dtype_name(dtype_of(pl->sa->lhs)),
                       pl->sb->lhs->name, ir_dtype_name(dtype_of(pl->sb->lhs)));
  IrNest *m = fused_header(ctx, pl);
  if ((why = rw_hw_limits(pc, m))) return pass_reason(pc, "the fused nest breaks a hardware limit: %s", why);
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  Plan pl;
  const char *why = analyse(pc, pc->prog, c, &pl);
  if (why) return why;
  /* the ranges need the analysed program: here, not in analyse (which
     apply runs on the copy); a pair's items have the same text and, off
     K, the same ranges */
  for (int r = 0; r < pl.pr.a.n; r++) {
    const IrRef *x = pl.pr.a.v[r], *y = pl.pr.b.v[r];
    if (is_self(pl.sa, x) || !uses_k(&pl, x)) continue;
    if ((why = fresh_shape(pc, &pl, x, "the concatenated copy"))) return why;
    /* the copy nests read x and y at every iteration: not where the
       statement reads them lazily and they may be out of bounds (the
       right side of a bool &: fuzz_passes, 4 Dec 2026) */
    if ((why = gx_lazy_read_unbounded(pc, pl.sa, x)) || (why = gx_lazy_read_unbounded(pc, pl.sb, y))) return why;
  }
  if ((why = fresh_shape(pc, &pl, pl.sa->lhs, "the fused output"))) return why;
  SBuf k = {0};
  for (int i = 0; i < pl.nk; i++) sbuf_printf(&k, "%s'%s'", i ? ", " : "", pl.a->loops[pl.kpos[i]]->index);
  c->why = pass_reason(pc, "nests %d and %d are single-statement nests computing the same tree (%s) up to the tensors "
                       "read along %s, which appear only as whole subscript items of the output, so the halves never "
                       "share an element; nest %d does not read nest %d's output and the fused nest fits the "
                       "hardware limits",
                       c->nest, c->nest + 1, rw_text(pc->ctx, pl.sa->rhs), k.s ? k.s : "none", c->nest + 1, c->nest);
  sbuf_free(&k);
  return NULL;
}

/* ------------------------------------------------------------ rewrite */

typedef struct Concat {
  const IrRef *x1, *x2; /* the pair */
  const char *z;
} Concat;

/* Index of the concat tensor of pair r (deduplicated by ref texts). */
static int concat_of(LeirCtx *ctx, Concat *cs, int *n, const IrRef *x1, const IrRef *x2, PassNames *ns) {
  const char *t1 = gx_ref_text(ctx, x1), *t2 = gx_ref_text(ctx, x2);
  for (int i = 0; i < *n; i++)
    if (!strcmp(gx_ref_text(ctx, cs[i].x1), t1) && !strcmp(gx_ref_text(ctx, cs[i].x2), t2)) return i;
  cs[*n] = (Concat){x1, x2, pass_fresh_tensor(ns)};
  return (*n)++;
}

static void shift_ref(LeirCtx *ctx, const Plan *pl, IrRef *r) {
  for (int k = 0; k < pl->nk; k++) {
    int p = pl->kpos[k];
    const char *x = pl->a->loops[p]->index;
    rw_subst_sub_ref(ctx, r, x, ir_binary(ctx, OP_ADD, ir_index(ctx, x), ir_int(ctx, pl->a->loops[p]->extent)));
  }
}

/* The refs of e in walk order, as slots (for replacing them). */
static void ref_slots(LeirCtx *ctx, IrExpr **slot, PtrVec *out) {
  IrExpr *e = *slot;
  switch (e->kind) {
  case E_REF: ptrvec_push(&ctx->arena, out, slot); break;
  case E_UNARY: ref_slots(ctx, &e->u.unary.a, out); break;
  case E_BINARY:
    ref_slots(ctx, &e->u.bin.a, out);
    ref_slots(ctx, &e->u.bin.b, out);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) ref_slots(ctx, &e->u.cmp.operand[i], out);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) ref_slots(ctx, &e->u.call.args[i], out);
    break;
  case E_PAREN: ref_slots(ctx, &e->u.paren, out); break;
  default: break;
  }
}

static IrRef *retag(LeirCtx *ctx, const IrRef *r, const char *name, IrDType dt) {
  IrRef *c = ir_ref_clone(ctx, r);
  c->name = name;
  c->dt_tag = dt;
  c->sc_tag = SC_G;
  c->tensor = NULL;
  return c;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c0) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c0;
  Plan pl;
  if (analyse(pc, q, &cc, &pl)) return false;
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  int np = pl.pr.a.n, nc = 0;
  Concat *cs = arena_alloc(&ctx->arena, sizeof(Concat) * (size_t)(np ? np : 1));
  int *which = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(np ? np : 1));
  for (int r = 0; r < np; r++) {
    const IrRef *x = pl.pr.a.v[r];
    which[r] = (!is_self(pl.sa, x) && uses_k(&pl, x)) ? concat_of(ctx, cs, &nc, x, pl.pr.b.v[r], &ns) : -1;
  }
  const char *o = pass_fresh_tensor(&ns);
  IrDType odt = dtype_of(pl.sa->lhs);
  /* copies */
  IrNest *ca = gx_nest_like(ctx, pl.a), *cb = gx_nest_like(ctx, pl.b);
  for (int k = 0; k < nc; k++) {
    IrDType dt = dtype_of(cs[k].x1);
    ir_nest_add_item(ctx, ca, ITEM_STMT,
                     ir_stmt_new(ctx, retag(ctx, cs[k].x1, cs[k].z, dt), ir_refexpr(ctx, ir_ref_clone(ctx, cs[k].x1))));
    IrRef *zb = retag(ctx, cs[k].x2, cs[k].z, dt);
    shift_ref(ctx, &pl, zb);
    ir_nest_add_item(ctx, cb, ITEM_STMT, ir_stmt_new(ctx, zb, ir_refexpr(ctx, ir_ref_clone(ctx, cs[k].x2))));
  }
  /* the fused computation */
  IrNest *m = fused_header(ctx, &pl);
  IrExpr *rhs = ir_expr_clone(ctx, pl.sa->rhs);
  PtrVec slots = {0};
  ref_slots(ctx, &rhs, &slots);
  for (int r = 0; r < slots.n && r < np; r++) {
    IrExpr **s = slots.v[r];
    if (which[r] >= 0) *s = ir_refexpr(ctx, retag(ctx, (*s)->u.ref, cs[which[r]].z, dtype_of(cs[which[r]].x1)));
    else if (is_self(pl.sa, (*s)->u.ref)) *s = ir_refexpr(ctx, retag(ctx, (*s)->u.ref, o, odt));
  }
  ir_nest_add_item(ctx, m, ITEM_STMT, ir_stmt_new(ctx, retag(ctx, pl.sa->lhs, o, odt), rhs));
  /* split back */
  IrNest *ba = gx_nest_like(ctx, pl.a), *bb = gx_nest_like(ctx, pl.b);
  ir_nest_add_item(ctx, ba, ITEM_STMT,
                   ir_stmt_new(ctx, ir_ref_clone(ctx, pl.sa->lhs), ir_refexpr(ctx, retag(ctx, pl.sa->lhs, o, odt))));
  IrRef *ob = retag(ctx, pl.sa->lhs, o, odt);
  shift_ref(ctx, &pl, ob);
  ir_nest_add_item(ctx, bb, ITEM_STMT, ir_stmt_new(ctx, ir_ref_clone(ctx, pl.sb->lhs), ir_refexpr(ctx, ob)));
  int i = cc.nest;
  q->nests[i] = ca;
  q->nests[i + 1] = cb;
  rw_insert_nest(ctx, q, i + 2, m);
  rw_insert_nest(ctx, q, i + 3, ba);
  rw_insert_nest(ctx, q, i + 4, bb);
  return true;
}

const PassImpl pass_impl_tensor_concat_to_fuse_operators = {
    .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
