/* mathpat_values.c -- the value questions of the non-symbolic math
 * strategies (mathpat.h): may a tensor or expression be infinite, may a
 * divisor be, is a value positive, does a split reach a divisor, is a value
 * of moderate magnitude.  Moved out of mathpat.c (issue 39); signs and
 * the divisor rule's bound are the value analysis's (ir/value.h). */
#include "passes/mathpat.h"

#include "ir/value.h"
#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ may be infinite */

static bool has_inf(const IrExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case E_INF: return true;
  case E_UNARY: return has_inf(e->u.unary.a);
  case E_BINARY: return has_inf(e->u.bin.a) || has_inf(e->u.bin.b);
  case E_PAREN: return has_inf(e->u.paren);
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (has_inf(e->u.call.args[i])) return true;
    return false;
  case E_CMP: /* a comparison yields 0 or 1 */
  default: return false;
  }
}

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

/* A search for a right side with some property (has: inf, a huge literal)
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

static bool has_inf_rhs(const IrExpr *rhs, void *u) {
  (void)u;
  return has_inf(rhs);
}

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

const char *mp_may_be_inf(PassCtx *pc, const IrProgram *p, const char *name) {
  InfSearch s = {.p = p, .has = has_inf_rhs};
  if (!inf_tensor(&s, name)) return NULL;
  if (s.nest < 0) return pass_reason(pc, "its definition is too deep to analyse");
  if (!strcmp(s.culprit, name)) return pass_reason(pc, "its definition in nest %d contains inf", s.nest);
  return pass_reason(pc, "it is computed from '%s', whose definition in nest %d contains inf", s.culprit, s.nest);
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

/* ------------------------------------------------------------ a divisor that may be infinite */

/* The largest exponent a divisor's powers may have. */
#define MP_MAX_DIV_EXP 8

typedef struct DivSearch {
  PassCtx *pc;
  const IrProgram *p;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *why;    /* the construct */
  const char *tensor; /* the tensor whose definition has it (NULL: e itself) */
  bool top;           /* in e's own + - * / and integer powers (the algebra's) */
  IrDType st;         /* the type of the statement being searched */
  MpMemo finite;      /* tensors found finite (reachability, as InfSearch) */
} DivSearch;

static bool div_expr(DivSearch *s, const IrExpr *e);
static bool div_tensor(DivSearch *s, const char *name);

static bool div_found(DivSearch *s, const char *why) {
  if (!s->why) s->why = why;
  return true;
}

/* A literal >= 0 (an exponent that keeps a finite base finite). */
static bool nonneg_literal(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return (e->kind == E_INT) || (e->kind == E_FLOAT && e->u.flit.value >= 0);
}

static bool literal(const IrExpr *e);
static double literal_value(const IrExpr *e);

static bool div_binary(DivSearch *s, const IrExpr *e) {
  const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
  switch (e->u.bin.op) {
  case OP_DIV:
    if (s->top) return div_expr(s, a) || div_expr(s, b); /* the algebra's own */
    /* fall through */
  case OP_FLOORDIV: case OP_MOD:
    if (!literal(b) || literal_value(b) == 0) return div_found(s, "a division by a non-constant");
    return div_expr(s, a);
  case OP_POW: {
    int64_t n; /* (top: the algebra's integer powers, alg_int_exponent) */
    bool own = s->top && alg_int_exponent(b, &n);
    if (!nonneg_literal(b) && !own) return div_found(s, "a power with a negative or non-constant exponent");
    /* a moderate base (up to 10^4) to a power above 8 may overflow even
       f32: (1-A)**1020.7 was inf, and together's common denominator
       made inf/inf = NaN of 1/inf-1/A (fuzz_passes finding 41) */
    if (fabs(own ? (double)n : literal_value(b)) > MP_MAX_DIV_EXP)
      return div_found(s, "a power with an exponent above 8, which may overflow");
    return div_expr(s, a);
  }
  default: return div_expr(s, a) || div_expr(s, b);
  }
}

static bool div_expr(DivSearch *s, const IrExpr *e) {
  switch (e->kind) {
  case E_INF: return div_found(s, "inf");
  case E_PAREN: return div_expr(s, e->u.paren);
  case E_UNARY: return div_expr(s, e->u.unary.a);
  case E_BINARY: return div_binary(s, e);
  case E_REF: {
    bool top = s->top;
    s->top = false;
    bool found = div_tensor(s, e->u.ref->name);
    s->top = top;
    return found;
  }
  case E_CALL: {
    const IrExpr *x = e->u.call.nargs ? e->u.call.args[0] : NULL;
    if (e->u.call.func == F_LOG && mp_sign_expr(s->p, x, s->st) != SIGN_POS)
      return div_found(s, "log of a value that may be 0");
    if (e->u.call.func == F_EXP && mp_immoderate(s->pc, s->p, x, s->st))
      return div_found(s, "exp of a value that may be large");
    bool top = s->top, found = false;
    IrDType st = s->st;
    s->top = false;
    for (int i = 0; i < e->u.call.nargs && !found; i++) {
      /* an if_then_else condition's literals and index values are i64 (SPEC 5.4) */
      s->st = e->u.call.func == F_ITE && i == 0 ? DT_I64 : st;
      found = div_expr(s, e->u.call.args[i]);
    }
    s->st = st;
    s->top = top;
    return found;
  }
  default: return false; /* literals (finite: the algebra checks them), indices, comparisons */
  }
}

