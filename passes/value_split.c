/* value_split.c -- what multiplicative_split (STRATEGIES §4.16, X -> X/y*y)
 * and additive_split (§4.17, X -> X+y-y) share.
 *
 * Pre (REF): a statement of a nest with loops whose right side has none of
 * min max sqrt abs exp log if_then_else erf ** (so: no call, no power); a
 * tensor X other than the left side, named once in the statement and
 * referenced with one text throughout the nest's right sides.  y as in
 * §4.15 (mathpat_split.c, mp_split_ys) with identity 1 (mul) or 0 (add) for the
 * shift; mul also excludes nests whose text has `,0)` or `-`.
 * REC: X is an operand of the right side (not an index inside a
 * subscript); y may not be infinite, and unless --unsafe-math it must be
 * of moderate magnitude (mathpat_values.c, mp_immoderate, the value
 * analysis's magnitude: not computed with exp, log, powers, reductions,
 * products of non-constants or quotients by what may be near 0 or beyond
 * the inputs -- a huge y cancels X in X+y-y, and overflows to inf/inf in
 * X/y*y, as in the corpus's GELU; a y far above a tiny X keeps it to an ulp
 * of y); mul: the statement's type is a float type (integer
 * division would truncate) and y is provably nonzero (mp_positive_tensor:
 * sqrt(..+eps), softmax sums, ...: as computed, so not exp of an
 * unbounded argument, which underflows to 0) unless --unsafe-math; add: the
 * statement's type is not bool; both: (unless --unsafe-math) neither X nor
 * what is computed from the statement's result is read in a divisor not
 * proved >= 1/2 (mathpat_values.c, mp_divisor_rule).
 * Rewrite: X becomes `X/y*y` / `X+y-y`, in parentheses when the text has
 * `-`, `*` or `/` just before X or `*` or `/` just after it (as REF writes
 * it: `A-C` becomes `A+y-y-C`).  When X is the right
 * operand of `+` (`C+X`), additive_split rewrites `C+X` into `C+X+y-y`,
 * the tree the reference's text means.  Class T. */
#include "passes/mathpat.h"
#include "passes/rewrite.h"

#include <string.h>

static bool has_call_or_pow(const IrExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case E_CALL: return true;
  case E_BINARY: return e->u.bin.op == OP_POW || has_call_or_pow(e->u.bin.a) || has_call_or_pow(e->u.bin.b);
  case E_UNARY: return has_call_or_pow(e->u.unary.a);
  case E_PAREN: return has_call_or_pow(e->u.paren);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (has_call_or_pow(e->u.cmp.operand[i])) return true;
    return false;
  default: return false;
  }
}

/* The slot of the operand ref named `name` (not inside a subscript), and
 * the slot of its parent node (NULL at the root). */
static IrExpr **find_operand(IrExpr **slot, IrExpr **parent, const char *name, IrExpr ***pslot) {
  IrExpr *e = *slot;
  IrExpr **r = NULL;
  switch (e->kind) {
  case E_REF:
    if (strcmp(e->u.ref->name, name)) return NULL;
    *pslot = parent;
    return slot;
  case E_UNARY: return find_operand(&e->u.unary.a, slot, name, pslot);
  case E_BINARY:
    if ((r = find_operand(&e->u.bin.a, slot, name, pslot))) return r;
    return find_operand(&e->u.bin.b, slot, name, pslot);
  case E_PAREN: return find_operand(&e->u.paren, slot, name, pslot);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && !r; i++) r = find_operand(&e->u.cmp.operand[i], slot, name, pslot);
    return r;
  default: return NULL;
  }
}

static void operand_names(const IrExpr *e, const char **out, int *n, int max) {
  switch (e->kind) {
  case E_REF:
    for (int i = 0; i < *n; i++)
      if (!strcmp(out[i], e->u.ref->name)) return;
    if (*n < max) out[(*n)++] = e->u.ref->name;
    return;
  case E_UNARY: operand_names(e->u.unary.a, out, n, max); return;
  case E_BINARY:
    operand_names(e->u.bin.a, out, n, max);
    operand_names(e->u.bin.b, out, n, max);
    return;
  case E_PAREN: operand_names(e->u.paren, out, n, max); return;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) operand_names(e->u.cmp.operand[i], out, n, max);
    return;
  default: return;
  }
}

