/* mathpat_values.c -- the value questions of the non-symbolic math
 * strategies (mathpat.h), all answered by the value analysis (ir/value.h,
 * issue 39): may a tensor or expression be infinite, may a divisor be, is
 * a value positive, does a split reach a divisor, is a value of moderate
 * magnitude; and the phrases that say why not.  What remains here is the
 * algebra's own structure (which operations of a divisor are the
 * algebra's) and a search for a right side with some property
 * (mp_computed_from). */
#include "passes/mathpat.h"

#include "ir/value.h"
#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ a right side with some property */

enum { MP_MAX_DEPTH = 32 };

/* The tensors a search has settled, with their results: a program whose
 * definitions read one tensor along many paths (T2 = T1+T1, T3 = T2+T2, ...)
 * is walked once per tensor, not once per path (2^n: --list-applicable on
 * a 30-nest chain took minutes). */
enum { MP_MEMO = 256 };
typedef struct MpMemo {
  const char *name[MP_MEMO];
  int val[MP_MEMO];
  int n;
} MpMemo;

static bool memo_get(const MpMemo *m, const char *name, int *val) {
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->name[i], name)) {
      *val = m->val[i];
      return true;
    }
  return false;
}

static bool memo_has(const MpMemo *m, const char *name) {
  int v;
  return memo_get(m, name, &v);
}

static void memo_put(MpMemo *m, const char *name, int val) {
  if (m->n == MP_MEMO) return;
  m->name[m->n] = name;
  m->val[m->n++] = val;
}

/* A search for a right side with some property (has: a huge literal)
 * among the definitions a tensor is computed from. */
typedef struct InfSearch {
  const IrProgram *p;
  bool (*has)(const IrExpr *rhs, void *u);
  void *u;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *culprit; /* the tensor whose definition has it */
  int nest;
  MpMemo clean; /* tensors from which none is reachable */
} InfSearch;

static bool inf_tensor(InfSearch *s, const char *name);

typedef struct InfRefs {
  InfSearch *s;
  const char *self;
  bool found;
} InfRefs;

static void inf_ref(IrExpr *e, void *u) {
  InfRefs *r = u;
  if (r->found || e->kind != E_REF || (r->self && !strcmp(e->u.ref->name, r->self))) return;
  r->found = inf_tensor(r->s, e->u.ref->name);
}

static bool inf_in_nest(InfSearch *s, const IrNest *n, int k, const char *name) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (inf_in_nest(s, n->items[i].u.nest, k, name)) return true;
      continue;
    }
    IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    if (s->has(st->rhs, s->u)) {
      s->culprit = name;
      s->nest = k;
      return true;
    }
    InfRefs r = {s, name, false};
    ir_walk_expr(st->rhs, inf_ref, &r);
    if (r.found) return true;
  }
  return false;
}

static bool inf_tensor(InfSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return false;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) return false; /* a cycle adds no infinity of its own */
  if (s->depth == MP_MAX_DEPTH) {
    s->culprit = name;
    s->nest = -1;
    return true; /* too deep to tell: assume the worst */
  }
  if (memo_has(&s->clean, name)) return false;
  s->stack[s->depth++] = name;
  bool found = false;
  for (int k = 0; k < s->p->nnests && !found; k++) found = inf_in_nest(s, s->p->nests[k], k, name);
  s->depth--;
  /* (reachability: a cycle cut below only skips a tensor whose own walk
     is under way above) */
  if (!found) memo_put(&s->clean, name, 0);
  return found;
}

const char *mp_computed_from(const IrProgram *p, const IrExpr *e, const char *self,
                             bool (*has)(const IrExpr *rhs, void *u), void *u, int *nest) {
  InfSearch s = {.p = p, .has = has, .u = u};
  InfRefs r = {&s, self, false};
  ir_walk_expr((IrExpr *)e, inf_ref, &r);
  if (!r.found) return NULL;
  *nest = s.nest;
  return s.culprit;
}

/* ------------------------------------------------------------ positivity */

