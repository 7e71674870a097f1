/* mathpat_chain.c -- the max / sum-of-exp / division chain of the softmax
 * family (mathpat.h): matching it and checking the tensors it changes.
 * Moved out of mathpat.c (issue 39) unchanged. */
#include "passes/mathpat.h"

#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the max/sum chain */

static const char *max_subscripts(PassCtx *pc, const IrNest *n, MpMax *o) {
  LeirCtx *ctx = pc->ctx;
  const IrRef *m = o->m, *x = o->x;
  if (!mp_simple_subscript(m))
    return pass_reason(pc, "the subscript of '%s' (%s) is not made of distinct loop indices and constants", m->name,
                       rw_sub_text(ctx, m));
  const char *msub = rw_sub_text(ctx, m);
  for (int i = 0; x->nsub == m->nsub + 1 && i < x->nsub; i++) {
    const IrExpr *it = x->sub[i];
    if (it->kind != E_INDEX || rw_loop_pos(n, it->u.index.name) < 0 || rw_ref_mentions(m, it->u.index.name)) continue;
    IrRef rest = *x;
    IrExpr *v[x->nsub];
    for (int j = 0, k = 0; j < x->nsub; j++)
      if (j != i) v[k++] = x->sub[j];
    rest.sub = v;
    rest.nsub = x->nsub - 1;
    if (strcmp(rw_sub_text(ctx, &rest), msub)) continue;
    o->r = it->u.index.name;
    o->ins = i;
    o->rloop = rw_loop_pos(n, o->r);
    o->n = n->loops[o->rloop]->extent;
    return NULL;
  }
  return pass_reason(pc, "the subscript of '%s' (%s) is not that of '%s' (%s) with one reduction index inserted", x->name,
                     rw_sub_text(ctx, x), m->name, msub);
}

/* Elements of the running tensor: M's extents times n. */
static bool running_size_ok(const IrNest *n, const MpMax *o) {
  int64_t e = o->n;
  for (int i = 0; i < o->m->nsub; i++) {
    const IrExpr *it = o->m->sub[i];
    int64_t d = it->kind == E_INT ? it->u.ilit.value + 1 : n->loops[rw_loop_pos(n, it->u.index.name)]->extent;
    if (__builtin_mul_overflow(e, d, &e) || e > IR_MAX_NUMEL) return false;
  }
  return true;
}

