/* exponential_split.c -- STRATEGIES §4.15: exp(x) = exp(x-y)*exp(y) for an
 * existing y.
 *
 * Pre (REF): a statement (in a nest with loops) containing exp whose left
 * tensor is not inside the exp.  For the exp call `call` (0-based, text
 * order) with argument P, X is the first tensor reference in P.  y is
 * "shift" -- if_then_else(k-1<0,0,X_{..,k-1}), X shifted by one along the
 * last item k of its subscript -- or the left side of an earlier nest with
 * the same loops (REF excludes nests whose text has exp, inf, _{0},
 * if_then_else or erf, and tensors they write), using every index of the
 * statement's left side (and no tx for a scalar left side), not bool.
 * REC: X must be a term of P's top-level sum (`...±X±rest`, or `-X` first),
 * else the reference's text split changes the value; the shift needs k to
 * be a loop of the nest and X not written in it (so X_{..,k-1} is
 * defined); y may not be infinite (mathpat_values.c, mp_may_be_inf, the value
 * analysis's magnitude: inf-inf is NaN), nor bring an index into an initialised reduction (mp_split_y);
 * neither U-y nor y±rest may compute in an unsigned type (the shift's
 * literal 0 has the statement type); the statement type must be a float
 * (an integer one truncates the split's rounding); neither U-y, y±rest
 * nor the sum past X (which the split re-associates) may compute in an
 * integer type that may wrap (any but i64: may_wrap); unless
 * --unsafe-math, y and the exp's argument must be of moderate magnitude
 * (mp_immoderate, the value analysis's magnitude: not computed with exp,
 * log, powers, reductions, products of non-constants or quotients by what
 * may be near 0 or beyond the inputs), since exp(x-y) or exp(y) overflows in f32 beyond 88
 * (the corpus's matmul-then-softmax programs give NaN); a nest with nested
 * nests is refused; unless --unsafe-math, the exp may not be inside a
 * divisor not proved >= 1/2, nor may the statement's result reach one
 * (mp_divisor_rule).
 * Rewrite, with U = the sum of P up to and including X and R the rest:
 *   form=mul  exp(U-y)*exp(y R)
 *   form=div  exp(U-y)/exp(t-y)            when R is `-t`
 *             exp(U-y)/exp(-(R)-y)         when R is longer and starts with -
 * The new product replaces the exp node in the tree, so the printer adds
 * the parentheses the context needs (`C/exp(P)` becomes
 * `C/(exp(..)*exp(..))`, where REF's text splice would change the value).
 * Class T; exp(x-y) or exp(y) may overflow where exp(x) does not, which
 * -O reports as a note. */
#include "passes/mathpat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

#include <string.h>

static const PassKey keys[] = {
  {"nest", true, "top-level nest (0-based)"},
  {"stmt", true, "statement of the nest (0-based)"},
  {"call", true, "which exp of the statement (0-based, text order)"},
  {"y", true, "shift, or a tensor an earlier nest with the same loops writes (NAME, or NAME.I: its I-th distinct ref)"},
  {"form", true, "mul (exp(x-y)*exp(y)) or div (exp(x-y)/exp(-y...))"},
  {NULL, false, NULL},
};

enum { MAX_TERMS = 256 };

/* The exp call number idx (pre-order) below *slot: its slot, or NULL. */
static IrExpr **find_exp(IrExpr **slot, int *idx) {
  IrExpr *e = *slot;
  if (!e) return NULL;
  if (e->kind == E_CALL && e->u.call.func == F_EXP && (*idx)-- == 0) return slot;
  IrExpr **r = NULL;
  switch (e->kind) {
  case E_UNARY: return find_exp(&e->u.unary.a, idx);
  case E_BINARY:
    if ((r = find_exp(&e->u.bin.a, idx))) return r;
    return find_exp(&e->u.bin.b, idx);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && !r; i++) r = find_exp(&e->u.cmp.operand[i], idx);
    return r;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && !r; i++) r = find_exp(&e->u.call.args[i], idx);
    return r;
  case E_PAREN: return find_exp(&e->u.paren, idx);
  default: return NULL;
  }
}

static int count_exps(IrExpr *e) {
  int n = 0;
  IrExpr *slot = e;
  while (true) {
    int idx = n;
    if (!find_exp(&slot, &idx)) return n;
    n++;
  }
}

static IrRef *first_ref(IrExpr *e) {
  if (!e) return NULL;
  IrRef *r = NULL;
  switch (e->kind) {
  case E_REF: return e->u.ref;
  case E_UNARY: return first_ref(e->u.unary.a);
  case E_BINARY: return (r = first_ref(e->u.bin.a)) ? r : first_ref(e->u.bin.b);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && !r; i++) r = first_ref(e->u.cmp.operand[i]);
    return r;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && !r; i++) r = first_ref(e->u.call.args[i]);
    return r;
  case E_PAREN: return first_ref(e->u.paren);
  default: return NULL;
  }
}

