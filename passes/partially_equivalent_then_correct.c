/* partially_equivalent_then_correct.c -- STRATEGIES §4.13: one
 * convolution over the concatenation of two inputs, then recompute the
 * output rows near the seam.
 *
 * Pre (REF: the first four nests; leirc: any four consecutive nests
 * k..k+3):
 *   k    H1 = if_then_else(p<=c<p+N&..., X1_{..,c-p,..}, 0)     padding copy
 *   k+1  D  = D + ...H1_{..,c*s+g*dil+c0,..}...                  convolution
 *   k+2  the nest k with X2, H2 for X1, H1                       (same text)
 *   k+3  the nest k+1 with E, H2 for D, H1                       (same text)
 * REC: H1's subscript is the padding nest's loops, X1's items are those
 * indices minus their padding, with one chain `p<=x<p+N` per padded axis
 * (N the input's extent); the convolution accumulates (`D=D+...`, implicit
 * 0 initialisation), reads H1 once and no other tensor of the pattern; on
 * the axis, the read item is affine `o*s + g*dil + c0` in one output index
 * o (used nowhere else but in D's subscript) and one reduction index g;
 * the reduction loops are serial (the corrections nest them); s divides
 * N; the original reads stay inside the padded tensor.
 * Rewrite (J, K, M fresh; the axis param is the dimension):
 *   J  = concat(X1, X2) along the axis (extent 2N), one nest, two statements
 *   K  = the padding of J (extent Pext+N, chain p<=x<2N+p)
 *   M  = the convolution over K (N/s + R1 output rows)
 *   D  = M;  E = M shifted by N/s rows                        (one nest)
 *   the two original padding nests (the corrections read H1 and H2)
 *   D rows r with r*s+(K-1)*dil+c0 >= N+p, and E rows r with r*s+c0 < p --
 *   exactly those whose window overlaps the other input's data (REF
 *   corrects K-1 rows on each side and writes one row past D) -- are
 *   recomputed from H1 / H2, in the nested form of SPEC §4 (REC):
 *     Hout[D_{..,o+r0,..}=0;Hred[D=D+...(o -> o+r0)...;];];
 * Class E: every output element is the same sum in the same order (the
 * reduction loops keep their order; the zeroed element is accumulated
 * onto, as SPEC §9.5 rule 1 says for an element written before). */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the first padding nest (the pattern is nests nest..nest+3)"},
  {"axis", true, "the spatial dimension of the inputs to concatenate along (0-based)"},
  {NULL, false, NULL},
};

enum { PEC_MAX = 16 };

typedef struct Pec {
  int k, axis;
  const IrNest *pad1, *conv1, *pad2, *conv2;
  IrStmt *sp1, *sc1, *sc2;
  IrRef *h1, *x1, *x2, *d, *e, *hread;
  int64_t pad[PEC_MAX];  /* padding per dimension */
  const IrTensor *tx1;
  int64_t N, p, pext;    /* on the axis */
  const char *hidx;      /* H1's index on the axis */
  const char *o, *g;     /* conv output / kernel index on the axis */
  int64_t s, dil, c0, kext, r1;
  int64_t rlo, cd, ce;   /* corrected rows */
} Pec;

/* ------------------------------------------------------------ affine items */

typedef struct Aff {
  int64_t coef[64];
  int64_t c;
} Aff;