const char *mp_match_max(PassCtx *pc, const IrProgram *p, int k, bool strict, MpMax *out) {
  LeirCtx *ctx = pc->ctx;
  const char *why;
  memset(out, 0, sizeof *out);
  out->k = k;
  IrNest *n = rw_top_nest(pc, p, k, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d items; the max nest must hold exactly one statement", k, n->nitems);
  out->s = s;
  out->m = s->lhs;
  const IrExpr *e = s->rhs;
  if (e->kind != E_CALL || e->u.call.func != F_MAX || e->u.call.nargs != 2 || e->u.call.args[0]->kind != E_REF ||
      e->u.call.args[1]->kind != E_REF || !mp_ref_same(ctx, e->u.call.args[0]->u.ref, s->lhs) ||
      !strcmp(e->u.call.args[1]->u.ref->name, s->lhs->name))
    return pass_reason(pc, "the statement of nest %d is not a max reduction 'M=max(M,X)' with X a tensor reference", k);
  out->x = e->u.call.args[1]->u.ref;
  if (s->init != INIT_REDUCE || s->redop != RED_MAX)
    return pass_reason(pc, "'%s' is written before nest %d, so the max has no implicit -inf initialisation (SPEC 9.5)",
                       s->lhs->name, k);
  if ((why = max_subscripts(pc, n, out))) return why;
  const IrLoop *rl = n->loops[out->rloop];
  if (rl->kind != LOOP_L && rl->kind != LOOP_U)
    return pass_reason(pc, "the reduction loop '%s' is a %c loop; a running (prefix) form reads the previous iteration, "
                       "so it must be a serial L or U loop", out->r, ir_loop_kind_char(rl->kind));
  if (s->nred != 1 || strcmp(s->red[0]->index, out->r))
    return pass_reason(pc, "the statement reduces over more than loop '%s'", out->r);
  for (int i = 0; strict && i < n->nloops; i++)
    if (n->loops[i]->extent > 1 && !rw_stmt_mentions(s, n->loops[i]->index))
      return pass_reason(pc, "loop '%s' of nest %d is not used by its statement (a repeated reduction)", n->loops[i]->index,
                         k);
  if (!running_size_ok(n, out))
    return pass_reason(pc, "the running tensor would have more than 2^40 elements");
  return NULL;
}

const char *mp_max_not_float(PassCtx *pc, const MpMax *mx) {
  /* in a u16 statement inf is 65535, negated in max's u32 arithmetic
     4294901761, which wins every max and stores as 1 (fuzz_passes: with
     the maximum at a = 0, 15 became 14) */
  IrDType mt = rw_ref_dtype(mx->m);
  if (ir_dtype_is_float(mt)) return NULL;
  return pass_reason(pc, "'%s' is %s: the prefix form's -inf (at %s = 0) is no identity in an integer type",
                     mx->m->name, ir_dtype_name(mt), mx->r);
}

static bool is_ref_like(LeirCtx *ctx, const IrExpr *e, const IrRef *want) {
  return e->kind == E_REF && mp_ref_same(ctx, e->u.ref, want);
}

/* exp(X-M) with the chain's X and M */
static bool is_exp_x_minus_m(LeirCtx *ctx, const IrExpr *e, const MpMax *mx) {
  if (e->kind != E_CALL || e->u.call.func != F_EXP || e->u.call.nargs != 1) return false;
  const IrExpr *d = e->u.call.args[0];
  return d->kind == E_BINARY && d->u.bin.op == OP_SUB && is_ref_like(ctx, d->u.bin.a, mx->x) &&
         is_ref_like(ctx, d->u.bin.b, mx->m);
}

const char *mp_match_softmax(PassCtx *pc, const IrProgram *p, int k, MpSoftmax *out) {
  LeirCtx *ctx = pc->ctx;
  memset(out, 0, sizeof *out);
  const char *why = mp_match_max(pc, p, k, true, &out->mx);
  if (why || (why = mp_max_not_float(pc, &out->mx))) return why;
  if (k + 1 >= p->nnests) return pass_reason(pc, "nest %d is the last nest: no exp-sum follows the max", k);
  IrNest *n2 = rw_top_nest(pc, p, k + 1, &why);
  if (!n2) return why;
  IrStmt *s = rw_single_stmt(n2);
  if (!s)
    return pass_reason(pc, "nest %d has %d items; the exp-sum nest must hold exactly one statement", k + 1, n2->nitems);
  if (!mp_same_header(p->nests[k], n2))
    return pass_reason(pc, "nests %d and %d have different loops (the fused nest needs identical headers)", k, k + 1);
  const IrExpr *e = s->rhs;
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD || !is_ref_like(ctx, e->u.bin.a, s->lhs) ||
      !is_exp_x_minus_m(ctx, e->u.bin.b, &out->mx) || !strcmp(s->lhs->name, out->mx.m->name) ||
      !strcmp(s->lhs->name, out->mx.x->name))
    return pass_reason(pc, "the statement of nest %d is not the exp-sum 'S=S+exp(%s-%s)' of the max in nest %d", k + 1,
                       out->mx.x->name, out->mx.m->name, k);
  if (s->init != INIT_REDUCE || s->redop != RED_ADD)
    return pass_reason(pc, "'%s' is written before nest %d, so the sum has no implicit initialisation (SPEC 9.5)",
                       s->lhs->name, k + 1);
  if (strcmp(rw_sub_text(ctx, s->lhs), rw_sub_text(ctx, out->mx.m)))
    return pass_reason(pc, "the sum '%s_{%s}' and the max '%s_{%s}' have different subscripts", s->lhs->name,
                       rw_sub_text(ctx, s->lhs), out->mx.m->name, rw_sub_text(ctx, out->mx.m));
  out->ssum = s;
  out->sref = s->lhs;
  return NULL;
}

bool mp_is_division(LeirCtx *ctx, const IrExpr *e, const MpSoftmax *sm) {
  return e->kind == E_BINARY && e->u.bin.op == OP_DIV && is_exp_x_minus_m(ctx, e->u.bin.a, &sm->mx) &&
         is_ref_like(ctx, e->u.bin.b, sm->sref);
}

static IrStmt *find_div_in(LeirCtx *ctx, const IrNest *n, const MpSoftmax *sm) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      IrStmt *s = find_div_in(ctx, n->items[i].u.nest, sm);
      if (s) return s;
    } else if (mp_is_division(ctx, n->items[i].u.stmt->rhs, sm)) {
      return n->items[i].u.stmt;
    }
  }
  return NULL;
}

int mp_find_division(LeirCtx *ctx, const IrProgram *p, int from, const MpSoftmax *sm, IrStmt **out) {
  for (int k = from; k < p->nnests; k++)
    if ((*out = find_div_in(ctx, p->nests[k], sm))) return k;
  *out = NULL;
  return -1;
}

IrRef *mp_running_ref(LeirCtx *ctx, const MpSoftmax *sm, const char *name, IrDType dt, IrScope sc) {
  IrRef *r = rw_ref(ctx, name, dt, sc, sm->mx.m->sub, sm->mx.m->nsub);
  IrExpr *ri = ir_index(ctx, sm->mx.r);
  mp_insert_item(ctx, r, sm->mx.ins, ri);
  return r;
}