typedef struct OneRef {
  const char *name;
  const IrRef *first;
  bool differ;
} OneRef;

static void one_ref(IrExpr *e, void *u) {
  OneRef *o = u;
  if (e->kind != E_REF || strcmp(e->u.ref->name, o->name)) return;
  if (!o->first) o->first = e->u.ref;
  else if (!mp_ref_same(NULL, o->first, e->u.ref)) o->differ = true;
}

/* The statement and the slot of its operand X; NULL with a reason. */
static const char *locate_x(PassCtx *pc, const IrProgram *p, PassCand *c, IrStmt **sp, IrExpr ***slotp,
                            IrExpr ***pslotp) {
  const char *why;
  IrStmt *s = mp_cand_stmt(pc, p, c, &why);
  if (!s) return why;
  *sp = s;
  const char *x = pass_cand_get(c, "tensor");
  if (!x) return "missing parameter 'tensor'";
  if (!strcmp(x, s->lhs->name)) return pass_reason(pc, "'%s' is the left side", x);
  *slotp = find_operand(&s->rhs, NULL, x, pslotp);
  if (!*slotp) return pass_reason(pc, "'%s' is not an operand of the right side", x);
  return NULL;
}

/* The statement and its X, checked; NULL with a reason otherwise. */
static const char *find_x(PassCtx *pc, const IrProgram *p, PassCand *c, MpSplitKind kind, IrStmt **sp, IrRef **xp) {
  IrExpr **slot, **pslot;
  const char *why;
  IrStmt *s = mp_cand_stmt(pc, p, c, &why);
  if (!s) return why;
  if (has_call_or_pow(s->rhs))
    return "the statement uses min, max, sqrt, abs, exp, log, if_then_else, erf or ** (excluded as in the reference)";
  if ((why = locate_x(pc, p, c, sp, &slot, &pslot))) return why;
  const char *x = pass_cand_get(c, "tensor");
  const IrTensor *lt = ir_find_tensor(p, s->lhs->name);
  IrDType dt = lt ? lt->dtype : s->lhs->dt_tag;
  if (kind == MP_MUL && !ir_dtype_is_float(dt))
    return pass_reason(pc, "the statement computes in %s: X/y*y would truncate", ir_dtype_name(dt));
  if (kind == MP_ADD && dt == DT_BOOL) return "the statement computes in bool";
  IrExpr lhs = {.kind = E_REF};
  lhs.u.ref = s->lhs;
  int uses = mp_count_refs_expr(s->rhs, x) + mp_count_refs_expr(&lhs, x);
  if (uses != 1) return pass_reason(pc, "'%s' occurs %d times in the statement (once is required)", x, uses);
  OneRef o = {x, NULL, false};
  const IrNest *n = p->nests[c->nest];
  for (int i = 0; i < n->nitems; i++) {
    const IrStmt *t = n->items[i].u.stmt;
    for (int k = 0; k < t->lhs->nsub; k++) ir_walk_expr(t->lhs->sub[k], one_ref, &o);
    ir_walk_expr(t->rhs, one_ref, &o);
  }
  if (o.differ) return pass_reason(pc, "nest %d reads '%s' with different subscripts", c->nest, x);
  *xp = (*slot)->u.ref;
  return NULL;
}

void mp_vsplit_enumerate(PassCtx *pc, MpSplitKind kind) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (mp_has_nested(n) || n->nloops == 0) continue;
    for (int i = 0; i < n->nitems; i++) {
      IrStmt *s = n->items[i].u.stmt;
      const char *names[64];
      int nn = 0;
      operand_names(s->rhs, names, &nn, 64);
      for (int j = 0; j < nn; j++) {
        PassCand *c = pass_cand_new(pc);
        pass_cand_set_int(pc->ctx, c, "nest", k);
        pass_cand_set_int(pc->ctx, c, "stmt", i);
        pass_cand_set(pc->ctx, c, "tensor", names[j]);
        IrStmt *st;
        IrRef *x;
        if (find_x(pc, p, c, kind, &st, &x)) continue;
        const char *ys[64];
        int ny = mp_split_ys(pc, p, k, s, x, kind, ys, 64);
        for (int y = 0; y < ny; y++) {
          PassCand *d = pass_cand_new(pc);
          *d = *c;
          pass_cand_set(pc->ctx, d, "y", ys[y]);
          pass_emit(pc, d);
        }
      }
    }
  }
}

