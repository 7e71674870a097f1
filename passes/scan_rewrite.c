/* scan_rewrite.c -- leirc's own strategy (not one of the 43 of
 * STRATEGIES.md): a masked prefix reduction becomes a running scan.
 *
 * The reference's translator writes torch.cumsum (and cumprod) as a
 * reduction over the whole row with a prefix mask, O(n^2) terms:
 *   B^{128}_{tx=0}L^{4000}_{a=0}L^{4000}_{c=0}[C_{tx,a}=C_{tx,a}+if_then_else(c<=a,A_{tx,c},0);];
 * Summed in increasing c, element a is the running sum of element a-1 plus
 * one term, so the nest without loop c computes the same values in O(n):
 *   B^{128}_{tx=0}L^{4000}_{a=0}[C_{tx,a}=if_then_else(a-1<0,0,C_{tx,a-1})+A_{tx,a};];
 * and the exclusive mask c<a becomes
 *   [C_{tx,a}=if_then_else(a-1<0,0,C_{tx,a-1}+A_{tx,a-1});]
 * The prefix forms get no implicit initialisation (SPEC 9.5): the guard
 * supplies the identity at a = 0.  Loop a now carries a dependence (it
 * reads a-1), so it must be, and stays, a serial L or U loop.
 *
 * Pre: a single-statement nest `T=T op if_then_else(M,X,I)` (or with the
 * branches swapped and the mask negated), op one of + - *; T has the
 * implicit initialisation of SPEC 9.5 (not written earlier) and reduces over
 * one index c, a serial L or U loop; the mask M is one comparison of c with
 * a loop index a of T's subscript that keeps a prefix of c (c<=a inclusive,
 * c<a exclusive; a suffix c>=a would be summed from the other end, which
 * changes the order of the additions: refused); I is the identity literal
 * (0 for + and -, 1 for *); X does not depend on a nor read T; loop a is
 * L or U and loop c reaches every prefix; T's subscript is made of distinct
 * loop indices and constants and every loop of extent > 1 but c is in it.
 *
 * Class E, bit-exact, under one condition on the types.  The masked form
 * computes, for element a, s <- s op t_c for c = 0..n-1 from the identity,
 * t_c = X_c for the prefix and I after it; the scan performs the same
 * operations on the prefix in the same order and skips the masked-out
 * ones.  Those change nothing: s*1 = s and s-(+0) = s for every s, and
 * s+(+0) = s for every s but -0, which a sum from +0 never reaches (in
 * round-to-nearest x+y is -0 only when both are -0; a nonzero exact sum
 * never rounds to zero).  The condition: the update, computed in the
 * statement's arithmetic type t, converts T's value to t and back at each
 * masked-out step, which must be exact: t is T's type, or wider without
 * loss (an integer T in a wider integer or in a float whose significand
 * holds all its values; for * and - also a float T in a wider float).  A
 * float T summed in a wider float is refused: a tiny negative sum stores as
 * -0 and the next masked-out +0 makes it +0.  A NaN stays a NaN (the
 * comparisons count NaNs equal). */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest of the masked prefix reduction (0-based)"},
  {NULL, false, NULL},
};

/* What the check finds in the nest. */
typedef struct Scan {
  IrNest *n;
  IrStmt *s;
  IrOp op;           /* OP_ADD, OP_SUB or OP_MUL */
  const IrExpr *x;   /* the kept value X */
  const IrExpr *cond;
  const char *c, *a; /* the reduction index and the scan index */
  int cpos, apos;
  bool exclusive;    /* c<a */
  int ident;         /* 0 or 1 */
} Scan;

/* The masked term of `T op if_then_else(...)`, or NULL. */
static const IrExpr *masked_term(const IrStmt *s) {
  const IrExpr *e = ir_expr_unparen(s->rhs);
  if (e->kind != E_BINARY) return NULL;
  const IrExpr *l = ir_expr_unparen(e->u.bin.a), *r = ir_expr_unparen(e->u.bin.b);
  if (l->kind != E_REF || strcmp(l->u.ref->name, s->lhs->name)) return NULL;
  if (r->kind != E_CALL || r->u.call.func != F_ITE || r->u.call.nargs != 3) return NULL;
  return r;
}

static void enumerate(PassCtx *pc) {
  for (int k = 0; k < pc->prog->nnests; k++) {
    IrStmt *s = rw_single_stmt(pc->prog->nests[k]);
    if (!s || !masked_term(s)) continue;
    PassCand *c = pass_cand_new(pc);
    pass_cand_set_int(pc->ctx, c, "nest", k);
    pass_emit(pc, c);
  }
}