/* Signs are the value analysis's (ir/value.h, issue 39): the least fixed
 * point of every tensor's value over its writes, through the types SPEC 5.4
 * gives values (integer division truncates, narrow integers wrap, a float
 * becomes an integer by truncation), signs as computed (value_sign.c: a
 * value that may underflow to 0, exp of an unbounded argument included, is
 * not positive).  Inputs are finite (REF's input generator); NaN is left
 * aside, as before: SIGN_POS is "> 0 or NaN". */
int mp_sign_expr(const IrProgram *p, const IrExpr *e, IrDType st) {
  IrValueProgram vp;
  if (!ir_value_program(p, true, &vp)) return SIGN_UNKNOWN;
  int v = ir_value_sign(ir_value_in(&vp, p, e, st));
  ir_value_program_free(&vp);
  return v;
}

bool mp_positive_tensor(const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  if (!t) return false;
  IrValueProgram vp;
  if (!ir_value_program(p, true, &vp)) return false;
  bool pos = t->id < vp.n && ir_value_sign(vp.tensors[t->id]) == SIGN_POS;
  ir_value_program_free(&vp);
  return pos;
}

static bool value_positive(IrValue v) { return ir_value_sign(v) == SIGN_POS; }

const char *mp_nonzero_culprit(PassCtx *pc, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  IrValueProgram vp;
  if (!t || !ir_value_program(p, true, &vp)) return "";
  IrRef r = {.name = name, .tensor = (IrTensor *)t};
  IrExpr e = {.kind = E_REF};
  e.u.ref = &r;
  const IrStmt *st = NULL;
  const IrTensor *c = ir_value_culprit(&vp, p, &e, value_positive, &st);
  ir_value_program_free(&vp);
  if (!c || c == t) return "";
  if (c->role == ROLE_IN || c->role == ROLE_PARAM) return pass_reason(pc, " (it is computed from the input '%s')", c->name);
  return pass_reason(pc, " (it is computed from '%s', which may be 0%s)", c->name,
                     st && st->lhs->tensor == c ? " as computed" : "");
}

/* ------------------------------------------------------------ a split that reaches a divisor */

typedef struct Taint {
  const bool *tainted; /* by tensor id */
  const IrExpr *node;  /* the rewritten node, or NULL */
  const IrRef *ref;    /* the rewritten reference, or NULL */
  bool found;
  const IrProgram *p;
  const IrValueProgram *vp; /* p's values (NULL: none; no divisor is proved) */
} Taint;

static void taint_walk(IrExpr *e, void *u) {
  Taint *t = u;
  if (e == t->node) t->found = true;
  if (e->kind == E_REF && (e->u.ref == t->ref || (e->u.ref->tensor && t->tainted[e->u.ref->tensor->id])))
    t->found = true;
}

static bool reads_tainted(const Taint *t0, const IrExpr *e) {
  Taint t = *t0;
  t.found = false;
  ir_walk_expr((IrExpr *)e, taint_walk, &t);
  return t.found;
}

/* The least divisor the rule accepts.  Positive is not enough: a divisor
 * that may be small amplifies the split's rounding as much as one near 0
 * does (sqrt(var+1e-05) of LayerNorm and InstanceNorm is >= 0.003, and
 * X+y-y upstream of it came out 8192 ulp away under --verify).  Every
 * divisor of the corpus's legal candidates before the value analysis
 * (issue 39) is >= 1/2: softmax sums (>= 1), tanh's exp(x)+exp(-x),
 * constants. */
#define MP_MIN_DIVISOR 0.5

/* Is divisor e (in statement type st) proved >= MP_MIN_DIVISOR?  *positive:
 * proved > 0 at least. */
static bool divisor_ok(const Taint *t, const IrExpr *e, IrDType st, bool *positive) {
  if (!t->vp) return *positive = false;
  IrValue v = ir_value_in(t->vp, t->p, e, st);
  *positive = ir_value_sign(v) == SIGN_POS;
  return *positive && (v.bottom || v.lo >= MP_MIN_DIVISOR);
}

/* The first divisor in e (the right operand of / // %, or the base of a
 * power whose exponent is not a constant >= 0) that reads a tainted tensor
 * (or holds the rewritten node) and is not proved >= MP_MIN_DIVISOR, or
 * NULL; *positive: whether it is proved > 0. */
