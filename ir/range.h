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

/* The range of e when simple (integer literals, loop indices over their
 * whole extents, + - * and floor division/modulo by a positive constant,
 * without int64 overflow); ok = false otherwise. */
IrRange ir_expr_range(const IrExpr *e);

#endif