static bool div_in_nest(DivSearch *s, const IrNest *n, const char *name) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (div_in_nest(s, n->items[i].u.nest, name)) return true;
      continue;
    }
    const IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    const char *before = s->why;
    IrDType outer = s->st;
    s->st = rw_ref_dtype(st->lhs);
    bool found = div_expr(s, st->rhs);
    s->st = outer;
    if (found) {
      if (!before && !s->tensor) s->tensor = name;
      return true;
    }
  }
  return false;
}

static bool div_tensor(DivSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return false;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) return false; /* a cycle (a reduction) adds no infinity of its own */
  if (memo_has(&s->finite, name)) return false;
  if (s->depth == MP_MAX_DEPTH) {
    s->tensor = name;
    return div_found(s, "a definition too deep to analyse");
  }
  s->stack[s->depth++] = name;
  bool found = false;
  for (int k = 0; k < s->p->nnests && !found; k++) found = div_in_nest(s, s->p->nests[k], name);
  s->depth--;
  if (!found) memo_put(&s->finite, name, 0);
  return found;
}

const char *mp_expr_may_be_inf(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  DivSearch s = {.pc = pc, .p = p, .top = true, .st = st};
  if (!div_expr(&s, e)) return NULL;
  if (s.tensor) return pass_reason(pc, "'%s' is computed with %s", s.tensor, s.why);
  return pass_reason(pc, "it has %s", s.why);
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

/* ------------------------------------------------------------ moderate magnitude */

typedef struct ModSearch {
  const IrProgram *p;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *why;    /* the construct */
  const char *tensor; /* the tensor whose definition has it (NULL: e itself) */
  MpMemo ok;          /* tensors found moderate (a cycle fails, so none across one) */
  IrDType st;         /* the type of the statement being searched */
} ModSearch;

static bool mod_expr(ModSearch *s, const IrExpr *e);
static bool mod_tensor(ModSearch *s, const char *name);

/* A literal larger than this is not moderate (fuzz_passes: y = 1e8 made
   1+y-y exactly 0 in f32). */
#define MP_MODERATE_LITERAL 10000

/* e without parentheses and unary minuses: a literal's node; *neg says
 * whether an odd number of minuses was stripped. */
static const IrExpr *strip_sign(const IrExpr *e, bool *neg) {
  *neg = false;
  while (e->kind == E_PAREN || (e->kind == E_UNARY && e->u.unary.op == OP_NEG)) {
    if (e->kind == E_UNARY) *neg = !*neg;
    e = e->kind == E_PAREN ? e->u.paren : e->u.unary.a;
  }
  return e;
}

static bool literal(const IrExpr *e) {
  bool neg;
  e = strip_sign(e, &neg);
  return e->kind == E_INT || e->kind == E_FLOAT;
}

/* The value of a literal (literal() holds). */
static double literal_value(const IrExpr *e) {
  bool neg;
  e = strip_sign(e, &neg);
  double v = e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value;
  return neg ? -v : v;
}

static bool fail(ModSearch *s, const char *why) {
  if (!s->why) s->why = why;
  return false;
}

static bool mod_binary(ModSearch *s, const IrExpr *e) {
  const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
  switch (e->u.bin.op) {
  case OP_ADD: case OP_SUB: return mod_expr(s, a) && mod_expr(s, b);
  case OP_MUL:
    if (!literal(a) && !literal(b)) return fail(s, "a product of two non-constants");
    return mod_expr(s, a) && mod_expr(s, b);
  case OP_DIV: case OP_FLOORDIV: case OP_MOD:
    if (!literal(b)) return fail(s, "a division by a non-constant");
    if (literal_value(b) == 0) return fail(s, "a division by zero");
    return mod_expr(s, a);
  case OP_POW: return fail(s, "a power");
  default: return true; /* & and |: 0 or 1 */
  }
}

static bool mod_call(ModSearch *s, const IrExpr *e) {
  switch (e->u.call.func) {
  case F_EXP: return fail(s, "exp");
  case F_LOG: return fail(s, "log");
  case F_ERF: /* bounded, but NaN where its argument is: X+y-y is NaN where X alone is not (fuzz_passes finding
                 57: y the shifted erf((A**A+1)**3), NaN at A < 0) */
    return mod_expr(s, e->u.call.args[0]);
  case F_SQRT: /* NaN below 0: X+y-y is NaN where X alone is not (fuzz_passes) */
    if (mp_sign_expr(s->p, e->u.call.args[0], s->st) == SIGN_UNKNOWN)
      return fail(s, "sqrt of a value that may be negative");
    return mod_expr(s, e->u.call.args[0]);
  case F_ITE: return mod_expr(s, e->u.call.args[1]) && mod_expr(s, e->u.call.args[2]);
  default:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!mod_expr(s, e->u.call.args[i])) return false;
    return true;
  }
}