static const IrExpr *tainted_divisor(const IrExpr *e, const Taint *t, IrDType st, bool *positive) {
  const IrExpr *d = NULL;
  double v;
  switch (e->kind) {
  case E_PAREN: return tainted_divisor(e->u.paren, t, st, positive);
  case E_UNARY: return tainted_divisor(e->u.unary.a, t, st, positive);
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
    if ((op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) && reads_tainted(t, b) && !divisor_ok(t, b, st, positive))
      return b;
    if (op == OP_POW && !(rw_const_value(b, &v) && v >= 0) && reads_tainted(t, a) && !divisor_ok(t, a, st, positive))
      return a;
    if ((d = tainted_divisor(a, t, st, positive))) return d;
    return tainted_divisor(b, t, st, positive);
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && !d; i++) d = tainted_divisor(e->u.cmp.operand[i], t, st, positive);
    return d;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && !d; i++) /* (an if_then_else condition is typed i64, SPEC 5.4) */
      d = tainted_divisor(e->u.call.args[i], t, e->u.call.func == F_ITE && i == 0 ? DT_I64 : st, positive);
    return d;
  default: return NULL;
  }
}

static const char *divisor_check(PassCtx *pc, const IrProgram *p, const IrStmt *s, const Taint *t0, bool *tainted,
                                 const char *form);

const char *mp_divisor_rule(PassCtx *pc, const IrProgram *p, const IrStmt *s, const IrExpr *node, const IrRef *ref,
                            const char *form) {
  LeirCtx *ctx = pc->ctx;
  bool *tainted = arena_alloc(&ctx->arena, sizeof(bool) * (size_t)(p->ntensors + 1));
  memset(tainted, 0, sizeof(bool) * (size_t)(p->ntensors + 1));
  IrValueProgram vp;
  bool have = ir_value_program(p, true, &vp);
  Taint t = {tainted, node, ref, false, p, have ? &vp : NULL};
  const char *why = divisor_check(pc, p, s, &t, tainted, form);
  if (have) ir_value_program_free(&vp);
  return why;
}

/* mp_divisor_rule's search, under t's values. */
static const char *divisor_check(PassCtx *pc, const IrProgram *p, const IrStmt *s, const Taint *t0, bool *tainted,
                                 const char *form) {
  LeirCtx *ctx = pc->ctx;
  Taint t = *t0;
  const IrExpr *node = t.node;
  const IrRef *ref = t.ref;
  bool pos = false;
  const IrExpr *d = tainted_divisor(s->rhs, &t, rw_ref_dtype(s->lhs), &pos);
  if (d && ref)
    return pass_reason(pc, "'%s' is read in the divisor %s, which is not proved %s: %s, which a divisor near "
                       "zero amplifies without bound (--unsafe-math allows it)", ref->name, rw_text(ctx, d),
                       pos ? "at least 1/2" : "positive", form);
  if (d)
    return pass_reason(pc, "%s is in the divisor %s, which is not proved %s: %s, which a divisor near zero "
                       "amplifies without bound (--unsafe-math allows it)", rw_text(ctx, node), rw_text(ctx, d),
                       pos ? "at least 1/2" : "positive", form);
  if (!s->lhs->tensor) return NULL;
  t.node = NULL;
  t.ref = NULL;
  tainted[s->lhs->tensor->id] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < p->nstmts; i++) {
      const IrStmt *u = p->stmts[i];
      if (u == s || !reads_tainted(&t, u->rhs)) continue;
      if ((d = tainted_divisor(u->rhs, &t, rw_ref_dtype(u->lhs), &pos)))
        return pass_reason(pc, "'%s' reaches the divisor %s in the statement writing '%s', which is not proved "
                           "%s: %s, which a divisor near zero amplifies without bound (--unsafe-math allows it)",
                           s->lhs->name, rw_text(ctx, d), u->lhs->name, pos ? "at least 1/2" : "positive", form);
      if (u->lhs->tensor && !tainted[u->lhs->tensor->id]) tainted[u->lhs->tensor->id] = grew = true;
    }
  }
  return NULL;
}

/* ------------------------------------------------------------ magnitude: infinite, moderate */

