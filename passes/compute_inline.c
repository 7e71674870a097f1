/* compute_inline.c -- STRATEGIES §1.3: substitute a producer's expression
 * into its consumer.
 *
 * Pre (REF): consecutive nests (i, i+1); nest i has one statement P_s = f
 * that does not update itself; nest i+1 reads P_s (same text); P occurs in
 * no nest after i+1; the headers are identical or one is empty.
 * REC: P occurs in no nest before i either; every occurrence of P in nest
 * i+1 is a read at P_s outside any subscript, and nest i+1 does not write P; P is not a program output; the
 * producer writes every element once (dataflow.h: an injective subscript),
 * so the consumer's P_s is f of the same iteration; nest i+1 writes nothing
 * f reads; inlining leaves the reduction indices (SPEC §9.5) of the
 * consumer's accumulating statements unchanged; no nested nests; where the
 * consumer reads P in an if_then_else condition, f has no index values or
 * integer literals outside its own conditions (i64 there, SPEC 5.4)
 * unless P is i64.
 * Rewrite: every P_s of nest i+1 becomes f, parenthesised unless f is a
 * single ref, a number or a call without nested parentheses (REF's text
 * test); nest i is dropped; the header is the producer's, or the
 * consumer's if the producer has none.  Params: nest (= i, the producer).
 * Class E† per candidate: E when f's type, P's dtype and every consumer
 * statement's dtype agree (the stored intermediate rounds nothing away);
 * T when they are float types and P is at least as wide as the consumers;
 * refused otherwise (the rounding to P would disappear from a narrower
 * type, or integer arithmetic would change). */
#include "passes/passes.h"
#include "passes/dataflow.h"
#include "passes/graph.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "the producer nest (0-based); the next nest is the consumer"},
  {NULL, false, NULL},
};

static void enumerate(PassCtx *pc) {
  for (int k = 0; k + 1 < pc->prog->nnests; k++) {
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

/* ------------------------------------------------------------ occurrences */

typedef struct Occ {
  LeirCtx *ctx;
  const char *name, *sub; /* P and the producer's subscript text */
  int reads, bad_sub, in_sub, in_cond;
  const IrRef *bad;
} Occ;

static void occ_walk(Occ *o, const IrExpr *e, bool in_sub, bool cond) {
  switch (e->kind) {
  case E_REF: {
    const IrRef *r = e->u.ref;
    if (!strcmp(r->name, o->name)) {
      o->reads++;
      if (in_sub) o->in_sub++;
      if (cond) o->in_cond++;
      if (strcmp(rw_sub_text(o->ctx, r), o->sub) && !o->bad_sub++) o->bad = r;
    }
    for (int i = 0; i < r->nsub; i++) occ_walk(o, r->sub[i], true, cond);
    break;
  }
  case E_UNARY: occ_walk(o, e->u.unary.a, in_sub, cond); break;
  case E_BINARY:
    occ_walk(o, e->u.bin.a, in_sub, cond);
    occ_walk(o, e->u.bin.b, in_sub, cond);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) occ_walk(o, e->u.cmp.operand[i], in_sub, cond);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      occ_walk(o, e->u.call.args[i], in_sub, cond || (e->u.call.func == F_ITE && i == 0));
    break;
  case E_PAREN: occ_walk(o, e->u.paren, in_sub, cond); break;
  default: break;
  }
}

static void occ_stmt(Occ *o, const IrStmt *s) {
  for (int i = 0; i < s->lhs->nsub; i++) occ_walk(o, s->lhs->sub[i], true, false);
  occ_walk(o, s->rhs, false, false);
}

/* ------------------------------------------------------------ substitution */

typedef struct Subst {
  LeirCtx *ctx;
  const char *name;
  const IrExpr *f;
} Subst;

static void subst(const Subst *s, IrExpr **slot) {
  IrExpr *e = *slot;
  switch (e->kind) {
  case E_REF:
    if (!strcmp(e->u.ref->name, s->name)) *slot = gx_wrap(s->ctx, s->f);
    break;
  case E_UNARY: subst(s, &e->u.unary.a); break;
  case E_BINARY:
    subst(s, &e->u.bin.a);
    subst(s, &e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) subst(s, &e->u.cmp.operand[i]);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) subst(s, &e->u.call.args[i]);
    break;
  case E_PAREN: subst(s, &e->u.paren); break;
  default: break;
  }
}

/* ------------------------------------------------------------ check */

/* The occurrences of P in the consumer, refusing the REC cases. */
static const char *check_uses(PassCtx *pc, const IrNest *b, const IrRef *w, int i, bool *in_cond) {
  LeirCtx *ctx = pc->ctx;
  Occ o = {ctx, w->name, rw_sub_text(ctx, w), 0, 0, 0, 0, NULL};
  for (int s = 0; s < b->nitems; s++) {
    const IrStmt *st = b->items[s].u.stmt;
    if (!strcmp(st->lhs->name, w->name)) return pass_reason(pc, "nest %d also writes '%s'", i + 1, w->name);
    occ_stmt(&o, st);
  }
  if (o.reads == 0) return pass_reason(pc, "nest %d does not read '%s'", i + 1, w->name);
  if (o.bad_sub)
    return pass_reason(pc, "nest %d reads '%s' at %s, but nest %d writes it at %s", i + 1, w->name,
                       rw_sub_text(ctx, o.bad), i, o.sub);
  if (o.in_sub) return pass_reason(pc, "nest %d uses '%s' inside a subscript", i + 1, w->name);
  *in_cond = o.in_cond > 0;
  return NULL;
}

