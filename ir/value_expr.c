/* value_expr.c -- the value analysis (see value.h): the abstract value of an
 * expression under an environment, and the narrowing of loop ranges by
 * if_then_else guards. */
#include "ir/value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ expressions */


bool ir_value_same_expr(const IrExpr *a, const IrExpr *b, bool by_name) {
  a = ir_expr_unparen(a), b = ir_expr_unparen(b);
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case E_INT: return a->u.ilit.value == b->u.ilit.value;
  case E_FLOAT: return a->u.flit.value == b->u.flit.value;
  case E_INF: return true;
  case E_INDEX: return (by_name || a->u.index.loop == b->u.index.loop) && !strcmp(a->u.index.name, b->u.index.name);
  case E_REF: {
    const IrRef *x = a->u.ref, *y = b->u.ref;
    if (strcmp(x->name, y->name) || x->nsub != y->nsub || x->tensor != y->tensor || (by_name && !x->tensor))
      return false;
    for (int i = 0; i < x->nsub; i++)
      if (!ir_value_same_expr(x->sub[i], y->sub[i], by_name)) return false;
    return true;
  }
  case E_UNARY: return a->u.unary.op == b->u.unary.op && ir_value_same_expr(a->u.unary.a, b->u.unary.a, by_name);
  case E_BINARY:
    return a->u.bin.op == b->u.bin.op && ir_value_same_expr(a->u.bin.a, b->u.bin.a, by_name) &&
           ir_value_same_expr(a->u.bin.b, b->u.bin.b, by_name);
  case E_CMP:
    if (a->u.cmp.n != b->u.cmp.n) return false;
    for (int i = 0; i < a->u.cmp.n; i++)
      if (!ir_value_same_expr(a->u.cmp.operand[i], b->u.cmp.operand[i], by_name) ||
          (i && a->u.cmp.op[i - 1] != b->u.cmp.op[i - 1]))
        return false;
    return true;
  case E_CALL:
    if (a->u.call.func != b->u.call.func || a->u.call.nargs != b->u.call.nargs) return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!ir_value_same_expr(a->u.call.args[i], b->u.call.args[i], by_name)) return false;
    return true;
  default: return false;
  }
}

static IrDType op_type(const IrValueEnv *env, const IrExpr *e);

/* -x of x, negated in a float type (an integer's -INT_MIN wraps). */
static bool negation_of(const IrValueEnv *env, const IrExpr *n, const IrExpr *x) {
  return n->kind == E_UNARY && n->u.unary.op == OP_NEG && ir_dtype_is_float(op_type(env, n)) &&
         ir_value_same_expr(x, n->u.unary.a, false);
}

/* exp(x) and exp(-x), in either order. */
static bool exp_pair(const IrValueEnv *env, const IrExpr *a, const IrExpr *b) {
  a = ir_expr_unparen(a), b = ir_expr_unparen(b);
  if (a->kind != E_CALL || b->kind != E_CALL || a->u.call.func != F_EXP || b->u.call.func != F_EXP ||
      a->u.call.nargs != 1 || b->u.call.nargs != 1)
    return false;
  const IrExpr *x = ir_expr_unparen(a->u.call.args[0]), *y = ir_expr_unparen(b->u.call.args[0]);
  return negation_of(env, y, x) || negation_of(env, x, y);
}

/* l's range under env's guards; false when empty. */
static bool loop_range(const IrValueEnv *env, const IrLoop *l, int64_t *lo, int64_t *hi) {
  *lo = 0, *hi = l->extent - 1;
  const IrValueGuards *g = env->guards;
  for (int i = 0; g && i < g->n; i++)
    if (g->loop[i] == l) {
      if (g->lo[i] > *lo) *lo = g->lo[i];
      if (g->hi[i] < *hi) *hi = g->hi[i];
    }
  return *lo <= *hi;
}

