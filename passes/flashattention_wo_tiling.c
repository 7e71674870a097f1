/* flashattention_wo_tiling.c -- STRATEGIES §4.20: the online softmax of
 * §4.19 fused with the following product P*V, the running output kept in
 * a nested nest.
 *
 * Pre (REF): nests k, k+1, k+2 are the max `M=max(M,X)`, the exp-sum
 * `S=S+exp(X-M)` and the normalisation `P=exp(X-M)/S` (consecutive, same
 * loops); a later statement `O=O+P*V` or `O=O+V*P`.  REC: the product is
 * nest k+3 (another nest between the division and the product is refused:
 * REF silently drops it); P is read by the product only, S by the sum and
 * the division only, and both are intermediates that disappear; the rules
 * of §4.18 on M and X (mathpat_chain.c); the division's P and the product's P
 * have subscripts of distinct loop indices, which map the product's
 * indices onto the fused nest's (same extents); the product reduces over
 * the image of r only and uses all its loops; the copy nest passes the tx
 * fix-up.
 * Rewrite (G, N fresh; h.. fresh indices for O's items that P does not
 * carry, named from idx(nloops of the product + 1) as REF does):
 *   Hmax[M_{s'}=max(...);  G_{s'}=...;            (the fused nest of §4.18)
 *        L^{e}_{h=0}[N_{o',r}=if_then_else(r-1<0,1,N_{o',r-1})*if_then_else(r-1<0,1,G_{s'[r-1]})
 *                      *exp(if_then_else(r-1<0,-inf,M_{s'[r-1]})-M_{s'})/G_{s'}
 *                      +exp(X-M_{s'})/G_{s'}*V';];];
 *   copy(O)[O_{o}=N_{o,n-1};]
 * o' and V' are O's subscript and V in the fused nest's indices.  The sum,
 * division and product nests disappear; M and G get scope `l` (M keeps its
 * tags when a later nest reads it; SPEC §9.3 demotes `l` otherwise
 * anyway); later refs of M get the item n-1.  Class T. */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest of the max reduction (sum, division and product follow)"},
  {NULL, false, NULL},
};

enum { FA_MAX = 32 };

typedef struct Flash {
  MpSoftmax sm;
  IrStmt *div, *prod;
  IrRef *p, *pp, *v, *o; /* P (division), P (product), V, O */
  /* product index -> fused index (P's items), then O's other items */
  const char *from[FA_MAX], *to[FA_MAX];
  int nmap;
  int rest_pos[FA_MAX]; /* positions in O of the items P does not carry */
  int nrest;
  bool m_read_later;
} Flash;

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 3 < pc->prog->nnests; k++) {
    IrStmt *s = rw_single_stmt(pc->prog->nests[k]);
    if (!s || s->rhs->kind != E_CALL || s->rhs->u.call.func != F_MAX) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

static bool all_indices(const IrRef *r) {
  if (!mp_simple_subscript(r)) return false;
  for (int i = 0; i < r->nsub; i++)
    if (r->sub[i]->kind != E_INDEX) return false;
  return true;
}

/* `O=O+P*V` / `O=O+V*P`: sets f->pp and f->v. */
static bool is_product(LeirCtx *ctx, const IrStmt *s, const char *pname, Flash *f) {
  const IrExpr *e = s->rhs;
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD || e->u.bin.a->kind != E_REF ||
      !mp_ref_same(ctx, e->u.bin.a->u.ref, s->lhs))
    return false;
  const IrExpr *m = e->u.bin.b;
  if (m->kind != E_BINARY || m->u.bin.op != OP_MUL || m->u.bin.a->kind != E_REF || m->u.bin.b->kind != E_REF) return false;
  IrRef *a = m->u.bin.a->u.ref, *b = m->u.bin.b->u.ref;
  bool pa = !strcmp(a->name, pname), pb = !strcmp(b->name, pname);
  if (pa == pb) return false;
  f->pp = pa ? a : b;
  f->v = pa ? b : a;
  return strcmp(f->v->name, s->lhs->name) != 0;
}

/* The nest of the first later product of P (for the reason), -1 if none. */
static int later_product(LeirCtx *ctx, const IrProgram *p, int from, const char *pname) {
  Flash tmp;
  for (int k = from; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    for (int i = 0; i < n->nitems; i++)
      if (n->items[i].kind == ITEM_STMT && is_product(ctx, n->items[i].u.stmt, pname, &tmp)) return k;
  }
  return -1;
}

