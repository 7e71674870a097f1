/* range.c -- see range.h: the value analysis (ir/value.h) of index
 * arithmetic, where it proves exact int64 bounds with no overflow on the
 * way. */
#include "ir/range.h"

#include "ir/value.h"

IrRange ir_expr_range(const IrExpr *e) {
  IrValue v = ir_value_index(e);
  if (v.bottom || !v.iok || v.inexact || v.may_nan || v.may_inf) return (IrRange){false, 0, 0};
  return (IrRange){true, v.ilo, v.ihi};
}
