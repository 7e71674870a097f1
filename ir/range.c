/* range.c -- see range.h. */
#include "ir/range.h"

IrRange ir_expr_range(const IrExpr *e) {
  IrRange r = {false, 0, 0}, a, b;
  switch (e->kind) {
  case E_INT: return (IrRange){true, e->u.ilit.value, e->u.ilit.value};
  case E_INDEX:
    if (!e->u.index.loop) return r;
    return (IrRange){true, 0, e->u.index.loop->extent - 1};
  case E_PAREN: return ir_expr_range(e->u.paren);
  case E_UNARY:
    a = ir_expr_range(e->u.unary.a);
    if (!a.ok || a.lo == INT64_MIN) return r;
    return e->u.unary.op == OP_NEG ? (IrRange){true, -a.hi, -a.lo} : a;
  case E_BINARY:
    a = ir_expr_range(e->u.bin.a);
    b = ir_expr_range(e->u.bin.b);
    if (!a.ok || !b.ok) return r;
    switch (e->u.bin.op) {
    case OP_ADD:
      if (__builtin_add_overflow(a.lo, b.lo, &r.lo) || __builtin_add_overflow(a.hi, b.hi, &r.hi)) return r;
      r.ok = true;
      return r;
    case OP_SUB:
      if (__builtin_sub_overflow(a.lo, b.hi, &r.lo) || __builtin_sub_overflow(a.hi, b.lo, &r.hi)) return r;
      r.ok = true;
      return r;
    case OP_MUL: {
      int64_t p[4];
      if (__builtin_mul_overflow(a.lo, b.lo, &p[0]) || __builtin_mul_overflow(a.lo, b.hi, &p[1]) ||
          __builtin_mul_overflow(a.hi, b.lo, &p[2]) || __builtin_mul_overflow(a.hi, b.hi, &p[3]))
        return r;
      r = (IrRange){true, p[0], p[0]};
      for (int i = 1; i < 4; i++) {
        if (p[i] < r.lo) r.lo = p[i];
        if (p[i] > r.hi) r.hi = p[i];
      }
      return r;
    }
    case OP_FLOORDIV:
      if (b.lo != b.hi || b.lo <= 0 || a.lo < 0) return r;
      return (IrRange){true, a.lo / b.lo, a.hi / b.lo};
    case OP_MOD:
      if (b.lo != b.hi || b.lo <= 0) return r;
      if (a.lo >= 0 && a.hi < b.lo) return a;
      return (IrRange){true, 0, b.lo - 1};
    default: return r;
    }
  default: return r;
  }
}