static bool mod_expr(ModSearch *s, const IrExpr *e) {
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.value > MP_MODERATE_LITERAL || e->u.ilit.value < -MP_MODERATE_LITERAL)
      return fail(s, "a literal above 10000 in magnitude");
    return true;
  case E_FLOAT:
    if (fabs(e->u.flit.value) > MP_MODERATE_LITERAL) return fail(s, "a literal above 10000 in magnitude");
    return true;
  case E_INDEX: case E_CMP: return true;
  case E_INF: return fail(s, "inf");
  case E_PAREN: return mod_expr(s, e->u.paren);
  case E_UNARY: return mod_expr(s, e->u.unary.a);
  case E_BINARY: return mod_binary(s, e);
  case E_CALL: return mod_call(s, e);
  case E_REF: return mod_tensor(s, e->u.ref->name);
  }
  return false;
}

/* `max(T,e)`, `min(T,e)` or their prefix forms
 * `max(if_then_else(c,-inf,T_{..}),e)`: moderate when e is. */
static bool mod_running(ModSearch *s, const IrStmt *st) {
  const IrExpr *e = st->rhs;
  if (e->kind != E_CALL || (e->u.call.func != F_MAX && e->u.call.func != F_MIN) || e->u.call.nargs != 2) return false;
  const IrExpr *a = e->u.call.args[0];
  if (a->kind == E_CALL && a->u.call.func == F_ITE && a->u.call.args[2]->kind == E_REF) {
    const IrExpr *id = a->u.call.args[1];
    if (id->kind == E_UNARY) id = id->u.unary.a;
    if (id->kind != E_INF) return false;
    a = a->u.call.args[2];
  }
  if (a->kind != E_REF || strcmp(a->u.ref->name, st->lhs->name)) return false;
  return mod_expr(s, e->u.call.args[1]);
}

static bool mod_writes(ModSearch *s, const IrNest *n, const char *name, bool *any) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (!mod_writes(s, n->items[i].u.nest, name, any)) return false;
      continue;
    }
    const IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    *any = true;
    IrDType outer = s->st;
    s->st = rw_ref_dtype(st->lhs);
    bool ok;
    if (st->self_ref) {
      if (!(ok = mod_running(s, st))) {
        if (!s->why) s->tensor = name;
        fail(s, "a reduction or recurrence");
      }
    } else {
      const char *before = s->why;
      if (!(ok = mod_expr(s, st->rhs)) && !before && !s->tensor) s->tensor = name;
    }
    s->st = outer;
    if (!ok) return false;
  }
  return true;
}

static bool mod_tensor(ModSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return true;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) {
      s->tensor = name;
      return fail(s, "a recurrence");
    }
  if (s->depth == MP_MAX_DEPTH) {
    s->tensor = name;
    return fail(s, "a definition too deep to analyse");
  }
  if (memo_has(&s->ok, name)) return true;
  s->stack[s->depth++] = name;
  bool any = false, ok = true;
  for (int k = 0; k < s->p->nnests && ok; k++) ok = mod_writes(s, s->p->nests[k], name, &any);
  s->depth--;
  if (ok && !any) {
    s->tensor = name;
    return fail(s, "no definition");
  }
  if (ok) memo_put(&s->ok, name, 1);
  return ok;
}

static const char *mod_phrase(PassCtx *pc, const ModSearch *s) {
  if (s->tensor) return pass_reason(pc, "'%s' is computed with %s", s->tensor, s->why);
  return pass_reason(pc, "it uses %s", s->why);
}

const char *mp_immoderate(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  ModSearch s = {.p = p, .st = st};
  return mod_expr(&s, e) ? NULL : mod_phrase(pc, &s);
}

const char *mp_immoderate_tensor(PassCtx *pc, const IrProgram *p, const char *name) {
  ModSearch s = {.p = p, .st = DT_F32};
  return mod_tensor(&s, name) ? NULL : mod_phrase(pc, &s);
}