static bool aff_of(const IrExpr *e, const IrNest *n, Aff *a) {
  memset(a, 0, sizeof *a);
  Aff x, y;
  switch (e->kind) {
  case E_INT: a->c = e->u.ilit.value; return true;
  case E_INDEX: {
    int k = rw_loop_pos(n, e->u.index.name);
    if (k < 0 || k >= 64) return false;
    a->coef[k] = 1;
    return true;
  }
  case E_PAREN: return aff_of(e->u.paren, n, a);
  case E_BINARY:
    if (!aff_of(e->u.bin.a, n, &x) || !aff_of(e->u.bin.b, n, &y)) return false;
    if (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB) {
      int64_t sg = e->u.bin.op == OP_ADD ? 1 : -1;
      a->c = x.c + sg * y.c;
      for (int i = 0; i < n->nloops; i++) a->coef[i] = x.coef[i] + sg * y.coef[i];
      return true;
    }
    if (e->u.bin.op == OP_MUL) {
      bool xc = true, yc = true;
      for (int i = 0; i < n->nloops; i++) xc &= x.coef[i] == 0, yc &= y.coef[i] == 0;
      if (!xc && !yc) return false;
      const Aff *k = xc ? &x : &y, *v = xc ? &y : &x;
      if (k->c > 1000000 || k->c < -1000000) return false;
      a->c = k->c * v->c;
      for (int i = 0; i < n->nloops; i++) a->coef[i] = k->c * v->coef[i];
      return true;
    }
    return false;
  default: return false;
  }
}

/* ------------------------------------------------------------ matching */

static bool is_zero(const IrExpr *e) {
  return (e->kind == E_INT && e->u.ilit.value == 0) || (e->kind == E_FLOAT && e->u.flit.value == 0);
}

static bool bare_indices(const IrRef *r) {
  if (!mp_simple_subscript(r)) return false;
  for (int i = 0; i < r->nsub; i++)
    if (r->sub[i]->kind != E_INDEX) return false;
  return true;
}

/* The chains of a conjunction, into v (at most max); false if e is not one. */
static bool chains(IrExpr *e, IrExpr **v, int *n, int max) {
  e = ir_expr_unparen_mut(e);
  if (e->kind == E_BINARY && e->u.bin.op == OP_AND) return chains(e->u.bin.a, v, n, max) && chains(e->u.bin.b, v, n, max);
  if (e->kind != E_CMP || e->u.cmp.n != 3 || e->u.cmp.op[0] != OP_LE || e->u.cmp.op[1] != OP_LT ||
      e->u.cmp.operand[0]->kind != E_INT || e->u.cmp.operand[1]->kind != E_INDEX || e->u.cmp.operand[2]->kind != E_INT ||
      *n >= max)
    return false;
  v[(*n)++] = e;
  return true;
}

/* `H=if_then_else(cond,X_{...},0)`: the statement's X (or NULL). */
static IrRef *pad_input(const IrStmt *s) {
  const IrExpr *e = s->rhs;
  if (e->kind != E_CALL || e->u.call.func != F_ITE || e->u.call.args[1]->kind != E_REF || !is_zero(e->u.call.args[2]))
    return NULL;
  return e->u.call.args[1]->u.ref;
}