/* P = t0 s1 t1 s2 t2 ...: spine[i] (i >= 1) is the + or - node whose right
 * operand is t_i; term[0] is the leftmost operand. */
typedef struct Sum {
  IrExpr *term[MAX_TERMS];
  IrExpr *spine[MAX_TERMS];
  int n;   /* terms */
  int j;   /* the term holding X */
  IrRef *x;
} Sum;

static const char *split_sum(PassCtx *pc, IrExpr *p, Sum *s) {
  IrExpr *nodes[MAX_TERMS];
  int m = 0;
  IrExpr *e = p;
  while (e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB) && m < MAX_TERMS - 1) {
    nodes[m++] = e;
    e = e->u.bin.a;
  }
  s->n = m + 1;
  s->term[0] = e;
  s->spine[0] = NULL;
  for (int i = 1; i <= m; i++) {
    s->spine[i] = nodes[m - i];
    s->term[i] = nodes[m - i]->u.bin.b;
  }
  s->x = first_ref(p);
  if (!s->x) return "the argument of the exp reads no tensor";
  for (s->j = 0; s->j < s->n && first_ref(s->term[s->j]) != s->x; s->j++) {
  }
  IrExpr *t = s->term[s->j];
  bool ok = t->kind == E_REF || (s->j == 0 && t->kind == E_UNARY && t->u.unary.a->kind == E_REF);
  if (!ok)
    return pass_reason(pc, "the first tensor in the exp's argument, '%s', is not a term of its sum (U±X±rest)",
                       s->x->name);
  return NULL;
}

typedef struct Site {
  IrNest *n;
  IrStmt *s;
  IrExpr **slot; /* the exp call */
  Sum sum;
} Site;

static const char *find_site(PassCtx *pc, const IrProgram *p, PassCand *c, Site *st) {
  const char *why;
  IrStmt *s = mp_cand_stmt(pc, p, c, &why);
  if (!s) return why;
  st->n = p->nests[c->nest];
  st->s = s;
  int64_t call;
  int r = pass_cand_get_int(c, "call", &call);
  if (r <= 0)
    return r == 0 ? "missing parameter 'call'" : pass_reason(pc, "call=%s is not an integer", pass_cand_get(c, "call"));
  int idx = (int)call;
  st->slot = call >= 0 && call <= 100000 ? find_exp(&s->rhs, &idx) : NULL;
  if (!st->slot)
    return pass_reason(pc, "statement %s of nest %d has no exp call %lld (it has %d)", pass_cand_get(c, "stmt"), c->nest,
                       (long long)call, count_exps(s->rhs));
  return split_sum(pc, (*st->slot)->u.call.args[0], &st->sum);
}

static void enumerate(PassCtx *pc) {
  const IrProgram *p = pc->prog;
  for (int k = 0; k < p->nnests; k++) {
    const IrNest *n = p->nests[k];
    if (mp_has_nested(n) || n->nloops == 0) continue;
    for (int i = 0; i < n->nitems; i++) {
      IrStmt *s = n->items[i].u.stmt;
      int ne = count_exps(s->rhs);
      for (int e = 0; e < ne; e++) {
        PassCand *c = pass_cand_new(pc);
        pass_cand_set_int(pc->ctx, c, "nest", k);
        pass_cand_set_int(pc->ctx, c, "stmt", i);
        pass_cand_set_int(pc->ctx, c, "call", e);
        Site st;
        if (find_site(pc, p, c, &st)) continue;
        const char *ys[64];
        int ny = mp_split_ys(pc, p, k, s, st.sum.x, MP_EXP, ys, 64);
        bool div = st.sum.j + 1 < st.sum.n && st.sum.spine[st.sum.j + 1]->u.bin.op == OP_SUB;
        for (int y = 0; y < ny; y++)
          for (int f = 0; f < (div ? 2 : 1); f++) {
            PassCand *d = pass_cand_new(pc);
            *d = *c;
            pass_cand_set(pc->ctx, d, "y", ys[y]);
            pass_cand_set(pc->ctx, d, "form", f ? "div" : "mul");
            pass_emit(pc, d);
          }
      }
    }
  }
}

/* Integer arithmetic in t may wrap: unsigned below 0, signed narrower than
 * 64 bits beyond its range (only i64 is taken not to, as mathpat_values.c's sign
 * analysis takes it). */
