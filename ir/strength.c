/* strength.c -- strength reduction that keeps every bit (strength.h). */
#include "ir/strength.h"

bool ir_pow_is_square(const IrExpr *e) {
  if (!e || e->kind != E_BINARY || e->u.bin.op != OP_POW) return false;
  if (e->type != DT_F32 && e->type != DT_F16 && e->type != DT_BF16) return false;
  const IrExpr *y = ir_expr_unparen(e->u.bin.b);
  return y && ((y->kind == E_INT && y->u.ilit.value == 2) || (y->kind == E_FLOAT && y->u.flit.value == 2.0));
}