static const char *match_pad(PassCtx *pc, const IrProgram *p, Pec *m) {
  const IrNest *n = m->pad1;
  const char *bad = pass_reason(pc, "nest %d is not a padding copy 'H=if_then_else(p<=c<p+N&...,X_{..,c-p,..},0)' "
                                    "over its own loops", m->k);
  m->sp1 = rw_single_stmt(n);
  if (!m->sp1 || !(m->x1 = pad_input(m->sp1))) return bad;
  m->h1 = m->sp1->lhs;
  if (!bare_indices(m->h1) || m->h1->nsub != n->nloops || m->h1->nsub > PEC_MAX || m->x1->nsub != m->h1->nsub ||
      !strcmp(m->x1->name, m->h1->name))
    return bad;
  for (int i = 0; i < n->nloops; i++)
    if (rw_loop_pos(n, m->h1->sub[i]->u.index.name) < 0) return bad;
  m->tx1 = ir_find_tensor(p, m->x1->name);
  if (!m->tx1 || m->tx1->rank != m->x1->nsub) return bad;
  for (int i = 0; i < m->x1->nsub; i++) {
    const IrExpr *it = m->x1->sub[i];
    const char *h = m->h1->sub[i]->u.index.name;
    m->pad[i] = 0;
    if (it->kind == E_INDEX && !strcmp(it->u.index.name, h)) continue;
    if (it->kind == E_BINARY && it->u.bin.op == OP_SUB && it->u.bin.a->kind == E_INDEX &&
        !strcmp(it->u.bin.a->u.index.name, h) && it->u.bin.b->kind == E_INT && it->u.bin.b->u.ilit.value > 0) {
      m->pad[i] = it->u.bin.b->u.ilit.value;
      continue;
    }
    return bad;
  }
  IrExpr *cv[PEC_MAX];
  int nc = 0;
  if (!chains(m->sp1->rhs->u.call.args[0], cv, &nc, PEC_MAX)) return bad;
  int npad = 0;
  for (int i = 0; i < m->x1->nsub; i++) npad += m->pad[i] > 0;
  if (nc != npad) return bad;
  for (int j = 0; j < nc; j++) {
    const char *x = cv[j]->u.cmp.operand[1]->u.index.name;
    int i = 0;
    while (i < m->h1->nsub && strcmp(m->h1->sub[i]->u.index.name, x)) i++;
    if (i == m->h1->nsub || m->pad[i] == 0 || cv[j]->u.cmp.operand[0]->u.ilit.value != m->pad[i] ||
        cv[j]->u.cmp.operand[2]->u.ilit.value != m->pad[i] + m->tx1->shape[i])
      return bad;
  }
  return NULL;
}

static const char *match_conv(PassCtx *pc, Pec *m, const char *h2, const char *e) {
  const char *bad = pass_reason(pc, "nest %d is not a convolution 'D=D+...' reading '%s' once", m->k + 1, m->h1->name);
  m->sc1 = rw_single_stmt(m->conv1);
  if (!m->sc1) return bad;
  IrStmt *s = m->sc1;
  if (rw_accum_op(pc->ctx, s, NULL) != RED_ADD || s->init != INIT_REDUCE || !bare_indices(s->lhs)) return bad;
  m->d = s->lhs;
  if (mp_count_refs_expr(s->rhs, m->h1->name) != 1 || mp_count_refs_expr(s->rhs, m->x1->name) ||
      mp_count_refs_expr(s->rhs, m->x2->name) || mp_count_refs_expr(s->rhs, h2) || mp_count_refs_expr(s->rhs, e))
    return bad;
  /* the read of H1 */
  PtrVec refs = {0};
  rw_stmt_refs(pc->ctx, s, &refs);
  for (int i = 0; i < refs.n; i++)
    if (!strcmp(((IrRef *)refs.v[i])->name, m->h1->name)) m->hread = refs.v[i];
  if (!m->hread || m->hread->nsub != m->h1->nsub) return bad;
  return NULL;
}

/* The two copies: nest k+2 is nest k on X2/H2, nest k+3 nest k+1 on E/H2. */
static const char *match_copies(PassCtx *pc, const IrProgram *p, Pec *m) {
  IrStmt *s2 = rw_single_stmt(m->pad2);
  IrRef *x2 = s2 ? pad_input(s2) : NULL;
  if (!x2) return pass_reason(pc, "nest %d is not a padding copy like nest %d", m->k + 2, m->k);
  const char *h2 = s2->lhs->name;
  const char *f1[2] = {m->h1->name, m->x1->name}, *t1[2] = {h2, x2->name};
  if (!strcmp(x2->name, m->x1->name) || !strcmp(h2, m->h1->name) || !mp_nest_equal(m->pad1, m->pad2, f1, t1, 2))
    return pass_reason(pc, "nest %d is not the padding of nest %d applied to another input", m->k + 2, m->k);
  const IrTensor *tx2 = ir_find_tensor(p, x2->name);
  bool same = tx2 && tx2->rank == m->tx1->rank;
  for (int i = 0; same && i < m->tx1->rank; i++) same = tx2->shape[i] == m->tx1->shape[i];
  if (!same) return pass_reason(pc, "'%s' and '%s' have different shapes", m->x1->name, x2->name);
  m->x2 = x2;
  m->sc2 = rw_single_stmt(m->conv2);
  const char *e = m->sc2 ? m->sc2->lhs->name : "";
  const char *why = match_conv(pc, m, h2, e);
  if (why) return why;
  const char *f2[2] = {m->d->name, m->h1->name}, *t2[2] = {e, h2};
  if (!m->sc2 || !strcmp(e, m->d->name) || !mp_nest_equal(m->conv1, m->conv2, f2, t2, 2) || m->sc2->init != INIT_REDUCE)
    return pass_reason(pc, "nest %d is not the convolution of nest %d applied to '%s'", m->k + 3, m->k + 1, h2);
  m->e = m->sc2->lhs;
  for (int j = m->k; j < m->k + 4; j++)
    if (mp_writes(p->nests[j], m->x1->name) || mp_writes(p->nests[j], m->x2->name))
      return pass_reason(pc, "an input of the convolutions is written in nest %d", j);
  return NULL;
}