static IrValue index_value(const IrValueEnv *env, const IrLoop *l) {
  int64_t lo, hi;
  if (!loop_range(env, l, &lo, &hi)) {
    if (!env->empty_as_point) return ir_value_bottom();
    hi = lo;
  }
  return ir_value_int(lo, hi);
}

/* The type an operation of node e is done in. */
static IrDType op_type(const IrValueEnv *env, const IrExpr *e) {
  if (env->st == DT_NONE) return DT_NONE;
  return e->type != DT_NONE ? e->type : env->st;
}

static IrValue expr(const IrValueEnv *env, const IrExpr *e);

/* An index value: LINEAR at worst (value_mag.c), CONST where its range
   proves it. */
static IrValue index_linear(IrValue v) {
  if (v.bottom) return v;
  if (v.mag_hi < IR_MAG_LINEAR) v.mag_hi = IR_MAG_LINEAR;
  if (v.mag_lo < IR_MAG_LINEAR) v.mag_lo = IR_MAG_LINEAR;
  v.mag_num = v.mag_scaled = true;
  return v;
}

/* An operand converted to the operation's type. */
static IrValue operand(const IrValueEnv *env, const IrExpr *e, IrDType t) {
  IrValue v = expr(env, e);
  if (t != DT_NONE && e->type != DT_NONE && e->type != t) v = ir_value_convert(v, t);
  return v;
}

static IrValue call(const IrValueEnv *env, const IrExpr *e) {
  IrDType t = op_type(env, e);
  int n = e->u.call.nargs;
  IrExpr **a = e->u.call.args;
  switch (e->u.call.func) {
  case F_ITE: {
    if (n != 3) return ir_value_top();
    IrValueEnv ce = *env;
    ce.st = DT_NONE; /* comparisons on integers (§5.4) */
    IrValue c = expr(&ce, a[0]);
    IrValueEnv ge = *env; /* (guards: never NULL below ir_value_expr) */
    int n0 = ge.guards->n;
    IrValue x = ir_value_guard(&ge, a[0], true) ? operand(&ge, a[1], t) : ir_value_bottom();
    ge.guards->n = n0;
    IrValue y = ir_value_guard(&ge, a[0], false) ? operand(&ge, a[2], t) : ir_value_bottom();
    ge.guards->n = n0;
    return ir_value_select(c, x, y);
  }
  case F_MAX:
  case F_MIN: {
    if (n < 1) return ir_value_top();
    IrValue r = operand(env, a[0], t);
    for (int i = 1; i < n; i++) {
      IrValue b = operand(env, a[i], t);
      r = e->u.call.func == F_MAX ? ir_value_max(r, b) : ir_value_min(r, b);
    }
    return r;
  }
  default: break;
  }
  if (n != 1) return ir_value_top();
  IrValue x = operand(env, a[0], t);
  return ir_value_call(e->u.call.func, &x, 1, t); /* value_query.c */
}

static IrValue expr1(const IrValueEnv *env, const IrExpr *e);

static IrValue expr(const IrValueEnv *env, const IrExpr *e) {
  IrValueBudget *b = env->budget;
  IrValue v;
  if (!b) {
    v = expr1(env, e);
  } else if (b->depth >= b->max) {
    b->capped = true;
    v = ir_value_top();
  } else {
    b->depth++;
    v = expr1(env, e);
    b->depth--;
  }
  return v;
}