const char *mp_vsplit_check(PassCtx *pc, PassCand *c, MpSplitKind kind) {
  IrStmt *s;
  IrRef *x;
  const char *why = find_x(pc, pc->prog, c, kind, &s, &x);
  if (why) return why;
  const char *y = pass_cand_get(c, "y");
  if (!y) return "missing parameter 'y'";
  /* the shift's guard `k-1<0` is computed in the statement type (its
     literals are, SPEC 5.4): unsigned, it is never true and the shifted
     read X_{k-1} runs out of bounds at k = 0 (issue 11, fuzz) */
  const IrTensor *lt = ir_find_tensor(pc->prog, s->lhs->name);
  IrDType dt = lt ? lt->dtype : s->lhs->dt_tag;
  if (!strcmp(y, "shift") && ir_dtype_is_unsigned_int(dt))
    return pass_reason(pc, "the statement computes in %s, where the shift's guard (index-1<0) is never true",
                       ir_dtype_name(dt));
  /* X+y-y and X/y*y round twice in the statement type; in f16/bf16 that is
     an error of about 2^-9 relative, beyond the class-T tolerance of the
     f32 outputs such a statement usually feeds (issue 11, fuzz: an f16
     copy made by cache_read_write, split, feeding an f32 output) */
  if (ir_dtype_is_half(dt) && !pc->ctx->unsafe_math)
    return pass_reason(pc, "the statement computes in %s, where %s rounds beyond the class-T tolerance of a wider "
                       "output (--unsafe-math allows it)", ir_dtype_name(dt), kind == MP_MUL ? "X/y*y" : "X+y-y");
  /* the same inside a wider statement: X+y-y is computed in X's type
     (fuzz: A/(C+1) with C f16 in an f32 statement, 8528 ulp) */
  IrDType xt = x->tensor ? x->tensor->dtype : x->dt_tag;
  if (ir_dtype_is_half(xt) && !pc->ctx->unsafe_math)
    return pass_reason(pc, "'%s' is %s, so %s is computed in %s and rounds beyond the class-T tolerance of the %s "
                       "statement (--unsafe-math allows it)", x->name, ir_dtype_name(xt),
                       kind == MP_MUL ? "X/y*y" : "X+y-y", ir_dtype_name(xt), ir_dtype_name(dt));
  /* sema bounds the shape a tensor indexes by the range of the index
     tensor's writers; X+y-y (a shift's if_then_else, a float y) has none
     (fuzz_passes: Y_{tx,a}=Z_{tx,a} feeding X_{Y_{tx,a}}, split with the
     shift, left X's shape uninferable) */
  const char *index = rw_index_bound(pc, pc->prog, s->lhs->name);
  if (index && !strcmp(index, s->lhs->name))
    return pass_reason(pc, "'%s' is read inside a subscript: the shapes it indexes are bounded by the range of its "
                       "right side, which %s would lose", index, kind == MP_MUL ? "X/y*y" : "X+y-y");
  /* ... and by the ranges of the writers it reads (fuzz_passes: Z_{tx,a}=Aa_{tx,a}, read by Y's writer) */
  if (index)
    return pass_reason(pc, "'%s' is read inside a subscript, and its range is bounded by the values of '%s', which "
                       "%s would leave unbounded", index, s->lhs->name, kind == MP_MUL ? "X/y*y" : "X+y-y");
  if ((why = mp_split_y(pc, pc->prog, c->nest, s, x, kind, y))) return why;
  const IrTensor *ytt = mp_split_y_tensor(pc, pc->prog, y);
  IrDType yt = ytt ? ytt->dtype : xt;
  /* integer X: X+y-y must stay in X's type, or the arithmetic around it
     changes (fuzz_passes: -W*2 with W u64 wraps; with the shift, whose
     literal 0 has the f64 statement type, -(W+0-0)*2 was -16; with
     y=D.1, an f64 tensor spelled with its ref index, -(W+y-y)*2 was -30
     where -W*2 is 8589934562) */
  IrDType ya = !strcmp(y, "shift") ? ir_dtype_usual(xt, dt) : yt;
  /* X/y with X and y both integers is C's truncating division (SPEC 5.4),
     whatever the statement's type: X/y*y is then X rounded toward zero to
     a multiple of y (fuzz_passes: A i32, y = G i32 in an f32 statement,
     exp(A/G*G+F) was 196.2 where exp(A+F) is 0.179) */
  if (kind == MP_MUL && !ir_dtype_is_float(ir_dtype_usual(xt, ya)))
    return pass_reason(pc, "'%s' is %s and y is %s: X/y would be an integer division, which truncates", x->name,
                       ir_dtype_name(xt), ir_dtype_name(ya));
  if (!ir_dtype_is_float(xt) && ir_dtype_usual(xt, ya) != xt)
    return pass_reason(pc, "'%s' is %s, but X+y-y would compute in %s", x->name, ir_dtype_name(xt),
                       ir_dtype_name(ir_dtype_usual(xt, ya)));
  /* an integer statement stores X+y-y computed in floating point by
     truncation: a rounding of 1 ulp below an integer X changes it by 1
     (fuzz_passes: i32 = O + K - K with K f64, 3 became 2) */
  if (!ir_dtype_is_float(dt) && (ir_dtype_is_float(xt) || ir_dtype_is_float(yt)))
    return pass_reason(pc, "the statement stores %s, but X+y-y computes in %s: its rounding would survive the "
                       "conversion", ir_dtype_name(dt), ir_dtype_name(ir_dtype_usual(xt, yt)));
  if (!pc->ctx->unsafe_math &&
      (why = mp_divisor_rule(pc, pc->prog, s, NULL, x,
                             kind == MP_MUL ? "X/y*y rounds" : "X+y-y rounds and turns -0 into +0")))
    return why;
  c->why = pass_reason(pc,
                       "'%s' occurs exactly once in the statement writing '%s', nest %d reads it with one subscript "
                       "throughout, the statement uses no min, max, sqrt, abs, exp, log, if_then_else, erf or **, "
                       "and y=%s passes the %s rule, so %s",
                       x->name, s->lhs->name, c->nest, y, kind == MP_MUL ? "nonzero-divisor" : "moderate-magnitude",
                       kind == MP_MUL ? "X/y*y equals X up to rounding" : "X+y-y equals X up to rounding");
  return NULL;
}