typedef struct IdxCount {
  const char *name;
  int n;
} IdxCount;

static void count_idx(IrExpr *e, void *u) {
  IdxCount *c = u;
  if (e->kind == E_INDEX && !strcmp(e->u.index.name, c->name)) c->n++;
}

static int idx_uses(IrExpr *e, const char *name) {
  IdxCount c = {name, 0};
  ir_walk_expr(e, count_idx, &c);
  return c.n;
}

static int idx_uses_ref(IrRef *r, const char *name) {
  IrExpr t = {.kind = E_REF};
  t.u.ref = r;
  return idx_uses(&t, name);
}

static const char *match_axis(PassCtx *pc, Pec *m) {
  const IrNest *cn = m->conv1;
  int a = m->axis;
  m->hidx = m->h1->sub[a]->u.index.name;
  m->p = m->pad[a];
  m->N = m->tx1->shape[a];
  m->pext = m->pad1->loops[rw_loop_pos(m->pad1, m->hidx)]->extent;
  Aff af;
  if (!aff_of(m->hread->sub[a], cn, &af))
    return pass_reason(pc, "the convolution's item on axis %d (%s) is not affine", a, rw_text(pc->ctx, m->hread->sub[a]));
  m->o = m->g = NULL;
  for (int i = 0; i < cn->nloops; i++) {
    if (af.coef[i] == 0) continue;
    const char *ix = cn->loops[i]->index;
    bool out = rw_ref_mentions(m->d, ix);
    if (af.coef[i] < 0 || (out && m->o) || (!out && m->g))
      return pass_reason(pc, "the convolution's item on axis %d (%s) is not o*s+g*dil+c", a,
                         rw_text(pc->ctx, m->hread->sub[a]));
    if (out) m->o = ix, m->s = af.coef[i];
    else m->g = ix, m->dil = af.coef[i], m->kext = cn->loops[i]->extent;
  }
  m->c0 = af.c;
  if (!m->o || !m->g || m->c0 < 0)
    return pass_reason(pc, "axis %d is not a spatial axis of the convolution: its item '%s' has %s", a,
                       rw_text(pc->ctx, m->hread->sub[a]),
                       !m->o ? "no output index" : !m->g ? "no kernel (reduction) index" : "a negative offset");
  m->r1 = cn->loops[rw_loop_pos(cn, m->o)]->extent;
  if (idx_uses(m->sc1->rhs, m->o) != idx_uses_ref(m->hread, m->o) + idx_uses_ref(m->d, m->o) ||
      idx_uses_ref(m->d, m->o) != 1)
    return pass_reason(pc, "the output index '%s' is used elsewhere than in '%s' and the read of '%s' on axis %d", m->o,
                       m->d->name, m->h1->name, a);
  if (m->N % m->s) return pass_reason(pc, "the stride %lld does not divide the input extent %lld on axis %d",
                                      (long long)m->s, (long long)m->N, a);
  int64_t span = (m->kext - 1) * m->dil;
  if ((m->r1 - 1) * m->s + span + m->c0 > m->pext - 1)
    return pass_reason(pc, "the convolution reads past the padded tensor '%s' on axis %d", m->h1->name, a);
  for (int i = 0; i < cn->nloops; i++) {
    const IrLoop *l = cn->loops[i];
    if (!rw_ref_mentions(m->d, l->index) && l->kind != LOOP_L && l->kind != LOOP_U)
      return pass_reason(pc, "the reduction loop '%s' of the convolution is a %c loop; the corrections run it serially",
                         l->index, ir_loop_kind_char(l->kind));
  }
  /* rows to correct */
  int64_t lo = m->N + m->p - span - m->c0; /* first D row: r*s >= lo */
  m->rlo = lo <= 0 ? 0 : (lo + m->s - 1) / m->s;
  m->cd = m->r1 > m->rlo ? m->r1 - m->rlo : 0;
  int64_t hi = m->p - m->c0; /* E rows: r*s < hi */
  m->ce = hi <= 0 ? 0 : (hi + m->s - 1) / m->s;
  if (m->ce > m->r1) m->ce = m->r1;
  int64_t big;
  if (__builtin_mul_overflow(ir_tensor_numel(m->tx1), 4, &big) || big > IR_MAX_NUMEL)
    return "the concatenated tensors would be too large";
  return NULL;
}

