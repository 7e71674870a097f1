/* rewrite_bounds.c -- constants and bounds of tensor-free sub-expressions
 * (rewrite.h: rw_const_value, rw_value_bound, rw_find_literal,
 * rw_find_huge, rw_unbounded_item, rw_oversized_item).  Moved out of
 * rewrite.c (issue 39) unchanged. */
#include "passes/rewrite.h"
#include "passes/graph.h"

#include "ir/range.h"
#include "ir/mathlib.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constants and bounds */

/* What a sub-expression that reads no tensor is worth: its exact value when
 * constant (c), and an interval [lo, hi] holding every value it takes over
 * its loop indices' ranges (ok). */
typedef struct Val {
  bool c, ok;
  double v, lo, hi;
} Val;

static Val val_exact(double v) { return (Val){true, !isnan(v), v, v, v}; }
static Val val_range(double lo, double hi) {
  return (Val){false, !isnan(lo) && !isnan(hi), 0, lo, hi};
}
static const Val val_none = {false, false, 0, 0, 0};

static double mag(Val x) { return fmax(fabs(x.lo), fabs(x.hi)); }

/* max(a, b) or min(a, b) of two Vals. */
static Val val_minmax(IrFunc f, Val a, Val b) {
  if (a.c && b.c) return val_exact(f == F_MAX ? (a.v > b.v ? a.v : b.v) : (a.v < b.v ? a.v : b.v));
  if (!a.ok || !b.ok) return val_none;
  return f == F_MAX ? val_range(fmax(a.lo, b.lo), fmax(a.hi, b.hi)) : val_range(fmin(a.lo, b.lo), fmin(a.hi, b.hi));
}

/* e's Val from its operands' (k: unary/binary a, b; call arguments),
 * computed in f64 with leirc's mathlib. */
static Val val_combine(const IrExpr *e, const Val *k) {
  switch (e->kind) {
  case E_PAREN: return k[0];
  case E_UNARY:
    if (e->u.unary.op != OP_NEG) return k[0];
    return k[0].c ? val_exact(-k[0].v) : k[0].ok ? val_range(-k[0].hi, -k[0].lo) : val_none;
  case E_BINARY: {
    Val a = k[0], b = k[1];
    IrOp op = e->u.bin.op;
    if (a.c && b.c) switch (op) {
      case OP_ADD: return val_exact(a.v + b.v);
      case OP_SUB: return val_exact(a.v - b.v);
      case OP_MUL: return val_exact(a.v * b.v);
      case OP_DIV: return val_exact(a.v / b.v);
      case OP_FLOORDIV: return val_exact(floor(a.v / b.v));
      case OP_MOD: return val_exact(a.v - b.v * floor(a.v / b.v));
      case OP_POW: return val_exact(leir_pow(a.v, b.v));
      default: return val_none; /* & and | */
      }
    if (!a.ok) return val_none;
    switch (op) {
    case OP_ADD: return b.ok ? val_range(a.lo + b.lo, a.hi + b.hi) : val_none;
    case OP_SUB: return b.ok ? val_range(a.lo - b.hi, a.hi - b.lo) : val_none;
    case OP_MUL: {
      if (!b.ok) return val_none;
      double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}, lo = p[0], hi = p[0];
      for (int i = 1; i < 4; i++) lo = fmin(lo, p[i]), hi = fmax(hi, p[i]);
      return val_range(lo, hi);
    }
    case OP_DIV: case OP_FLOORDIV: {
      /* only by a constant away from 0: a divisor near 0 has no bound */
      if (!b.c || !(fabs(b.v) >= 1)) return val_none;
      double m = mag(a) / fabs(b.v) + (op == OP_FLOORDIV);
      return val_range(-m, m);
    }
    case OP_MOD: return b.c && b.v != 0 ? val_range(-fabs(b.v), fabs(b.v)) : val_none;
    case OP_POW: {
      /* a base of magnitude up to mag(a), to an exponent in [0, hi] */
      if (!b.ok || b.lo < 0) return val_none;
      double m = leir_pow(fmax(mag(a), 1), b.hi);
      return val_range(-m, m);
    }
    default: return val_none;
    }
  }
  case E_CALL: {
    int n = e->u.call.nargs;
    if (n > 3) return val_none;
    bool all = true;
    for (int i = 0; i < n && all; i++) all = k[i].c;
    if (all) switch (e->u.call.func) {
      case F_EXP: return val_exact(leir_exp(k[0].v));
      case F_LOG: return val_exact(leir_log(k[0].v));
      case F_SQRT: return val_exact(sqrt(k[0].v));
      case F_ABS: return val_exact(fabs(k[0].v));
      case F_ERF: return val_exact(leir_erf(k[0].v));
      case F_ITE: return val_exact(k[0].v != 0 ? k[1].v : k[2].v);
      default: break; /* max, min: find_walk folds them */
      }
    switch (e->u.call.func) {
    case F_EXP: return k[0].ok ? val_range(leir_exp(k[0].lo), leir_exp(k[0].hi)) : val_none;
    case F_SQRT: return k[0].ok ? val_range(0, sqrt(fmax(k[0].hi, 0))) : val_none;
    case F_ABS: return k[0].ok ? val_range(0, mag(k[0])) : val_none;
    case F_ERF: return val_range(-1, 1);
    case F_ITE: return k[1].ok && k[2].ok ? val_range(fmin(k[1].lo, k[2].lo), fmax(k[1].hi, k[2].hi)) : val_none;
    default: return val_none; /* log near 0 */
    }
  }
  default: return val_none;
  }
}