/* The properties asked of the value analysis (value_mag.c): magnitudes
 * relative to the inputs, for ordinary inputs (finite, of moderate size,
 * generic).  Which property is asked decides the phrases. */
typedef enum Ask { ASK_INF, ASK_DIVISOR, ASK_MODERATE } Ask;

static bool finite_ok(IrValue v) { return !ir_value_may_inf_ordinary(v); }

/* Is e a literal (under unary minuses and parentheses) of value *v? */
static bool literal(const IrExpr *e, double *v) {
  bool neg = false;
  while (e->kind == E_PAREN || (e->kind == E_UNARY && e->u.unary.op == OP_NEG)) {
    if (e->kind == E_UNARY) neg = !neg;
    e = e->kind == E_PAREN ? e->u.paren : e->u.unary.a;
  }
  if (e->kind != E_INT && e->kind != E_FLOAT) return false;
  *v = e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value;
  if (neg) *v = -*v;
  return true;
}

/* The construct at node n (where ir_value_lost_at found the property lost)
 * in the words of the strategies' reasons; self: the tensor whose
 * statement n is in (NULL: none). */
static const char *construct(PassCtx *pc, const IrExpr *n, Ask ask, const IrTensor *self) {
  double v;
  switch (n->kind) {
  case E_INF: return "inf";
  case E_INT: case E_FLOAT: return "a literal above 10000 in magnitude";
  case E_REF:
    if (self && !strcmp(n->u.ref->name, self->name)) return "a reduction or recurrence";
    return pass_reason(pc, "a read of '%s' before its definition or in a recurrence", n->u.ref->name);
  case E_BINARY:
    switch (n->u.bin.op) {
    case OP_MUL: return "a product of two non-constants";
    case OP_DIV: case OP_FLOORDIV: case OP_MOD:
      return literal(n->u.bin.b, &v) && v == 0 ? "a division by zero" : "a division by a non-constant";
    case OP_POW:
      if (ask == ASK_MODERATE) return "a power";
      if (!literal(n->u.bin.b, &v) || v < 0) return "a power with a negative or non-constant exponent";
      if (v > 8) return "a power with an exponent above 8, which may overflow";
      return "a power of a value that may be infinite";
    case OP_ADD: case OP_SUB: return "a sum of infinities of both signs";
    default: return "an operation on values that may be infinite";
    }
  case E_CALL:
    switch (n->u.call.func) {
    case F_EXP: return ask == ASK_MODERATE ? "exp" : "exp of a value that may be large";
    case F_LOG: return ask == ASK_MODERATE ? "log" : "log of a value that may be 0";
    case F_SQRT: return "sqrt of a value that may be negative";
    case F_ERF: return "erf of a value that may be NaN";
    default: return pass_reason(pc, "%s of values that may be NaN", ir_func_name(n->u.call.func));
    }
  default: return "an operation whose value is not bounded";
  }
}

/* Why e (in statement type st) lacks ok: "'T' is computed with <what>"
 * (the tensor ir_value_culprit blames) or "<verb> <what>" (e's own
 * construct). */
static const char *why_not(PassCtx *pc, const IrProgram *p, const IrValueProgram *vp, const IrExpr *e, IrDType st,
                           bool (*ok)(IrValue v), Ask ask, const char *verb) {
  const IrStmt *s = NULL;
  const IrTensor *c = ir_value_culprit(vp, p, e, ok, &s);
  if (c && c->role != ROLE_IN && c->role != ROLE_PARAM) {
    if (!s) return pass_reason(pc, "'%s' is computed with no definition that bounds it", c->name);
    const IrExpr *n = ir_value_lost_at(vp, p, s->rhs, c->dtype, ok);
    return pass_reason(pc, "'%s' is computed with %s", c->name, n ? construct(pc, n, ask, c) : "a recurrence");
  }
  const IrExpr *n = ir_value_lost_at(vp, p, e, st, ok);
  return pass_reason(pc, "%s %s", verb, n ? construct(pc, n, ask, NULL) : "an unbounded operation");
}

static bool holds(const IrNest *n, const IrStmt *s) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST ? holds(n->items[i].u.nest, s) : n->items[i].u.stmt == s) return true;
  return false;
}