static IrValue expr1(const IrValueEnv *env, const IrExpr *e) {
  IrDType t = op_type(env, e);
  switch (e->kind) {
  case E_INT: return env->st == DT_NONE ? ir_value_int(e->u.ilit.value, e->u.ilit.value) : ir_value_literal((double)e->u.ilit.value, t);
  case E_FLOAT: return ir_value_literal(e->u.flit.value, t);
  case E_INF: return ir_value_literal(INFINITY, t);
  case E_INDEX: {
    IrValue v;
    if (!e->u.index.loop) {
      v = ir_value_real(-INFINITY, INFINITY);
      v.integral = true;
    } else {
      v = ir_value_convert(index_value(env, e->u.index.loop), t);
    }
    /* an index value is of the order of the program's extents: as the
       inputs (value_mag.c) */
    return index_linear(v);
  }
  case E_PAREN: return expr(env, e->u.paren);
  case E_REF: {
    const IrTensor *tt = e->u.ref->tensor;
    if (env->ref) return env->ref(env->user, e->u.ref);
    if (env->tensor && tt) return env->tensor(env->user, tt);
    if (env->st == DT_NONE && !env->tensor) { /* index arithmetic: a read is unknown */
      IrValue v = ir_value_real(-INFINITY, INFINITY);
      v.integral = tt && !ir_dtype_is_float(tt->dtype);
      v.may_nan = v.may_inf = !v.integral;
      return ir_value_mag_reset(v);
    }
    return tt ? ir_value_of_dtype(tt->dtype, env->inputs_finite) : ir_value_top();
  }
  case E_UNARY: {
    IrValue a = operand(env, e->u.unary.a, t);
    return e->u.unary.op == OP_NEG ? ir_value_neg_(a, t) : a;
  }
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    if (op == OP_AND || op == OP_OR) {
      IrValue a = expr(env, e->u.bin.a), b = expr(env, e->u.bin.b);
      return op == OP_AND ? ir_value_and(a, b) : ir_value_or(a, b);
    }
    IrValue a = operand(env, e->u.bin.a, t);
    if (op == OP_MUL && ir_value_same_expr(e->u.bin.a, e->u.bin.b, false)) return ir_value_square(a, t);
    IrValue b = operand(env, e->u.bin.b, t);
    switch (op) {
    case OP_ADD: {
      IrValue r = ir_value_add(a, b, t);
      if (exp_pair(env, e->u.bin.a, e->u.bin.b) && ir_dtype_is_float(t) && !r.bottom) {
        /* exp(x)+exp(-x): x or -x is >= 0, so one term is >= 1 (or inf,
           or NaN): the sum is >= 1 -- taken >= 0.5, leirc's exp being a
           few ulps off -- whatever interval x has (tanh's denominator) */
        r.may_zero = false;
        if (r.lo < 0.5) r.lo = 0.5;
        if (r.hi < r.lo) r.hi = r.lo;
      }
      return r;
    }
    default: return ir_value_binop(op, a, b, t); /* value_query.c */
    }
  }
  case E_CMP: {
    int n = e->u.cmp.n;
    if (n < 2) return ir_value_top();
    IrValue r = ir_value_int(1, 1), prev = expr(env, e->u.cmp.operand[0]);
    for (int i = 1; i < n; i++) {
      IrValue cur = expr(env, e->u.cmp.operand[i]);
      r = ir_value_and(r, ir_value_cmp(e->u.cmp.op[i - 1], prev, cur));
      prev = cur;
    }
    return r;
  }
  case E_CALL: return call(env, e);
  default: return ir_value_top();
  }
}

/* Below this entry, env->guards is never NULL: one stack of guards per
   evaluation (if_then_else pushes and pops). */
IrValue ir_value_expr(const IrValueEnv *env, const IrExpr *e) {
  if (env->guards) return expr(env, e);
  IrValueGuards g;
  g.n = 0;
  IrValueEnv ge = *env;
  ge.guards = &g;
  return expr(&ge, e);
}

IrValue ir_value_index(const IrExpr *e) {
  IrValueEnv env = {.st = DT_NONE};
  return ir_value_expr(&env, e);
}

/* ------------------------------------------------------------ guards */

