/* range.h -- the range of an index expression over its loops' ranges
 * (the code generators' bounds and no-wrap decisions, the passes that must
 * not move a read out of bounds). */
#ifndef LEIR_IR_RANGE_H
#define LEIR_IR_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct IrRange {
  bool ok;
  int64_t lo, hi;
} IrRange;

/* The range of e (loop indices over their whole extents, no guard) as the
 * value analysis finds it (ir/value.h: ir_value_index): ok when it proves
 * int64 bounds with no int64 overflow anywhere in e; ok = false otherwise
 * (e.g. a tensor read outside a modulo, a division by what may be zero). */
IrRange ir_expr_range(const IrExpr *e);
/* Is e (a subscript item) proved in [0, extent) by ir_expr_range? */
bool ir_expr_in_bounds(const IrExpr *e, int64_t extent);
/* Is e, a // b or a % b, one with a in [0, hi] and b one constant in
 * (0, hi] by ir_expr_range?  Then floor and truncation agree and b is
 * neither 0 nor -1 (the code generators' plain unsigned division). */
bool ir_expr_divmod_nonneg_by_const(const IrExpr *e, int64_t hi);

#endif