static const char *match_division(PassCtx *pc, const IrProgram *p, int k, Flash *f) {
  const char *why;
  if (k + 2 >= p->nnests) return pass_reason(pc, "no nest follows the exp-sum of nest %d", k + 1);
  IrNest *nd = rw_top_nest(pc, p, k + 2, &why);
  if (!nd) return why;
  IrStmt *s = rw_single_stmt(nd);
  if (!s || !mp_same_header(p->nests[k], nd) || !mp_is_division(pc->ctx, s->rhs, &f->sm))
    return pass_reason(pc, "nest %d is not the normalisation 'P=exp(%s-%s)/%s' (one statement, the loops of nest %d)",
                       k + 2, f->sm.mx.x->name, f->sm.mx.m->name, f->sm.sref->name, k);
  f->div = s;
  f->p = s->lhs;
  if (!all_indices(f->p))
    return pass_reason(pc, "the subscript of '%s' (%s) is not made of distinct loop indices", f->p->name,
                       rw_sub_text(pc->ctx, f->p));
  return NULL;
}

static const char *match_product(PassCtx *pc, const IrProgram *p, int k, Flash *f) {
  const char *why, *pname = f->p->name;
  if (k + 3 >= p->nnests) return pass_reason(pc, "no nest follows the division of nest %d", k + 2);
  IrNest *np = rw_top_nest(pc, p, k + 3, &why);
  if (!np) return why;
  IrStmt *s = rw_single_stmt(np);
  if (!s || !is_product(pc->ctx, s, pname, f)) {
    int j = later_product(pc->ctx, p, k + 3, pname);
    if (j == k + 4)
      return pass_reason(pc, "nest %d sits between the division (nest %d) and the product of '%s' (nest %d)", k + 3, k + 2,
                         pname, j);
    if (j > k + 4)
      return pass_reason(pc, "nests %d to %d sit between the division (nest %d) and the product of '%s' (nest %d)", k + 3,
                         j - 1, k + 2, pname, j);
    return pass_reason(pc, "nest %d is not the product 'O=O+%s*V' (one statement)", k + 3, pname);
  }
  f->prod = s;
  f->o = s->lhs;
  if (s->init != INIT_REDUCE || s->redop != RED_ADD)
    return pass_reason(pc, "'%s' is written before nest %d, so the product has no implicit initialisation (SPEC 9.5)",
                       f->o->name, k + 3);
  if (!all_indices(f->pp) || !all_indices(f->o))
    return pass_reason(pc, "the subscripts of '%s' and '%s' in nest %d are not made of distinct loop indices", pname,
                       f->o->name, k + 3);
  if (!strcmp(f->v->name, f->sm.mx.m->name) || !strcmp(f->v->name, f->sm.sref->name))
    return pass_reason(pc, "the product reads '%s', which the softmax writes", f->v->name);
  for (int i = 0; i < np->nloops; i++)
    if (np->loops[i]->extent > 1 && !rw_stmt_mentions(s, np->loops[i]->index))
      return pass_reason(pc, "loop '%s' of nest %d is not used by the product (a repeated reduction)", np->loops[i]->index,
                         k + 3);
  return NULL;
}

/* The index map product -> fused nest. */
static const char *match_indices(PassCtx *pc, const IrProgram *p, int k, Flash *f) {
  const IrNest *nm = p->nests[k], *np = p->nests[k + 3];
  const char *rho = NULL;
  f->nmap = f->nrest = 0;
  if (f->pp->nsub > FA_MAX || f->o->nsub > FA_MAX) return "too many subscript items";
  for (int i = 0; i < f->pp->nsub; i++) {
    const char *a = f->pp->sub[i]->u.index.name, *b = f->p->sub[i]->u.index.name;
    const IrLoop *la = np->loops[rw_loop_pos(np, a)], *lb = nm->loops[rw_loop_pos(nm, b)];
    if (la->extent != lb->extent)
      return pass_reason(pc, "loop '%s' of the product (extent %lld) and loop '%s' of the softmax (extent %lld) differ", a,
                         (long long)la->extent, b, (long long)lb->extent);
    if (!strcmp(b, f->sm.mx.r)) rho = a;
    f->from[f->nmap] = a;
    f->to[f->nmap++] = b;
  }
  if (!rho) return pass_reason(pc, "'%s' does not depend on the softmax's reduction index '%s'", f->p->name, f->sm.mx.r);
  if (f->prod->nred != 1 || strcmp(f->prod->red[0]->index, rho))
    return pass_reason(pc, "the product does not reduce over '%s' alone", rho);
  for (int i = 0; i < f->o->nsub; i++) {
    const char *a = f->o->sub[i]->u.index.name;
    bool mapped = false;
    for (int j = 0; j < f->nmap; j++) mapped |= !strcmp(f->from[j], a);
    if (!mapped) f->rest_pos[f->nrest++] = i;
  }
  int64_t e = f->sm.mx.n;
  for (int i = 0; i < f->o->nsub; i++)
    if (__builtin_mul_overflow(e, np->loops[rw_loop_pos(np, f->o->sub[i]->u.index.name)]->extent, &e) || e > IR_MAX_NUMEL)
      return "the running output would have more than 2^40 elements";
  return NULL;
}