/* Is e (parentheses aside) an integer or float literal equal to v? */
static bool is_literal(const IrExpr *e, double v) {
  e = ir_expr_unparen(e);
  if (e->kind == E_INT) return (double)e->u.ilit.value == v;
  if (e->kind == E_FLOAT) return e->u.flit.value == v;
  return false;
}

/* Bits of the significand of a float type (the implicit one included). */
static int float_bits(IrDType t) {
  switch (t) {
  case DT_F16: return 11;
  case DT_BF16: return 8;
  case DT_F32: return 24;
  default: return 53;
  }
}

/* Value bits of an integer type (sign excluded), bool 1. */
static int int_bits(IrDType t) {
  switch (t) {
  case DT_BOOL: return 1;
  case DT_I8: return 7;
  case DT_U8: return 8;
  case DT_I16: return 15;
  case DT_U16: return 16;
  case DT_I32: return 31;
  case DT_U32: return 32;
  case DT_I64: return 63;
  default: return 64;
  }
}

/* Does every value of `from` convert to `to` and back unchanged? */
static bool widens_exactly(IrDType from, IrDType to) {
  if (from == to) return true;
  bool ff = ir_dtype_is_float(from), tf = ir_dtype_is_float(to);
  if (ff && !tf) return false;
  if (ff) /* f16 and bf16 have ranges neither holds; both fit f32 and f64 */
    return (to == DT_F32 || to == DT_F64) && float_bits(to) > float_bits(from);
  if (tf) return int_bits(from) <= float_bits(to);
  if (ir_dtype_is_unsigned_int(to) && ir_dtype_is_signed_int(from)) return false;
  if (ir_dtype_is_signed_int(to) && !ir_dtype_is_signed_int(from)) return int_bits(from) < int_bits(to);
  return int_bits(from) <= int_bits(to);
}

/* The type condition of the header comment: NULL or a reason. */
static const char *types_ok(PassCtx *pc, const Scan *sc) {
  IrDType acc = rw_ref_dtype(sc->s->lhs), t = sc->s->rhs->type;
  if (t == acc) return NULL;
  const char *tn = ir_dtype_name(t), *an = ir_dtype_name(acc), *name = sc->s->lhs->name;
  if (!widens_exactly(acc, t))
    return pass_reason(pc, "'%s' is %s but its update is computed in %s, which does not hold every %s value: each "
                       "masked-out term converts the running value to %s and back, which the running form would skip",
                       name, an, tn, an, tn);
  if (sc->op == OP_ADD && ir_dtype_is_float(acc))
    return pass_reason(pc, "'%s' is %s but its sum is computed in %s: a tiny negative sum stores as -0 in %s, which "
                       "the next masked-out +0 turns into +0 and the running form keeps",
                       name, an, tn, an);
  return NULL;
}

/* The mask: which loop index a it compares c with, and how (c REL a, for
 * the branch kept).  NULL or a reason. */
static const char *match_mask(PassCtx *pc, const IrNest *n, Scan *sc, bool kept_then) {
  const IrExpr *m = ir_expr_unparen(sc->cond);
  const char *text = rw_text(pc->ctx, sc->cond);
  const char *lhs = sc->s->lhs->name;
  if (m->kind == E_CMP && m->u.cmp.n == 2) {
    const IrExpr *l = ir_expr_unparen(m->u.cmp.operand[0]), *r = ir_expr_unparen(m->u.cmp.operand[1]);
    IrOp op = m->u.cmp.op[0];
    const IrExpr *other = NULL;
    if (l->kind == E_INDEX && r->kind == E_INDEX && !strcmp(l->u.index.name, sc->c)) other = r;
    else if (l->kind == E_INDEX && r->kind == E_INDEX && !strcmp(r->u.index.name, sc->c)) {
      other = l;
      op = ir_cmp_flip(op);
    }
    if (!kept_then) op = ir_cmp_negate(op);
    if (other && strcmp(other->u.index.name, sc->c) && rw_loop_pos(n, other->u.index.name) >= 0) {
      sc->a = other->u.index.name;
      if (op == OP_LE || op == OP_LT) {
        sc->exclusive = op == OP_LT;
        return NULL;
      }
      if (op == OP_GE || op == OP_GT)
        return pass_reason(pc, "the mask '%s' keeps the suffix %s %s %s, not a prefix: its running form would "
                           "accumulate from the last element down, which changes the order of the operations (not "
                           "class E); reverse scans are not supported",
                           text, sc->c, ir_op_text(op), sc->a);
    }
  }
  return pass_reason(pc, "the mask '%s' is not a prefix of the reduction index '%s': the kept term must be selected by "
                     "'%s<=a' or '%s<a' with a a loop index of '%s'",
                     text, sc->c, sc->c, sc->c, lhs);
}