static const char *match(PassCtx *pc, const IrProgram *p, PassCand *c, Pec *m) {
  const char *why;
  memset(m, 0, sizeof *m);
  const IrNest *n = rw_cand_nest(pc, p, c, &why);
  if (!n) return why;
  m->k = c->nest;
  if (m->k + 3 >= p->nnests) return pass_reason(pc, "the pattern needs nests %d to %d; the program has %d", m->k, m->k + 3,
                                                p->nnests);
  for (int j = 1; j < 4; j++)
    if (!rw_top_nest(pc, p, m->k + j, &why)) return why;
  m->pad1 = p->nests[m->k];
  m->conv1 = p->nests[m->k + 1];
  m->pad2 = p->nests[m->k + 2];
  m->conv2 = p->nests[m->k + 3];
  if ((why = match_pad(pc, p, m))) return why;
  c->site = m->sp1->loc;
  if ((why = match_copies(pc, p, m))) return why;
  int64_t a;
  int r = pass_cand_get_int(c, "axis", &a);
  if (r <= 0)
    return r == 0 ? "missing parameter 'axis'" : pass_reason(pc, "axis=%s is not an integer", pass_cand_get(c, "axis"));
  if (a < 0 || a >= m->h1->nsub)
    return pass_reason(pc, "axis=%lld is out of range 0..%d", (long long)a, m->h1->nsub - 1);
  m->axis = (int)a;
  return match_axis(pc, m);
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k + 3 < p->nnests; k++) {
    IrStmt *s = rw_single_stmt(p->nests[k]);
    IrRef *x = s ? pad_input(s) : NULL;
    for (int a = 0; x && a < s->lhs->nsub; a++) {
      PassCand *c = pass_cand_new(pc);
      pass_cand_set_int(pc->ctx, c, "nest", k);
      pass_cand_set_int(pc->ctx, c, "axis", a);
      pass_emit(pc, c);
    }
  }
}

static const char *check(PassCtx *pc, PassCand *c) {
  Pec *m = arena_alloc(&pc->ctx->arena, sizeof *m);
  const char *why = match(pc, pc->prog, c, m);
  if (why) return why;
  c->why = pass_reason(pc, "nests %d..%d are two padded convolutions of the same text on '%s' and '%s' (extent %lld "
                       "on axis %d, padding %lld, stride %lld which divides it); one convolution over their "
                       "concatenation gives the same rows away from the seam, and the rows whose window crosses "
                       "the seam are recomputed from the original padded inputs",
                       m->k, m->k + 3, m->x1->name, m->x2->name, (long long)m->N, m->axis, (long long)m->p,
                       (long long)m->s);
  return NULL;
}