/* P and S disappear: nothing else may read them. */
static const char *check_uses(PassCtx *pc, const IrProgram *p, int k, Flash *f) {
  const IrTensor *t = ir_find_tensor(p, f->p->name);
  if (t && (t->role != ROLE_TMP || t->declared))
    return pass_reason(pc, "'%s' is a program output or has a declared shape: the rewrite removes it", f->p->name);
  int w = mp_other_writer(p, f->p->name, k + 2);
  if (w >= 0) return pass_reason(pc, "'%s' is also written by nest %d", f->p->name, w);
  int skip_p[1] = {k + 3};
  int u = mp_first_use(p, f->p->name, 0, p->nnests, false, skip_p, 1);
  if (u >= 0) return pass_reason(pc, "'%s' is also read in nest %d; only the product may read it", f->p->name, u);
  if (mp_count_refs(p->nests[k + 3], f->p->name, false) != 1)
    return pass_reason(pc, "the product in nest %d reads '%s' more than once", k + 3, f->p->name);
  int skip_s[2] = {k + 1, k + 2};
  u = mp_first_use(p, f->sm.sref->name, 0, p->nnests, false, skip_s, 2);
  if (u >= 0) return pass_reason(pc, "'%s' is also read in nest %d; only the division may read it", f->sm.sref->name, u);
  int skip_m[3] = {k, k + 1, k + 2};
  f->m_read_later = mp_first_use(p, f->sm.mx.m->name, 0, p->nnests, false, skip_m, 3) >= 0;
  return NULL;
}

static const char *match(PassCtx *pc, const IrProgram *p, int k, Flash *f) {
  memset(f, 0, sizeof *f);
  const char *why = mp_match_softmax(pc, p, k, &f->sm);
  if (!why) why = match_division(pc, p, k, f);
  if (!why) why = match_product(pc, p, k, f);
  if (!why) why = match_indices(pc, p, k, f);
  if (!why) why = mp_check_chain_tensors(pc, p, &f->sm, true);
  if (!why) why = check_uses(pc, p, k, f);
  return why;
}

static IrNest *copy_nest(PassCtx *pc, const IrNest *np, const Flash *f, const char **renamed, const char **why) {
  const char *names[FA_MAX];
  int nn = rw_names_in_ref(f->o, names, FA_MAX);
  if (nn == 0) {
    IrLoop *l = rw_loop(pc->ctx, LOOP_B, 1, "tx");
    *renamed = NULL;
    return ir_nest_new(pc->ctx, 1, &l);
  }
  return rw_copy_loops(pc, np, names, nn, false, renamed, why);
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why, *renamed;
  if (!rw_cand_nest(pc, pc->prog, c, &why)) return why;
  Flash *f = arena_alloc(&pc->ctx->arena, sizeof *f);
  if ((why = match(pc, pc->prog, c->nest, f))) {
    if (f->sm.mx.s) c->site = f->sm.mx.s->loc;
    return why;
  }
  c->site = f->sm.mx.s->loc;
  if (!copy_nest(pc, pc->prog->nests[c->nest + 3], f, &renamed, &why)) return why;
  c->why = pass_reason(pc, "nests %d..%d are an attention softmax chain: the row maximum '%s' of '%s' over '%s' "
                       "(extent %lld), the sum '%s' of exp(%s-%s), the probabilities '%s'=exp(%s-%s)/%s and the "
                       "product '%s' of them with '%s'; the intermediates are not used elsewhere, so one nest with a "
                       "running maximum, sum and rescaled accumulator computes the same '%s'",
                       c->nest, c->nest + 3, f->sm.mx.m->name, f->sm.mx.x->name, f->sm.mx.r, (long long)f->sm.mx.n,
                       f->sm.sref->name, f->sm.mx.x->name, f->sm.mx.m->name, f->p->name, f->sm.mx.x->name,
                       f->sm.mx.m->name, f->sm.sref->name, f->o->name, f->v->name, f->o->name);
  return NULL;
}

/* The running output N_{o',r} (fused indices) and its statement. */
static IrStmt *running_output(LeirCtx *ctx, const Flash *f, const char *g, const char *nname, const char **fresh,
                              IrScope msc) {
  const MpSoftmax *sm = &f->sm;
  const char *r = sm->mx.r;
  const char *from[2 * FA_MAX], *to[2 * FA_MAX];
  int nm = 0;
  for (int i = 0; i < f->nmap; i++, nm++) from[nm] = f->from[i], to[nm] = f->to[i];
  for (int i = 0; i < f->nrest; i++, nm++) from[nm] = f->o->sub[f->rest_pos[i]]->u.index.name, to[nm] = fresh[i];
  IrExpr **items = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(f->o->nsub + 1));
  for (int i = 0; i < f->o->nsub; i++) items[i] = mp_rename_indices(ctx, f->o->sub[i], from, to, nm);
  items[f->o->nsub] = ir_index(ctx, r);
  IrRef *nr = ir_ref_new(ctx, nname, f->o->dt_tag, SC_G, f->o->nsub + 1, items);
  IrRef *mr = mp_running_ref(ctx, sm, sm->mx.m->name, sm->mx.m->dt_tag, msc);
  IrRef *gr = mp_running_ref(ctx, sm, g, sm->sref->dt_tag, SC_L);