/* Everything the check needs of nest k: NULL or a reason. */
static const char *match(PassCtx *pc, const IrProgram *p, int k, Scan *sc) {
  LeirCtx *ctx = pc->ctx;
  const char *why;
  memset(sc, 0, sizeof *sc);
  IrNest *n = rw_top_nest(pc, p, k, &why);
  if (!n) return why;
  sc->n = n;
  IrStmt *s = rw_single_stmt(n);
  if (!s)
    return pass_reason(pc, "nest %d has %d items; a masked prefix reduction is a nest of one statement", k, n->nitems);
  sc->s = s;
  const char *t = s->lhs->name;
  const IrExpr *ite = masked_term(s);
  if (!ite)
    return pass_reason(pc, "the statement of nest %d is not '%s=%s op if_then_else(MASK,X,IDENTITY)' with op one of + "
                       "- *: its right side is '%s'",
                       k, t, t, rw_text(ctx, s->rhs));
  sc->op = ir_expr_unparen(s->rhs)->u.bin.op;
  if (sc->op != OP_ADD && sc->op != OP_SUB && sc->op != OP_MUL)
    return pass_reason(pc, "'%s' is updated with '%s', which does not fold a prefix step by step: a running form needs "
                       "'+', '-' or '*'",
                       t, ir_op_text(sc->op));
  if (s->init != INIT_REDUCE)
    return pass_reason(pc, "'%s' is written before nest %d, so the reduction has no implicit initialisation (SPEC 9.5) "
                       "and each element starts from its own value",
                       t, k);
  if (s->nred != 1)
    return pass_reason(pc, "the statement reduces over %d indices; a masked prefix reduction has one", s->nred);
  sc->c = s->red[0]->index;
  sc->cpos = rw_loop_pos(n, sc->c);
  if (sc->cpos < 0) return pass_reason(pc, "the reduction index '%s' is not a loop of nest %d", sc->c, k);
  const IrLoop *cl = n->loops[sc->cpos];
  if (cl->kind != LOOP_L && cl->kind != LOOP_U)
    return pass_reason(pc, "the reduction loop '%s' is a %c loop: only a serial L or U loop sums in increasing '%s'",
                       sc->c, ir_loop_kind_char(cl->kind), sc->c);
  sc->ident = sc->op == OP_MUL ? 1 : 0;
  const IrExpr *const *args = (const IrExpr *const *)ite->u.call.args;
  bool kept_then;
  if (is_literal(args[2], sc->ident)) kept_then = true;
  else if (is_literal(args[1], sc->ident)) kept_then = false;
  else
    return pass_reason(pc, "neither branch of '%s' is the identity %d of '%s' (a literal): the masked-out terms would "
                       "change the value",
                       rw_text(ctx, ite), sc->ident, ir_op_text(sc->op));
  sc->cond = args[0];
  sc->x = kept_then ? args[1] : args[2];
  if ((why = match_mask(pc, n, sc, kept_then))) return why;
  sc->apos = rw_loop_pos(n, sc->a);
  if (!mp_simple_subscript(s->lhs))
    return pass_reason(pc, "the subscript of '%s' (%s) is not made of distinct loop indices and constants", t,
                       rw_sub_text(ctx, s->lhs));
  if (mp_count_refs_expr((IrExpr *)sc->x, t))
    return pass_reason(pc, "the kept term '%s' reads '%s' itself, whose elements change while the masked sum runs",
                       rw_text(ctx, sc->x), t);
  if (rw_expr_mentions(sc->x, sc->a))
    return pass_reason(pc, "the kept term '%s' depends on '%s': each prefix reduces different values, not one running "
                       "sequence",
                       rw_text(ctx, sc->x), sc->a);
  const IrLoop *al = n->loops[sc->apos];
  if (al->kind != LOOP_L && al->kind != LOOP_U)
    return pass_reason(pc, "loop '%s' is a %c loop: the running form reads element %s-1, so '%s' must be a serial L "
                       "or U loop",
                       sc->a, ir_loop_kind_char(al->kind), sc->a, sc->a);
  int64_t need = sc->exclusive ? al->extent - 1 : al->extent;
  if (cl->extent < need)
    return pass_reason(pc, "loop '%s' (extent %lld) does not reach the end of the prefixes of '%s' (extent %lld)",
                       sc->c, (long long)cl->extent, sc->a, (long long)al->extent);
  for (int i = 0; i < n->nloops; i++)
    if (i != sc->cpos && n->loops[i]->extent > 1 && !rw_ref_mentions(s->lhs, n->loops[i]->index))
      return pass_reason(pc, "the statement does not use loop '%s' (extent %lld), which repeats it",
                         n->loops[i]->index, (long long)n->loops[i]->extent);
  return types_ok(pc, sc);
}