/* ------------------------------------------------------------ rewriting */

static IrLoop **clone_loops(LeirCtx *ctx, const IrNest *n, const IrRef *keep, bool inside, int *count) {
  IrLoop **v = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops ? n->nloops : 1));
  int k = 0;
  for (int i = 0; i < n->nloops; i++)
    if (rw_ref_mentions(keep, n->loops[i]->index) == inside) v[k++] = rw_loop_clone(ctx, n->loops[i]);
  *count = k;
  return v;
}

static void set_extent(IrLoop **v, int n, const char *index, int64_t e) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i]->index, index)) rw_set_extent(v[i], e);
}

static IrRef *ref_like(LeirCtx *ctx, const char *name, const IrRef *tags, const IrRef *items) {
  return rw_ref(ctx, name, tags->dt_tag, tags->sc_tag, items->sub, items->nsub);
}

static IrExpr *plus(LeirCtx *ctx, const char *i, int64_t k) {
  return ir_binary(ctx, OP_ADD, ir_index(ctx, i), ir_int(ctx, k));
}

static IrNest *concat_nest(LeirCtx *ctx, const Pec *m, const char *j) {
  IrNest *n = ir_nest_clone(ctx, m->pad1);
  n->nitems = 0;
  for (int i = 0; i < m->h1->nsub; i++) set_extent(n->loops, n->nloops, m->h1->sub[i]->u.index.name, m->tx1->shape[i]);
  IrRef *jt = rw_ref(ctx, j, m->x1->dt_tag, SC_G, NULL, 0);
  IrRef *a = ref_like(ctx, m->x1->name, m->x1, m->h1), *b = ref_like(ctx, m->x2->name, m->x2, m->h1);
  IrRef *j1 = ref_like(ctx, j, jt, m->h1), *j2 = ref_like(ctx, j, jt, m->h1);
  rw_subst_sub_ref(ctx, j2, m->hidx, plus(ctx, m->hidx, m->N));
  ir_nest_add_item(ctx, n, ITEM_STMT, ir_stmt_new(ctx, j1, ir_refexpr(ctx, a)));
  ir_nest_add_item(ctx, n, ITEM_STMT, ir_stmt_new(ctx, j2, ir_refexpr(ctx, b)));
  return n;
}

static IrNest *pad_nest(LeirCtx *ctx, const Pec *m, const char *j, const char *kname) {
  IrNest *n = ir_nest_clone(ctx, m->pad1);
  IrStmt *s = n->items[0].u.stmt;
  rw_rename_tensor_stmt(s, m->h1->name, kname, m->h1->dt_tag, m->h1->sc_tag);
  rw_rename_tensor_stmt(s, m->x1->name, j, m->x1->dt_tag, SC_G);
  set_extent(n->loops, n->nloops, m->hidx, m->pext + m->N);
  IrExpr *cv[PEC_MAX];
  int nc = 0;
  chains(s->rhs->u.call.args[0], cv, &nc, PEC_MAX);
  for (int i = 0; i < nc; i++)
    if (!strcmp(cv[i]->u.cmp.operand[1]->u.index.name, m->hidx))
      cv[i]->u.cmp.operand[2] = ir_int(ctx, cv[i]->u.cmp.operand[2]->u.ilit.value + m->N);
  return n;
}

static IrNest *conv_nest(LeirCtx *ctx, const Pec *m, const char *kname, const char *mname) {
  IrNest *n = ir_nest_clone(ctx, m->conv1);
  IrStmt *s = n->items[0].u.stmt;
  rw_rename_tensor_stmt(s, m->d->name, mname, m->d->dt_tag, m->d->sc_tag);
  rw_rename_tensor_stmt(s, m->h1->name, kname, m->hread->dt_tag, m->hread->sc_tag);
  set_extent(n->loops, n->nloops, m->o, m->N / m->s + m->r1);
  return n;
}