#define REF(x) ir_refexpr(ctx, ir_ref_clone(ctx, x))
  IrExpr *carry = ir_binary(ctx, OP_MUL, mp_prev(ctx, nr, r, ir_int(ctx, 1)), mp_prev(ctx, gr, r, ir_int(ctx, 1)));
  IrExpr *scale = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, mp_prev(ctx, mr, r, mp_inf(ctx, true)), REF(mr)));
  IrExpr *t1 = ir_binary(ctx, OP_DIV, ir_binary(ctx, OP_MUL, carry, scale), REF(gr));
  IrExpr *px = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, REF(sm->mx.x), REF(mr)));
  IrExpr *v = mp_rename_indices(ctx, ir_refexpr(ctx, f->v), from, to, nm);
  IrExpr *t2 = ir_binary(ctx, OP_MUL, ir_binary(ctx, OP_DIV, px, REF(gr)), v);
#undef REF
  IrStmt *s = ir_stmt_new(ctx, nr, ir_binary(ctx, OP_ADD, t1, t2));
  s->loc = f->prod->loc;
  return s;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  int k = c->nest;
  const char *why, *renamed;
  Flash *f = arena_alloc(&ctx->arena, sizeof *f);
  if ((why = match(pc, pc->prog, k, f))) {
    pc->reason = why;
    return false;
  }
  const IrNest *np = pc->prog->nests[k + 3], *nm = pc->prog->nests[k];
  IrNest *cp = copy_nest(pc, np, f, &renamed, &why);
  if (!cp) {
    pc->reason = why;
    return false;
  }
  PassNames ns;
  pass_names_init(&ns, ctx, q);
  const char *g = pass_fresh_tensor(&ns), *nname = pass_fresh_tensor(&ns);
  /* fresh indices: not used by the product nest nor by the fused nest */
  const char *also[2 * FA_MAX], *fresh[FA_MAX];
  int nalso = 0;
  for (int i = 0; i < nm->nloops && nalso < FA_MAX; i++) also[nalso++] = nm->loops[i]->index;
  IrLoop **inner = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(f->nrest ? f->nrest : 1));
  for (int i = 0; i < f->nrest; i++) {
    fresh[i] = pass_fresh_index(ctx, np, also, nalso);
    also[nalso++] = fresh[i];
    const IrLoop *l = np->loops[rw_loop_pos(np, f->o->sub[f->rest_pos[i]]->u.index.name)];
    inner[i] = rw_loop(ctx, LOOP_L, l->extent, fresh[i]);
  }
  IrScope msc = f->m_read_later ? SC_NONE : SC_L;
  IrNest *fused = mp_fused_nest(ctx, nm, &f->sm, g, msc, SC_L);
  IrStmt *ns_ = running_output(ctx, f, g, nname, fresh, msc == SC_NONE ? f->sm.mx.m->sc_tag : SC_L);
  if (f->nrest) {
    IrNest *in = rw_nest1(ctx, inner, f->nrest, ns_);
    in->nested = true;
    ir_nest_add_item(ctx, fused, ITEM_NEST, in);
  } else {
    ir_nest_add_item(ctx, fused, ITEM_STMT, ns_);
  }
  /* O_{o} = N_{o,n-1} over O's loops of the product nest */
  IrRef *last = ir_ref_clone(ctx, f->o);
  last->name = nname;
  last->sc_tag = SC_G;
  last->tensor = NULL;
  mp_insert_item(ctx, last, last->nsub, ir_int(ctx, f->sm.mx.n - 1));
  IrStmt *copy = ir_stmt_new(ctx, ir_ref_clone(ctx, f->o), ir_refexpr(ctx, last));
  copy->loc = f->prod->loc;
  rw_fix_tx_stmt(ctx, copy, renamed);
  ir_nest_add_item(ctx, cp, ITEM_STMT, copy);
  q->nests[k] = fused;
  q->nests[k + 1] = cp;
  for (int i = k + 2; i + 2 < q->nnests; i++) q->nests[i] = q->nests[i + 2];
  q->nnests -= 2;
  mp_retarget_later(ctx, q, k + 2, &f->sm, NULL, DT_NONE, SC_NONE);
  return true;
}

const PassImpl pass_impl_flashattention_wo_tiling = {
  .keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
