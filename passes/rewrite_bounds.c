/* rewrite_bounds.c -- constants and bounds of tensor-free sub-expressions
 * (rewrite.h: rw_const_value, rw_value_bound, rw_find_literal,
 * rw_find_huge, rw_unbounded_item, rw_oversized_item).  Every bound is the
 * value analysis' (ir/value.h, issue 39), asked one node at a time. */
#include "passes/rewrite.h"
#include "passes/graph.h"

#include "ir/range.h"
#include "ir/value.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constants and bounds */

/* What a node is worth, from the value analysis (ir/value.h) one node at a
 * time, in f64: its exact value when constant (c, x: folded in f64 with
 * leirc's mathlib), its abstract value v, and whether something below it
 * is opaque to the bound (a tensor read, `inf`, an unbound index): such a
 * node is tested only when v is finite anyway. */
typedef struct Val {
  bool c, opaque;
  double x;
  IrValue v;
} Val;

static Val val_const(double x) { return (Val){true, false, x, ir_value_const(x)}; }

/* The magnitude a node is tested with: its exact value's, else v's (+inf
 * when not finite). */
static double val_mag(Val a) { return a.c ? fabs(a.x) : ir_value_mag(a.v); }

/* The finder: every node of e outside subscripts, once, bottom up.  A node
 * is tested (innermost first) unless `quiet`; in skip_div mode the right
 * operand of / // % and comparisons are quiet. */
typedef struct Finder {
  bool consts, skip_div;
  bool (*bad)(const IrExpr *, double, bool, void *);
  void *u;
  const IrExpr *found;
} Finder;

enum { FIND_ARGS = 8 }; /* call arguments kept for the value (more: top) */

static Val find_walk(Finder *f, const IrExpr *e, bool in_cmp, bool quiet) {
  Val v = {false, true, 0, ir_value_top()};
  switch (e->kind) {
  case E_INT: case E_FLOAT: {
    v = val_const(e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value);
    if (!quiet && !f->found && f->bad(e, fabs(v.x), in_cmp, f->u)) f->found = e;
    return v;
  }
  case E_INDEX:
    if (e->u.index.loop) v = (Val){false, false, 0, ir_value_int(0, e->u.index.loop->extent - 1)};
    return v;
  case E_PAREN: return find_walk(f, e->u.paren, in_cmp, quiet);
  case E_UNARY: {
    Val a = find_walk(f, e->u.unary.a, in_cmp, quiet);
    if (e->u.unary.op != OP_NEG) return a;
    v = a.c ? val_const(-a.x) : (Val){false, a.opaque, 0, ir_value_neg_(a.v, DT_F64)};
    break;
  }
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    bool qb = quiet || (f->skip_div && (op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD));
    Val a = find_walk(f, e->u.bin.a, in_cmp, quiet), b = find_walk(f, e->u.bin.b, in_cmp, qb);
    double x;
    if (a.c && b.c && ir_value_fold_binop(op, a.x, b.x, &x)) v = val_const(x);
    else v = (Val){false, a.opaque || b.opaque, 0, ir_value_binop(op, a.v, b.v, DT_F64)};
    break;
  }
  case E_CMP: { /* 0 or 1; its operands are in_cmp */
    bool all = true;
    double t = 1, prev = 0;
    IrValue r = ir_value_int(1, 1), pv = ir_value_top();
    for (int i = 0; i < e->u.cmp.n; i++) {
      Val x = find_walk(f, e->u.cmp.operand[i], true, quiet || f->skip_div);
      double k;
      if (!x.c) all = false;
      else if (all && i > 0 && ir_value_fold_binop(e->u.cmp.op[i - 1], prev, x.x, &k)) t = t != 0 && k != 0;
      if (i > 0) r = ir_value_and(r, ir_value_cmp(e->u.cmp.op[i - 1], pv, x.v));
      prev = x.x, pv = x.v;
    }
    v = all ? val_const(t) : (Val){false, false, 0, r};
    break;
  }
  case E_CALL: {
    /* every operand is searched (fuzz_passes: -21**c as the 4th operand of
       a min escaped the test of finding 46); max and min fold any number */
    IrFunc fn = e->u.call.func;
    bool mm = fn == F_MAX || fn == F_MIN;
    int n = e->u.call.nargs;
    IrValue k[3];
    double c[3];
    bool all = true, opaque = false;
    for (int i = 0; i < n; i++) {
      Val x = find_walk(f, e->u.call.args[i], in_cmp, quiet);
      opaque |= x.opaque;
      all = all && x.c;
      if (mm && i > 0) { /* v: the operands so far */
        IrValue p[2] = {k[0], x.v};
        double q[2] = {c[0], x.x}, r;
        k[0] = ir_value_call(fn, p, 2, DT_F64);
        if (all && ir_value_fold_call(fn, q, 2, &r)) c[0] = r;
      } else if (i < 3) {
        k[i] = x.v, c[i] = x.x;
      }
    }
    int m = mm && n > 0 ? 1 : n;
    double x;
    if (m > 3) break; /* no such call: opaque */
    if (all && ir_value_fold_call(fn, c, m, &x)) v = val_const(x);
    else v = (Val){false, opaque, 0, ir_value_call(fn, k, m, DT_F64)};
    break;
  }
  default: return v; /* references (subscripts are not searched), inf */
  }
  bool tested = v.c || !v.opaque || ir_value_finite(v.v);
  if (f->consts && !quiet && !f->found && e->kind != E_PAREN && tested && f->bad(e, val_mag(v), in_cmp, f->u))
    f->found = e;
  return v;
}

static Val val_of(const IrExpr *e) {
  Finder f = {false, false, NULL, NULL, NULL};
  return find_walk(&f, e, false, true);
}

bool rw_const_value(const IrExpr *e, double *v) {
  Val x = val_of(e);
  if (x.c) *v = x.x;
  return x.c;
}

bool rw_value_bound(const IrExpr *e, double *m) {
  Val x = val_of(e);
  *m = val_mag(x);
  return x.c ? !isnan(x.x) : ir_value_finite(x.v);
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