/* e = i, i+k, i-k, k+i (k an integer literal): the loop and k. */
static const IrLoop *index_plus(const IrExpr *e, int64_t *k) {
  e = ir_expr_unparen(e);
  *k = 0;
  if (e->kind == E_INDEX) return e->u.index.loop;
  if (e->kind != E_BINARY || (e->u.bin.op != OP_ADD && e->u.bin.op != OP_SUB)) return NULL;
  const IrExpr *a = ir_expr_unparen(e->u.bin.a), *b = ir_expr_unparen(e->u.bin.b);
  if (a->kind == E_INDEX && b->kind == E_INT) {
    if (b->u.ilit.value == INT64_MIN) return NULL;
    *k = e->u.bin.op == OP_ADD ? b->u.ilit.value : -b->u.ilit.value;
    return a->u.index.loop;
  }
  if (e->u.bin.op == OP_ADD && b->kind == E_INDEX && a->kind == E_INT) {
    *k = a->u.ilit.value;
    return b->u.index.loop;
  }
  return NULL;
}

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

/* i + k op y: narrows i's range.  False when empty. */
static bool narrow(IrValueEnv *env, const IrLoop *l, int64_t k, IrOp op, IrValue y) {
  if (!l || !y.iok || y.bottom) return true;
  if (k == INT64_MIN) return true; /* (-k would overflow) */
  int64_t lo = INT64_MIN, hi = INT64_MAX, ylo = sat_add(y.ilo, -k), yhi = sat_add(y.ihi, -k);
  switch (op) {
  case OP_LT: hi = sat_add(yhi, -1); break;
  case OP_LE: hi = yhi; break;
  case OP_GT: lo = sat_add(ylo, 1); break;
  case OP_GE: lo = ylo; break;
  case OP_EQ: lo = ylo, hi = yhi; break;
  default: { /* i != c: only at the ends of i's range */
    if (ylo != yhi) return true;
    int64_t clo, chi;
    if (!loop_range(env, l, &clo, &chi)) return false;
    if (clo == ylo) lo = sat_add(ylo, 1);
    else if (chi == ylo) hi = sat_add(ylo, -1);
    else return true;
  }
  }
  IrValueGuards *g = env->guards;
  if (!g || g->n == IR_VALUE_MAX_GUARDS) return true; /* forget: still sound */
  g->loop[g->n] = l;
  g->lo[g->n] = lo;
  g->hi[g->n] = hi;
  g->n++;
  int64_t nlo, nhi;
  return loop_range(env, l, &nlo, &nhi);
}

static bool pair(IrValueEnv *env, const IrExpr *x, IrOp op, const IrExpr *y) {
  IrValueEnv ie = *env;
  ie.st = DT_NONE;
  int64_t k;
  bool ok = true;
  const IrLoop *l = index_plus(x, &k);
  if (l) ok &= narrow(env, l, k, op, expr(&ie, y));
  ie = *env;
  ie.st = DT_NONE;
  l = index_plus(y, &k);
  if (l) ok &= narrow(env, l, k, ir_cmp_flip(op), expr(&ie, x));
  return ok;
}

bool ir_value_guard(IrValueEnv *env, const IrExpr *cond, bool truth) {
  cond = ir_expr_unparen(cond);
  if (cond->kind == E_BINARY && (cond->u.bin.op == OP_AND || cond->u.bin.op == OP_OR)) {
    bool conj = (cond->u.bin.op == OP_AND) == truth; /* both sides hold (with truth) */
    if (!conj) return true;
    bool a = ir_value_guard(env, cond->u.bin.a, truth);
    return ir_value_guard(env, cond->u.bin.b, truth) && a;
  }
  if (cond->kind != E_CMP) return true;
  int n = cond->u.cmp.n;
  if (!truth) {
    if (n != 2) return true;
    return pair(env, cond->u.cmp.operand[0], ir_cmp_negate(cond->u.cmp.op[0]), cond->u.cmp.operand[1]);
  }
  bool ok = true;
  for (int i = 1; i < n; i++) ok &= pair(env, cond->u.cmp.operand[i - 1], cond->u.cmp.op[i - 1], cond->u.cmp.operand[i]);
  return ok;
}
