/* contract.c -- floating-point contraction (contract.h). */
#include "ir/contract.h"

static const IrExpr *product(const IrExpr *e, IrDType t) {
  e = ir_expr_unparen(e);
  return e && e->kind == E_BINARY && e->u.bin.op == OP_MUL && e->type == t ? e : NULL;
}

bool ir_contract_fma(const IrExpr *e, bool on, IrFma *out) {
  if (!on || !e || e->kind != E_BINARY || (e->u.bin.op != OP_ADD && e->u.bin.op != OP_SUB)) return false;
  if (e->type != DT_F32 && e->type != DT_F64) return false;
  bool sub = e->u.bin.op == OP_SUB;
  const IrExpr *m = product(e->u.bin.a, e->type);
  IrFma f = {0};
  if (m) {
    f = (IrFma){m->u.bin.a, m->u.bin.b, e->u.bin.b, false, sub};
  } else if ((m = product(e->u.bin.b, e->type))) {
    f = (IrFma){m->u.bin.a, m->u.bin.b, e->u.bin.a, sub, false};
  } else {
    return false;
  }
  if (out) *out = f;
  return true;
}