static bool may_wrap(IrDType t) { return !ir_dtype_is_float(t) && t != DT_I64; }

static const char *check(PassCtx *pc, PassCand *c) {
  Site st;
  const char *why = find_site(pc, pc->prog, c, &st);
  if (why) return why;
  const char *y = pass_cand_get(c, "y"), *form = pass_cand_get(c, "form");
  if (!y) return "missing parameter 'y'";
  if (!form) return "missing parameter 'form'";
  bool div = !strcmp(form, "div");
  if (!div && strcmp(form, "mul")) return pass_reason(pc, "form=%s is not mul or div", form);
  if (div && !(st.sum.j + 1 < st.sum.n && st.sum.spine[st.sum.j + 1]->u.bin.op == OP_SUB))
    return pass_reason(pc, "form=div needs '-' after '%s' in the exp's argument", st.sum.x->name);
  if (mp_count_refs_expr((*st.slot)->u.call.args[0], st.s->lhs->name))
    return pass_reason(pc, "the left side '%s' occurs inside the exp", st.s->lhs->name);
  if ((why = mp_split_y(pc, pc->prog, c->nest, st.s, st.sum.x, MP_EXP, y))) return why;
  /* the shift brings a literal 0, which has the statement type (SPEC 5.4):
     an exp computed in a narrower type (exp of an f16 X in an f32
     statement) would be computed in the statement type after the split,
     overflowing (or rounding) differently (issue 11, fuzz) */
  const IrTensor *lt = ir_find_tensor(pc->prog, st.s->lhs->name);
  IrDType at = (*st.slot)->u.call.args[0]->type, dt = lt ? lt->dtype : st.s->lhs->dt_tag;
  if (!strcmp(y, "shift") && ir_dtype_usual(at, dt) != at)
    return pass_reason(pc, "the exp computes in %s but the shift's literal 0 has the statement type %s: the split "
                       "exps would compute in %s", ir_dtype_name(at), ir_dtype_name(dt), ir_dtype_name(ir_dtype_usual(at, dt)));
  /* U-y (and y±rest) in an unsigned type wraps where y > U: exp(U-y) of a
     huge number (fuzz_passes: exp of a u64 tensor split by a u64 y, inf;
     exp(C-G) with C i32 split by the shift of a u32 statement, whose
     literal 0 makes the shift u32) */
  const IrTensor *yt = mp_split_y_tensor(pc, pc->prog, y);
  IrDType xt = st.sum.x->tensor ? st.sum.x->tensor->dtype : st.sum.x->dt_tag;
  IrDType ty = !strcmp(y, "shift") ? ir_dtype_usual(dt, xt) : yt ? yt->dtype : xt;
  const Sum *sm = &st.sum;
  IrDType t1 = ir_dtype_usual((sm->j == 0 ? sm->term[0] : sm->spine[sm->j])->type, ty), t2 = ty;
  for (int i = sm->j + 1; i < sm->n; i++) t2 = ir_dtype_usual(t2, sm->term[i]->type);
  if (ir_dtype_is_unsigned_int(t1))
    return pass_reason(pc, "the split's x-y computes in %s, where it wraps below 0", ir_dtype_name(t1));
  if (ir_dtype_is_unsigned_int(t2))
    return pass_reason(pc, "the split's second exponent (y and the rest of the sum) computes in %s, where it wraps "
                       "below 0", ir_dtype_name(t2));
  /* an integer statement stores the exp's floating-point value by
     truncation: exp(x-y)*exp(y) a rounding below a whole number loses a
     unit (fuzz_passes finding 56: exp(C-C) = 1 in a u16 statement became
     exp(a)*exp(-a) = 0.99999..., stored as 0) */
  if (!ir_dtype_is_float(dt))
    return pass_reason(pc, "the statement stores %s, but the exp computes in %s: the split's rounding would survive "
                       "the conversion", ir_dtype_name(dt), ir_dtype_name((*st.slot)->type));
  /* the split re-associates the sum: U±rest becomes U-y and y±rest.  A
     partial sum past X that computes in a type that may wrap wraps where
     the split's exponents need not
     (fuzz_passes finding 61: exp(F-D) with F u32 and D u16 wraps below 0 to
     exp(4e9) = inf; exp(F-G)*exp(G-D) with G i64 does not), and a narrow
     signed x-y or y±rest may wrap where the sum did not */
  for (int i = sm->j + 1; i < sm->n; i++) {
    IrDType t = sm->spine[i]->type;
    if (may_wrap(t))
      return pass_reason(pc, "the exp's argument sums past '%s' in %s, where it may wrap %s but the split's two "
                         "exponents need not", sm->x->name, ir_dtype_name(t),
                         ir_dtype_is_unsigned_int(t) ? "below 0" : "beyond its range");
  }
  if (may_wrap(t1))
    return pass_reason(pc, "the split's x-y computes in %s, where it may wrap beyond its range", ir_dtype_name(t1));
  if (may_wrap(t2))
    return pass_reason(pc, "the split's second exponent (y and the rest of the sum) computes in %s, where it may wrap "
                       "beyond its range", ir_dtype_name(t2));
  /* in f16/bf16 the split's x-y and exp(x-y)*exp(y) round at 2^-11 (2^-8)
     relative: beyond the class-T tolerance of the f32 outputs such an exp
     usually feeds (fuzz: exp of an f16 copy in an f32 statement, 8192 ulp),
     as for the value splits */
  if (ir_dtype_is_half(at) && !pc->ctx->unsafe_math)
    return pass_reason(pc, "the exp computes in %s, where the split's x-y and exp(x-y)*exp(y) round beyond the "
                       "class-T tolerance of a wider output (--unsafe-math allows it)", ir_dtype_name(at));
  const char *im = pc->ctx->unsafe_math ? NULL : mp_immoderate(pc, pc->prog, (*st.slot)->u.call.args[0], dt);
  if (im)
    return pass_reason(pc, "the exp's argument may be huge (%s), so exp(x-y) or exp(y) may overflow (--unsafe-math "
                       "accepts it)", im);
  if (!pc->ctx->unsafe_math &&
      (why = mp_divisor_rule(pc, pc->prog, st.s, *st.slot, NULL,
                             div ? "exp(x-y)/exp(t-y) rounds" : "exp(x-y)*exp(y) rounds")))
    return why;
  c->note = "exp(x-y) or exp(y) may overflow where exp(x) does not (|x-y| is not bounded)";
  c->why = pass_reason(pc, "the statement writing '%s' has exp(...) with '%s' in its argument (not '%s' itself), y=%s "
                       "passes the split rule and the argument is %s, so the exp splits into two exps (form=%s) "
                       "with the same value up to rounding",
                       st.s->lhs->name, st.sum.x->name, st.s->lhs->name, y,
                       pc->ctx->unsafe_math ? "assumed moderate (--unsafe-math)" : "of moderate size", form);
  return NULL;
}