/* Reduction indices of the consumer's accumulating statements stay. */
static const char *check_reductions(PassCtx *pc, const IrNest *b, const IrStmt *prod) {
  LeirCtx *ctx = pc->ctx;
  Subst sb = {ctx, prod->lhs->name, prod->rhs};
  for (int s = 0; s < b->nitems; s++) {
    const IrStmt *st = b->items[s].u.stmt;
    if (st->init != INIT_REDUCE) continue;
    IrExpr *rhs = ir_expr_clone(ctx, st->rhs);
    subst(&sb, &rhs);
    if (gx_red_change(b, st, rhs, NULL) >= 0)
      return pass_reason(pc, "inlining '%s' would change the reduction indices of '%s' (SPEC 9.5)", prod->lhs->name,
                         st->lhs->name);
  }
  return NULL;
}

/* The class (E or T), or a reason. */
static const char *check_types(PassCtx *pc, PassCand *c, const IrNest *b, const IrStmt *prod, bool in_cond) {
  IrDType tp = prod->lhs->tensor ? prod->lhs->tensor->dtype : DT_NONE, tf = prod->rhs->type;
  /* in a condition they would be i64: H=A/2 in an f32 statement divides
     as 2.5, inlined into a condition as 2 */
  if (in_cond && tp != DT_I64 && gx_cond_typed_leaf(prod->rhs))
    return pass_reason(pc, "'%s' is read inside an if_then_else condition, where index values and integer literals are "
                       "i64 (SPEC 5.4), and its expression has some, which are %s in its own statement",
                       prod->lhs->name, ir_dtype_name(tp));
  bool exact = tf == tp, ok = gx_float_rank(tp) && gx_float_rank(tf);
  for (int s = 0; s < b->nitems; s++) {
    const IrStmt *st = b->items[s].u.stmt;
    if (!gx_reads(st->rhs, prod->lhs->name)) continue;
    IrDType ts = st->lhs->tensor ? st->lhs->tensor->dtype : DT_NONE;
    exact &= ts == tp;
    ok &= gx_float_rank(ts) && gx_float_rank(tp) >= gx_float_rank(ts);
    if (!exact && !ok)
      return pass_reason(pc, "'%s' is %s, its expression %s and '%s' %s: inlining would change the arithmetic",
                         prod->lhs->name, ir_dtype_name(tp), ir_dtype_name(tf), st->lhs->name, ir_dtype_name(ts));
  }
  if (!exact && !ok)
    return pass_reason(pc, "'%s' is %s but its expression is %s: inlining would change the arithmetic",
                       prod->lhs->name, ir_dtype_name(tp), ir_dtype_name(tf));
  c->cls = exact ? PASS_E : PASS_T;
  return NULL;
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *b;
  const IrProgram *p = pc->prog;
  IrNest *a = gx_cand_pair(pc, p, c, &b, &why);
  if (!a) return why;
  int i = c->nest;
  IrStmt *prod = rw_single_stmt(a);
  if (!prod) return pass_reason(pc, "nest %d has %d statements; the producer must have one", i, a->nitems);
  c->site = prod->loc;
  const IrRef *w = prod->lhs;
  if (prod->self_ref) return pass_reason(pc, "'%s' updates itself in nest %d", w->name, i);
  bool in_cond = false;
  if ((why = check_uses(pc, b, w, i, &in_cond))) return why;
  const DataFlow *df = df_analyse(pc, p);
  int at;
  if (df_find(df, w->name, i + 2, p->nnests, DF_ANY, &at))
    return pass_reason(pc, "'%s' is used again in nest %d", w->name, at);
  /* an earlier nest's read of P would be left without its writer (and P
     would become an input of the program) -- fuzz_passes */
  if (df_find(df, w->name, 0, i, DF_ANY, &at))
    return pass_reason(pc, "'%s' is used in nest %d, before nest %d writes it", w->name, at, i);
  if (w->tensor && w->tensor->role != ROLE_TMP) return pass_reason(pc, "'%s' is a program output", w->name);
  if (a->nloops && b->nloops && !df_same_header(a, b))
    return pass_reason(pc, "nests %d and %d have different loop headers", i, i + 1);
  if (!df_write_injective(a, w))
    return pass_reason(pc, "nest %d writes elements of '%s' more than once (%s): the consumer would not see the "
                       "last value", i, w->name, gx_ref_text(pc->ctx, w));
  const DepAccess *x = df_shared(df, i, DF_READ, i + 1, DF_WRITE);
  if (x) return pass_reason(pc, "nest %d writes '%s', which the inlined expression reads", i + 1, x->ref->name);
  if ((why = check_reductions(pc, b, prod))) return why;
  if ((why = check_types(pc, c, b, prod, in_cond))) return why;
  c->why = pass_reason(pc, "nest %d has the single statement %s, which writes each element of the intermediate '%s' "
                       "once and does not update itself; only nest %d reads '%s', %s, and nest %d writes nothing the "
                       "inlined expression reads",
                       i, rw_text(pc->ctx, prod->rhs), w->name, i + 1, w->name,
                       a->nloops && b->nloops ? "both nests have the same loop header" : "one nest has no loops",
                       i + 1);
  return NULL;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  int i = c->nest;
  IrNest *a = q->nests[i], *b = q->nests[i + 1];
  IrStmt *prod = rw_single_stmt(a);
  if (!prod) return false;
  Subst sb = {ctx, prod->lhs->name, prod->rhs};
  for (int s = 0; s < b->nitems; s++) subst(&sb, &b->items[s].u.stmt->rhs);
  if (a->nloops) {
    b->nloops = a->nloops;
    b->loops = a->loops;
  }
  for (int k = i; k + 1 < q->nnests; k++) q->nests[k] = q->nests[k + 1];
  q->nnests--;
  return true;
}

const PassImpl pass_impl_compute_inline = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