static const char *check(PassCtx *pc, PassCand *c) {
  const char *why;
  IrNest *n = rw_cand_nest(pc, pc->prog, c, &why);
  if (!n) return why;
  Scan sc;
  if ((why = match(pc, pc->prog, c->nest, &sc))) {
    if (sc.s) c->site = sc.s->loc;
    return why;
  }
  c->site = sc.s->loc;
  const IrLoop *al = sc.n->loops[sc.apos];
  const char *what = sc.op == OP_MUL ? "product" : sc.op == OP_ADD ? "sum" : "difference";
  c->why = pass_reason(
    pc,
    "nest %d reduces '%s' over the %s prefix %s %s %s of loop '%s' (extent %lld): %lld masked terms per element; "
    "folded in increasing '%s', each prefix %s is the one before it with one more term, and the masked-out terms "
    "(the identity %d) leave it unchanged bit for bit",
    c->nest, rw_text(pc->ctx, sc.x), sc.exclusive ? "exclusive" : "inclusive", sc.c, sc.exclusive ? "<" : "<=", sc.a,
    sc.a, (long long)al->extent, (long long)sc.n->loops[sc.cpos]->extent, sc.c, what, sc.ident);
  return NULL;
}

/* Replaces every index `name` used as a value (outside subscripts) in e by
 * repl (parenthesised when compound); returns the new root. */
static IrExpr *subst_values(LeirCtx *ctx, IrExpr *e, const char *name, const IrExpr *repl) {
  switch (e->kind) {
  case E_INDEX:
    if (strcmp(e->u.index.name, name)) return e;
    return repl->kind == E_INDEX ? ir_expr_clone(ctx, repl) : ir_paren(ctx, ir_expr_clone(ctx, repl));
  case E_UNARY: e->u.unary.a = subst_values(ctx, e->u.unary.a, name, repl); return e;
  case E_BINARY:
    e->u.bin.a = subst_values(ctx, e->u.bin.a, name, repl);
    e->u.bin.b = subst_values(ctx, e->u.bin.b, name, repl);
    return e;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) e->u.cmp.operand[i] = subst_values(ctx, e->u.cmp.operand[i], name, repl);
    return e;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) e->u.call.args[i] = subst_values(ctx, e->u.call.args[i], name, repl);
    return e;
  case E_PAREN: e->u.paren = subst_values(ctx, e->u.paren, name, repl); return e;
  default: return e;
  }
}

/* X with index c replaced by repl everywhere, parenthesised when it is an
 * operand that binds less tightly than op. */
static IrExpr *kept_at(LeirCtx *ctx, const IrExpr *x, const char *c, const IrExpr *repl) {
  IrExpr *e = ir_expr_clone(ctx, x);
  rw_subst_sub(ctx, &e, c, repl);
  e = subst_values(ctx, e, c, repl);
  if (e->kind == E_BINARY || e->kind == E_CMP || e->kind == E_UNARY) e = ir_paren(ctx, e);
  return e;
}

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  Scan sc;
  const char *why;
  if ((why = match(pc, pc->prog, c->nest, &sc))) {
    pc->reason = why;
    return false;
  }
  IrNest *n = q->nests[c->nest];
  int cpos = rw_loop_pos(n, sc.c);
  if (cpos < 0) {
    pc->reason = "the reduction loop is gone";
    return false;
  }
  const IrRef *t = sc.s->lhs;
  IrExpr *rhs;
  if (!sc.exclusive) {
    IrExpr *x = kept_at(ctx, sc.x, sc.c, ir_index(ctx, sc.a));
    rhs = ir_binary(ctx, sc.op, mp_prev(ctx, t, sc.a, ir_int(ctx, sc.ident)), x);
  } else {
    IrExpr *am1 = ir_binary(ctx, OP_SUB, ir_index(ctx, sc.a), ir_int(ctx, 1));
    IrExpr *x = kept_at(ctx, sc.x, sc.c, am1);
    IrRef *prev = ir_ref_clone(ctx, t);
    rw_subst_sub_ref(ctx, prev, sc.a, am1);
    IrExpr *step = ir_binary(ctx, sc.op, ir_refexpr(ctx, prev), x);
    rhs = mp_ite(ctx, mp_cmp(ctx, ir_expr_clone(ctx, am1), OP_LT, ir_int(ctx, 0)), ir_int(ctx, sc.ident), step);
  }
  IrStmt *st = ir_stmt_new(ctx, ir_ref_clone(ctx, t), rhs);
  st->loc = sc.s->loc;
  n->items[0].u.stmt = st;
  rw_remove_loop(n, cpos);
  return true;
}

const PassImpl pass_impl_scan_rewrite = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