bool mp_vsplit_apply(PassCtx *pc, IrProgram *q, const PassCand *c, MpSplitKind kind) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c;
  IrStmt *s;
  IrExpr **slot, **pslot, *y = NULL;
  const char *why = locate_x(pc, q, &cc, &s, &slot, &pslot), *spell = pass_cand_get(c, "y");
  if (!why && spell) y = mp_split_y_expr(pc, pc->prog, c->nest, (*slot)->u.ref, kind, spell);
  if (!why && !y) why = "the parameters do not name a y";
  if (why) {
    pc->reason = why;
    return false;
  }
  char before, after;
  mp_neighbours(ctx, s->rhs, *slot, &before, &after);
  bool paren = (before && strchr("-*/", before)) || (after && strchr("*/", after));
  IrExpr *xe = *slot, *y2 = ir_expr_clone(ctx, y);
  if (kind == MP_MUL) {
    IrExpr *r = ir_binary(ctx, OP_MUL, ir_binary(ctx, OP_DIV, xe, y), y2);
    *slot = paren ? ir_paren(ctx, r) : r;
    return true;
  }
  IrExpr *parent = pslot ? *pslot : NULL;
  if (!paren && parent && parent->kind == E_BINARY && parent->u.bin.op == OP_ADD && parent->u.bin.b == xe) {
    /* `C+X` -> `C+X+y-y`: the text REF writes, as a tree */
    *pslot = ir_binary(ctx, OP_SUB, ir_binary(ctx, OP_ADD, parent, y), y2);
    return true;
  }
  IrExpr *r = ir_binary(ctx, OP_SUB, ir_binary(ctx, OP_ADD, xe, y), y2);
  *slot = paren ? ir_paren(ctx, r) : r;
  return true;
}
