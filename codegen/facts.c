/* facts.c -- guard facts of the code generators (facts.h). */
#include "config.h"

#include "codegen/facts.h"
#include "ir/range.h"

static bool wide_int(IrDType t) { return t == DT_I32 || t == DT_I64 || t == DT_U32 || t == DT_U64; }

static bool trusted_link(const IrExpr *p, IrOp op, const IrExpr *q) {
  p = ir_expr_unparen(p), q = ir_expr_unparen(q);
  if (p->kind == E_INT && q->kind == E_INDEX) { /* k OP i */
    const IrExpr *t = p;
    p = q, q = t;
  }
  if (p->kind != E_INDEX || q->kind != E_INT || !wide_int(p->type) || !wide_int(q->type)) return false;
  int64_t k = q->u.ilit.value;
  return k >= 0 && k < ((int64_t)1 << 31) && op != OP_NE;
}

void cg_cond_facts(IrValueGuards *g, const IrExpr *c) {
  c = ir_expr_unparen(c);
  if (c->kind == E_BINARY && c->u.bin.op == OP_AND && c->type == DT_BOOL && c->u.bin.a->type == DT_BOOL &&
      c->u.bin.b->type == DT_BOOL) {
    cg_cond_facts(g, c->u.bin.a);
    cg_cond_facts(g, c->u.bin.b);
  } else if (c->kind == E_CMP) {
    for (int i = 0; i + 1 < c->u.cmp.n; i++)
      if (!trusted_link(c->u.cmp.operand[i], c->u.cmp.op[i], c->u.cmp.operand[i + 1])) return;
    IrValueEnv env = {.st = DT_NONE, .guards = g};
    ir_value_guard(&env, c, true);
  }
}

/* The value of an index expression (exact arithmetic: the analysis' index
 * arithmetic, ir_expr_range's) under the facts g. */
static IrValue fact_value(const IrValueGuards *g, const IrExpr *e) {
  IrValueGuards copy = *g;
  IrValueEnv env = {.st = DT_NONE, .guards = &copy};
  return ir_value_expr(&env, e);
}

bool cg_facts_in_bounds(const IrValueGuards *g, const IrExpr *item, int64_t extent) {
  if (ir_expr_in_bounds(item, extent)) return true;
  if (!g || !g->n) return false;
  IrValue v = fact_value(g, item);
  return ir_value_int_exact(v) && v.ilo >= 0 && v.ihi < extent;
}

int cg_facts_fold_cmp(const IrValueGuards *g, const IrExpr *e) {
  if (!g || !g->n) return -1;
  for (int i = 0; i < e->u.cmp.n; i++) {
    const IrExpr *o = ir_expr_unparen(e->u.cmp.operand[i]);
    if ((o->kind != E_INDEX && o->kind != E_INT) || !wide_int(o->type)) return -1;
  }
  IrValue v = fact_value(g, e);
  if (v.bottom || !v.iok || v.inexact || v.ilo != v.ihi) return -1;
  return v.ilo != 0;
}