static IrExpr *cl(LeirCtx *ctx, const IrExpr *e) { return ir_expr_clone(ctx, e); }

static bool apply(PassCtx *pc, IrProgram *q, const PassCand *c) {
  LeirCtx *ctx = pc->ctx;
  PassCand cc = *c;
  Site st;
  const char *why = find_site(pc, q, &cc, &st);
  const char *spell = pass_cand_get(c, "y"), *form = pass_cand_get(c, "form");
  IrExpr *y = why || !spell ? NULL : mp_split_y_expr(pc, pc->prog, c->nest, st.sum.x, MP_EXP, spell);
  const Sum *s = &st.sum;
  bool div = form && !strcmp(form, "div");
  if (!why && (!y || (div && !(s->j + 1 < s->n && s->spine[s->j + 1]->u.bin.op == OP_SUB))))
    why = "the parameters do not name a y or a form for this exp";
  if (why) {
    pc->reason = why;
    return false;
  }
  IrExpr *upto = s->j == 0 ? s->term[0] : s->spine[s->j];
  IrExpr *first = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, cl(ctx, upto), cl(ctx, y)));
  IrExpr *second;
  if (div) {
    IrExpr *d;
    if (s->j + 2 == s->n) {
      d = ir_binary(ctx, OP_SUB, cl(ctx, s->term[s->j + 1]), cl(ctx, y));
    } else {
      IrExpr *r = ir_unary(ctx, OP_NEG, cl(ctx, s->term[s->j + 1]));
      for (int i = s->j + 2; i < s->n; i++) r = ir_binary(ctx, s->spine[i]->u.bin.op, r, cl(ctx, s->term[i]));
      d = ir_binary(ctx, OP_SUB, ir_unary(ctx, OP_NEG, ir_paren(ctx, r)), cl(ctx, y));
    }
    second = mp_call1(ctx, F_EXP, d);
    *st.slot = ir_binary(ctx, OP_DIV, first, second);
  } else {
    IrExpr *r = cl(ctx, y);
    for (int i = s->j + 1; i < s->n; i++) r = ir_binary(ctx, s->spine[i]->u.bin.op, r, cl(ctx, s->term[i]));
    second = mp_call1(ctx, F_EXP, r);
    *st.slot = ir_binary(ctx, OP_MUL, first, second);
  }
  return true;
}

const PassImpl pass_impl_exponential_split = {.keys = keys, .enumerate = enumerate, .check = check, .apply = apply};