/* The operands val_combine takes, in order (at most 3). */
static int operands(const IrExpr *e, const IrExpr **o) {
  switch (e->kind) {
  case E_PAREN: o[0] = e->u.paren; return 1;
  case E_UNARY: o[0] = e->u.unary.a; return 1;
  case E_BINARY: o[0] = e->u.bin.a, o[1] = e->u.bin.b; return 2;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && i < 3; i++) o[i] = e->u.call.args[i];
    return e->u.call.nargs;
  default: return 0;
  }
}

/* The finder: every node of e outside subscripts, once, bottom up.  A node
 * is tested (innermost first) unless `quiet`; in skip_div mode the right
 * operand of / // % and comparisons are quiet. */
typedef struct Finder {
  bool consts, skip_div;
  bool (*bad)(const IrExpr *, double, bool, void *);
  void *u;
  const IrExpr *found;
} Finder;

static Val find_walk(Finder *f, const IrExpr *e, bool in_cmp, bool quiet) {
  switch (e->kind) {
  case E_INT: case E_FLOAT: {
    Val v = val_exact(e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value);
    if (!quiet && !f->found && f->bad(e, fabs(v.v), in_cmp, f->u)) f->found = e;
    return v;
  }
  case E_INDEX:
    return e->u.index.loop ? val_range(0, (double)(e->u.index.loop->extent - 1)) : val_none;
  default: break;
  }
  Val v;
  if (e->kind == E_CMP) { /* 0 or 1; its operands are in_cmp */
    bool all = true, t = true;
    double prev = 0;
    for (int i = 0; i < e->u.cmp.n; i++) {
      Val x = find_walk(f, e->u.cmp.operand[i], true, quiet || f->skip_div);
      if (!x.c) all = false;
      else if (all && i > 0) t = t && ir_cmp_f64(e->u.cmp.op[i - 1], prev, x.v);
      prev = x.v;
    }
    v = all ? val_exact(t) : val_range(0, 1);
  } else if (e->kind == E_CALL && (e->u.call.nargs > 3 || e->u.call.func == F_MIN || e->u.call.func == F_MAX)) {
    /* max and min of any number of operands, folded; every operand of a
       longer call is searched too (fuzz_passes: -21**c as the 4th operand
       of a min escaped the test of finding 46) */
    IrFunc fn = e->u.call.func;
    bool mm = fn == F_MIN || fn == F_MAX;
    v = val_none;
    for (int i = 0; i < e->u.call.nargs; i++) {
      Val x = find_walk(f, e->u.call.args[i], in_cmp, quiet);
      v = !mm ? val_none : i == 0 ? x : val_minmax(fn, v, x);
    }
  } else {
    const IrExpr *o[3];
    Val k[3];
    int n = operands(e, o);
    if (n <= 0) return val_none; /* references (subscripts are not searched), inf */
    for (int i = 0; i < n; i++) {
      bool q = quiet || (f->skip_div && e->kind == E_BINARY && i == 1 &&
                         (e->u.bin.op == OP_DIV || e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_MOD));
      k[i] = find_walk(f, o[i], in_cmp, q);
    }
    v = val_combine(e, k);
  }
  if (f->consts && !quiet && !f->found && e->kind != E_PAREN && (v.c || v.ok) && f->bad(e, mag(v), in_cmp, f->u))
    f->found = e;
  return v;
}

static Val val_of(const IrExpr *e) {
  Finder f = {false, false, NULL, NULL, NULL};
  return find_walk(&f, e, false, true);
}

bool rw_const_value(const IrExpr *e, double *v) {
  Val x = val_of(e);
  if (x.c) *v = x.v;
  return x.c;
}

bool rw_value_bound(const IrExpr *e, double *m) {
  Val x = val_of(e);
  *m = mag(x);
  return x.ok;
}

typedef struct LitTest {
  bool (*bad)(const IrExpr *, bool, void *);
  void *u;
} LitTest;

static bool literal_only(const IrExpr *e, double v, bool in_cmp, void *u) {
  (void)v;
  const LitTest *t = u;
  return t->bad(e, in_cmp, t->u);
}

const IrExpr *rw_find_literal(const IrExpr *e, bool (*bad)(const IrExpr *lit, bool in_cmp, void *u), void *u) {
  LitTest t = {bad, u};
  Finder f = {false, false, literal_only, &t, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

const IrExpr *rw_find_constant(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u),
                               void *u) {
  Finder f = {true, false, bad, u, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

const IrExpr *rw_find_huge(const IrExpr *e, bool (*bad)(const IrExpr *c, double v, bool in_cmp, void *u), void *u) {
  Finder f = {true, true, bad, u, NULL};
  find_walk(&f, e, false, false);
  return f.found;
}

int rw_unbounded_item(const IrRef *r) {
  for (int i = 0; i < r->nsub; i++)
    if (!ir_expr_range(r->sub[i]).ok) return i;
  return -1;
}

int rw_oversized_item(const IrRef *r, const int64_t *extent, int64_t *hi) {
  int64_t n = 1;
  for (int i = 0; i < r->nsub; i++) {
    IrRange g = ir_expr_range(r->sub[i]);
    int64_t d = g.hi < 0 ? 1 : g.hi >= IR_MAX_NUMEL ? IR_MAX_NUMEL + 1 : g.hi + 1;
    if (extent && extent[i] > 0) d = extent[i];
    if (__builtin_mul_overflow(n, d, &n) || n > IR_MAX_NUMEL) {
      *hi = g.hi;
      return i;
    }
  }
  return -1;
}
