/* range.c -- see range.h: the value analysis (ir/value.h) of index
 * arithmetic, where it proves exact int64 bounds with no overflow on the
 * way. */
#include "ir/range.h"

#include "ir/value.h"

IrRange ir_expr_range(const IrExpr *e) {
  IrValue v = ir_value_index(e);
  if (!ir_value_int_exact(v)) return (IrRange){false, 0, 0};
  return (IrRange){true, v.ilo, v.ihi};
}

bool ir_expr_in_bounds(const IrExpr *e, int64_t extent) {
  IrRange r = ir_expr_range(e);
  return r.ok && r.lo >= 0 && r.hi < extent;
}

bool ir_expr_divmod_nonneg_by_const(const IrExpr *e, int64_t hi) {
  IrRange a = ir_expr_range(e->u.bin.a), b = ir_expr_range(e->u.bin.b);
  return a.ok && b.ok && a.lo >= 0 && a.hi <= hi && b.lo == b.hi && b.lo > 0 && b.hi <= hi;
}