static IrNest *split_nest(LeirCtx *ctx, const Pec *m, const char *mname) {
  int nl;
  IrLoop **loops = clone_loops(ctx, m->conv1, m->d, true, &nl);
  IrNest *n = ir_nest_new(ctx, nl, loops);
  IrRef *m1 = ref_like(ctx, mname, m->d, m->d), *m2 = ref_like(ctx, mname, m->d, m->d);
  rw_subst_sub_ref(ctx, m2, m->o, plus(ctx, m->o, m->N / m->s));
  ir_nest_add_item(ctx, n, ITEM_STMT, ir_stmt_new(ctx, ir_ref_clone(ctx, m->d), ir_refexpr(ctx, m1)));
  ir_nest_add_item(ctx, n, ITEM_STMT, ir_stmt_new(ctx, ir_ref_clone(ctx, m->e), ir_refexpr(ctx, m2)));
  return n;
}

/* Hout[Z_{o+r0}=0;Hred[Z=Z+...;];]: rows r0 .. r0+count-1 of stmt's output. */
static IrNest *correction(LeirCtx *ctx, const Pec *m, const IrStmt *conv, int64_t r0, int64_t count) {
  int no, nr;
  IrLoop **lo = clone_loops(ctx, m->conv1, m->d, true, &no);
  IrLoop **lr = clone_loops(ctx, m->conv1, m->d, false, &nr);
  set_extent(lo, no, m->o, count);
  IrStmt *acc = ir_stmt_new(ctx, ir_ref_clone(ctx, conv->lhs), ir_expr_clone(ctx, conv->rhs));
  acc->loc = conv->loc;
  if (r0) rw_subst_sub_stmt(ctx, acc, m->o, plus(ctx, m->o, r0));
  IrStmt *zero = ir_stmt_new(ctx, ir_ref_clone(ctx, acc->lhs), ir_int(ctx, 0));
  IrNest *red = rw_nest1(ctx, lr, nr, acc);
  red->nested = true;
  IrNest *out = ir_nest_new(ctx, no, lo);
  ir_nest_add_item(ctx, out, ITEM_STMT, zero);
  ir_nest_add_item(ctx, out, ITEM_NEST, red);
  return out;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  Pec *m = arena_alloc(&ctx->arena, sizeof *m);
  PassCand cc = *c;
  const char *why = match(pc, pc->prog, &cc, m);
  if (why) {
    pc->reason = why;
    return false;
  }
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *j = pass_fresh_tensor(&ns), *kname = pass_fresh_tensor(&ns), *mname = pass_fresh_tensor(&ns);
  IrNest *v[8];
  int nv = 0;
  v[nv++] = concat_nest(ctx, m, j);
  v[nv++] = pad_nest(ctx, m, j, kname);
  v[nv++] = conv_nest(ctx, m, kname, mname);
  v[nv++] = split_nest(ctx, m, mname);
  v[nv++] = q->nests[m->k];
  v[nv++] = q->nests[m->k + 2];
  if (m->cd > 0) v[nv++] = correction(ctx, m, m->sc1, m->rlo, m->cd);
  if (m->ce > 0) v[nv++] = correction(ctx, m, m->sc2, 0, m->ce);
  int total = q->nnests - 4 + nv;
  IrNest **all = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)total);
  int t = 0;
  for (int i = 0; i < m->k; i++) all[t++] = q->nests[i];
  for (int i = 0; i < nv; i++) all[t++] = v[i];
  for (int i = m->k + 4; i < q->nnests; i++) all[t++] = q->nests[i];
  q->nests = all;
  q->nnests = total;
  return true;
}

const PassImpl pass_impl_partially_equivalent_then_correct = {
  .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