IrNest *mp_fused_nest(LeirCtx *ctx, const IrNest *maxnest, const MpSoftmax *sm, const char *gname, IrScope msc,
                      IrScope gsc) {
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)maxnest->nloops);
  for (int i = 0; i < maxnest->nloops; i++) loops[i] = rw_loop_clone(ctx, maxnest->loops[i]);
  IrNest *f = ir_nest_new(ctx, maxnest->nloops, loops);
  f->loc = maxnest->loc;
  const IrRef *m = sm->mx.m, *s = sm->sref;
  const char *r = sm->mx.r;
  if (msc == SC_NONE) msc = m->sc_tag;
  if (gsc == SC_NONE) gsc = s->sc_tag;
  /* the running tensors hold M's and S's values: their dtypes (rw_ref_dtype) */
  IrRef *mr = mp_running_ref(ctx, sm, m->name, rw_ref_dtype(m), msc);
  IrRef *gr = mp_running_ref(ctx, sm, gname, rw_ref_dtype(s), gsc);
  IrExpr *x = ir_refexpr(ctx, ir_ref_clone(ctx, sm->mx.x));
  IrStmt *ms = ir_stmt_new(ctx, ir_ref_clone(ctx, mr), mp_call2(ctx, F_MAX, mp_prev(ctx, mr, r, mp_inf(ctx, true)), x));
  /* G = G_prev*exp(M_prev-M) + exp(X-M) */
  IrExpr *rescale = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, mp_prev(ctx, mr, r, mp_inf(ctx, true)),
                                                   ir_refexpr(ctx, ir_ref_clone(ctx, mr))));
  IrExpr *term = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, ir_refexpr(ctx, ir_ref_clone(ctx, sm->mx.x)),
                                                ir_refexpr(ctx, ir_ref_clone(ctx, mr))));
  IrExpr *g = ir_binary(ctx, OP_ADD, ir_binary(ctx, OP_MUL, mp_prev(ctx, gr, r, ir_int(ctx, 1)), rescale), term);
  IrStmt *gs = ir_stmt_new(ctx, ir_ref_clone(ctx, gr), g);
  ms->loc = sm->mx.s->loc;
  gs->loc = sm->ssum->loc;
  ir_nest_add_item(ctx, f, ITEM_STMT, ms);
  ir_nest_add_item(ctx, f, ITEM_STMT, gs);
  return f;
}

typedef struct Retarget {
  LeirCtx *ctx;
  const MpSoftmax *sm;
  const char *gname;
  IrDType gdt;
  IrScope gsc;
} Retarget;

static void retarget_ref(IrRef *r, void *u) {
  Retarget *t = u;
  bool is_m = !strcmp(r->name, t->sm->mx.m->name);
  bool is_s = t->gname && !strcmp(r->name, t->sm->sref->name);
  if (!is_m && !is_s) return;
  if (is_s) {
    r->name = t->gname;
    r->dt_tag = t->gdt;
    r->sc_tag = t->gsc;
  }
  r->tensor = NULL;
  IrExpr *last = ir_int(t->ctx, t->sm->mx.n - 1);
  mp_insert_item(t->ctx, r, t->sm->mx.ins, last);
}

void mp_retarget_later(LeirCtx *ctx, IrProgram *q, int from, const MpSoftmax *sm, const char *gname, IrDType gdt,
                       IrScope gsc) {
  Retarget t = {ctx, sm, gname, gdt, gsc};
  for (int k = from; k < q->nnests; k++) mp_for_refs(q->nests[k], retarget_ref, &t);
}

static const char *role_word(IrRole r) {
  return r == ROLE_OUT ? "output" : r == ROLE_IN ? "input" : r == ROLE_PARAM ? "parameter" : "intermediate";
}

static const char *check_changing(PassCtx *pc, const IrProgram *p, const char *name, int writer, const char *what) {
  const IrTensor *t = ir_find_tensor(p, name);
  if (t && t->role != ROLE_TMP) return pass_reason(pc, "'%s' is a program %s: %s", name, role_word(t->role), what);
  if (t && t->declared) return pass_reason(pc, "'%s' has a declared shape (%%tmp): %s", name, what);
  int w = mp_other_writer(p, name, writer);
  if (w >= 0) return pass_reason(pc, "'%s' is also written by nest %d", name, w);
  int u = mp_first_use(p, name, 0, writer, true, NULL, 0);
  if (u >= 0) return pass_reason(pc, "'%s' is used in nest %d, before its definition in nest %d", name, u, writer);
  return NULL;
}

const char *mp_check_chain_tensors(PassCtx *pc, const IrProgram *p, const MpSoftmax *sm, bool s_goes) {
  const char *why = check_changing(pc, p, sm->mx.m->name, sm->mx.k, "its rank would change");
  if (why) return why;
  if (s_goes && (why = check_changing(pc, p, sm->sref->name, sm->mx.k + 1, "the rewrite removes it"))) return why;
  const char *inf = mp_may_be_inf(pc, p, sm->mx.x->name);
  if (inf && !pc->ctx->unsafe_math)
    return pass_reason(pc, "'%s' may be -inf (%s): on a row that starts with -inf the running sum computes "
                       "exp(-inf+inf) = NaN (--unsafe-math accepts it)", sm->mx.x->name, inf);
  return NULL;
}