/* The top-level nest holding statement s, or -1. */
static int nest_of(const IrProgram *p, const IrStmt *s) {
  for (int k = 0; k < p->nnests; k++)
    if (holds(p->nests[k], s)) return k;
  return -1;
}

const char *mp_may_be_inf(PassCtx *pc, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  IrValueProgram vp;
  if (!t || !ir_value_program(p, true, &vp)) return pass_reason(pc, "its values cannot be analysed");
  const char *why = NULL;
  if (t->id < vp.n && ir_value_may_inf_ordinary(vp.tensors[t->id])) {
    IrRef r = {.name = name, .tensor = (IrTensor *)t};
    IrExpr e = {.kind = E_REF};
    e.u.ref = &r;
    const IrStmt *s = NULL;
    const IrTensor *c = ir_value_culprit(&vp, p, &e, finite_ok, &s);
    const IrExpr *n = s ? ir_value_lost_at(&vp, p, s->rhs, c->dtype, finite_ok) : NULL;
    const char *what = n ? (n->kind == E_INF ? "contains inf" : pass_reason(pc, "has %s", construct(pc, n, ASK_INF, c)))
                         : "is not bounded";
    int k = s ? nest_of(p, s) : -1;
    if (!c || !s) why = "its value is not bounded";
    else if (c == t) why = pass_reason(pc, "its definition in nest %d %s", k, what);
    else why = pass_reason(pc, "it is computed from '%s', whose definition in nest %d %s", c->name, k, what);
  }
  ir_value_program_free(&vp);
  return why;
}

/* The first operand of e's own algebra (+ - * / and integer powers, outside
 * function arguments: X/(A/B) is X*B/A to it) that may be infinite, or
 * NULL; a power whose integer exponent is beyond 8 is itself one. */
static const IrExpr *infinite_operand(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st) {
  switch (e->kind) {
  case E_PAREN: return infinite_operand(vp, p, e->u.paren, st);
  case E_UNARY: return infinite_operand(vp, p, e->u.unary.a, st);
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    int64_t n;
    if (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV) {
      const IrExpr *l = infinite_operand(vp, p, e->u.bin.a, st);
      return l ? l : infinite_operand(vp, p, e->u.bin.b, st);
    }
    if (op == OP_POW && alg_int_exponent(e->u.bin.b, &n)) {
      /* a moderate base (up to 10^4) to a power above 8 may overflow even
         f32: (1-A)**1020.7 was inf, and together's common denominator
         made inf/inf = NaN of 1/inf-1/A (fuzz_passes finding 41) */
      if (n > 8 || n < -8) return e;
      return infinite_operand(vp, p, e->u.bin.a, st);
    }
    break;
  }
  default: break;
  }
  return ir_value_may_inf_ordinary(ir_value_in(vp, p, e, st)) ? e : NULL;
}

const char *mp_expr_may_be_inf(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  IrValueProgram vp;
  if (!ir_value_program(p, true, &vp)) return "its values cannot be analysed";
  const IrExpr *l = infinite_operand(&vp, p, e, st);
  const char *why = NULL;
  if (l && l->kind == E_BINARY && l->u.bin.op == OP_POW && !ir_value_may_inf_ordinary(ir_value_in(&vp, p, l, st)))
    why = "it has a power with an exponent above 8, which may overflow";
  else if (l)
    why = why_not(pc, p, &vp, l, st, finite_ok, ASK_DIVISOR, "it has");
  ir_value_program_free(&vp);
  return why;
}

const char *mp_immoderate(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  IrValueProgram vp;
  if (!ir_value_program(p, true, &vp)) return "its values cannot be analysed";
  const char *why = NULL;
  if (!ir_value_moderate(ir_value_in(&vp, p, e, st))) why = why_not(pc, p, &vp, e, st, ir_value_moderate, ASK_MODERATE, "it uses");
  ir_value_program_free(&vp);
  return why;
}

const char *mp_immoderate_tensor(PassCtx *pc, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  if (!t) return pass_reason(pc, "'%s' is no tensor", name);
  IrRef r = {.name = name, .tensor = (IrTensor *)t};
  IrExpr e = {.kind = E_REF};
  e.u.ref = &r;
  return mp_immoderate(pc, p, &e, t->dtype);
}
