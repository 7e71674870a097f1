/* value_query.c -- see value.h, "queries": the value analysis one node at
 * a time (a caller that walks an expression itself, bottom up, asks these
 * with its operands' values), exact constant folding in f64 with leirc's
 * mathlib, and a power over a range of exponents. */
#include "ir/value.h"

#include <math.h>

#include "ir/mathlib.h"
#include "ir/value_mag.h"

double ir_value_mag(IrValue v) {
  if (v.bottom) return 0;
  if (!ir_value_finite(v)) return INFINITY;
  return fmax(fabs(v.lo), fabs(v.hi));
}

static IrValue pow_range(IrValue a, IrValue b, IrDType t) {
  if (a.bottom || b.bottom) return ir_value_bottom();
  bool point = !b.may_nan && !b.may_inf && b.lo == b.hi;
  bool real = t == DT_NONE || ir_dtype_is_float(t);
  bool integral_exp = b.integral && b.iok;
  /* a power of a possibly negative base to a non-integer exponent may be
     NaN: the module's own answer */
  if (point || !real || !ir_value_finite(b) || b.lo < 0 || !ir_value_finite(a) ||
      (!integral_exp && !ir_value_nonneg(a)))
    return ir_value_pow(a, b, t);
  /* |a**k| <= max(|a|, 1)**k <= max(|a|, 1)**hi for every k in [lo, hi];
     widened by 2^-20 relative for leirc's pow's roundings */
  double m = pow(fmax(ir_value_mag(a), 1), b.hi);
  if (!isfinite(m)) return ir_value_pow(a, b, t);
  m += m * 0x1p-20;
  /* a base >= 0: at least the smallest base to the smallest exponent (at
     least 1) or to the largest (below 1) */
  double lo = -m;
  if (ir_value_nonneg(a)) {
    lo = pow(a.lo, a.lo >= 1 ? b.lo : b.hi);
    lo -= lo * 0x1p-20;
  }
  IrValue r = ir_value_real(lo, m);
  /* zero only from a zero base (or an underflow: the type's rounding) */
  r.may_zero = a.may_zero || lo <= 0;
  r.may_nan = a.may_nan;
  r.inexact = a.inexact || b.inexact;
  return t == DT_NONE ? r : ir_value_convert(r, t);
}

IrValue ir_value_pow_range(IrValue a, IrValue b, IrDType t) { return vm_pow(pow_range(a, b, t), a, b); }

IrValue ir_value_binop(IrOp op, IrValue a, IrValue b, IrDType t) {
  switch (op) {
  case OP_ADD: return ir_value_add(a, b, t);
  case OP_SUB: return ir_value_sub(a, b, t);
  case OP_MUL: return ir_value_mul(a, b, t);
  case OP_DIV: return ir_value_div(a, b, t);
  case OP_FLOORDIV: return ir_value_floordiv(a, b, t);
  case OP_MOD: return ir_value_mod(a, b, t);
  case OP_POW: return ir_value_pow_range(a, b, t);
  case OP_AND: return ir_value_and(a, b);
  case OP_OR: return ir_value_or(a, b);
  case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE: return ir_value_cmp(op, a, b);
  default: return ir_value_top();
  }
}

IrValue ir_value_call(IrFunc f, const IrValue *k, int n, IrDType t) {
  switch (f) {
  case F_ITE: return n == 3 ? ir_value_select(k[0], k[1], k[2]) : ir_value_top();
  case F_MAX:
  case F_MIN: {
    if (n < 1) return ir_value_top();
    IrValue r = k[0];
    for (int i = 1; i < n; i++) r = f == F_MAX ? ir_value_max(r, k[i]) : ir_value_min(r, k[i]);
    return r;
  }
  default: break;
  }
  if (n != 1) return ir_value_top();
  switch (f) {
  case F_EXP: return ir_value_exp(k[0], t);
  case F_LOG: return ir_value_log(k[0], t);
  case F_SQRT: return ir_value_sqrt(k[0], t);
  case F_ABS: return ir_value_abs(k[0], t);
  case F_ERF: return ir_value_erf(k[0], t);
  default: return ir_value_top();
  }
}

bool ir_value_fold_binop(IrOp op, double a, double b, double *r) {
  switch (op) {
  case OP_ADD: *r = a + b; return true;
  case OP_SUB: *r = a - b; return true;
  case OP_MUL: *r = a * b; return true;
  case OP_DIV: *r = a / b; return true;
  case OP_FLOORDIV: *r = floor(a / b); return true;
  case OP_MOD: *r = a - b * floor(a / b); return true;
  case OP_POW: *r = leir_pow(a, b); return true;
  case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE: *r = ir_cmp_f64(op, a, b); return true;
  default: return false; /* & and |: not folded */
  }
}

bool ir_value_fold_call(IrFunc f, const double *k, int n, double *r) {
  switch (f) {
  case F_MAX:
  case F_MIN:
    if (n < 1) return false;
    *r = k[0];
    for (int i = 1; i < n; i++) *r = f == F_MAX ? (*r > k[i] ? *r : k[i]) : (*r < k[i] ? *r : k[i]);
    return true;
  case F_ITE:
    if (n != 3) return false;
    *r = k[0] != 0 ? k[1] : k[2];
    return true;
  default: break;
  }
  if (n != 1) return false;
  switch (f) {
  case F_EXP: *r = leir_exp(k[0]); return true;
  case F_LOG: *r = leir_log(k[0]); return true;
  case F_SQRT: *r = sqrt(k[0]); return true;
  case F_ABS: *r = fabs(k[0]); return true;
  case F_ERF: *r = leir_erf(k[0]); return true;
  default: return false;
  }
}

bool ir_value_loop_range(const IrValueGuards *g, const IrLoop *l, int64_t *lo, int64_t *hi) {
  /* the value of l's index under the guards, as an expression has it */
  IrExpr e = {.kind = E_INDEX, .type = DT_NONE};
  e.u.index.name = l->index;
  e.u.index.loop = (IrLoop *)l;
  IrValueGuards copy = *g;
  IrValueEnv env = {.st = DT_NONE, .guards = &copy};
  IrValue v = ir_value_expr(&env, &e);
  if (!v.bottom) {
    *lo = v.ilo, *hi = v.ihi;
    return true;
  }
  env.empty_as_point = true; /* the narrowed lower bound alone */
  v = ir_value_expr(&env, &e);
  *lo = v.ilo, *hi = v.ilo - 1;
  return false;
}

bool ir_value_guard_push(IrValueGuards *g, const IrLoop *l, int64_t lo, int64_t hi) {
  if (g->n == IR_VALUE_MAX_GUARDS) return false;
  g->loop[g->n] = l;
  g->lo[g->n] = lo;
  g->hi[g->n] = hi;
  g->n++;
  return true;
}
