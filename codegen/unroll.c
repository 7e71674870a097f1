/* unroll.c -- the code-size bound of unrolled loops (see unroll.h). */
#include "config.h"

#include "codegen/unroll.h"
#include "codegen/costmodel.h"

#define SIZE_CAP 1e18 /* sizes saturate here */

static double cap(double x) { return x < SIZE_CAP ? x : SIZE_CAP; }

static double refs_in(const IrExpr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case E_REF: return 1;
  case E_PAREN: return refs_in(e->u.paren);
  case E_UNARY: return refs_in(e->u.unary.a);
  case E_BINARY: return refs_in(e->u.bin.a) + refs_in(e->u.bin.b);
  case E_CMP: {
    double n = 0;
    for (int i = 0; i < e->u.cmp.n; i++) n += refs_in(e->u.cmp.operand[i]);
    return n;
  }
  case E_CALL: {
    double n = 0;
    for (int i = 0; i < e->u.call.nargs; i++) n += refs_in(e->u.call.args[i]);
    return n;
  }
  default: return 0;
  }
}

double cg_unroll_expr_size(const IrExpr *x, bool fc) { return cost_expr_ops(x, fc) + refs_in(x) + 1; }

static double stmt_size(const IrStmt *s, bool fc) { return cg_unroll_expr_size(s->rhs, fc); }

static double items_size(const IrNest *n, bool nvptx, bool fc) {
  double t = 0;
  for (int i = 0; i < n->nitems; i++)
    t += n->items[i].kind == ITEM_STMT ? stmt_size(n->items[i].u.stmt, fc)
                                        : cg_unroll_size(n->items[i].u.nest, 0, nvptx, fc);
  return cap(t);
}

bool cg_unroll_wanted(const IrLoop *l, bool nvptx) { return l->kind == LOOP_U || (l->kind == LOOP_V && nvptx); }

/* The copies of a loop to unroll whose body has size s. */
static int64_t copies_of(const IrLoop *l, double s) {
  if (s < 1) s = 1;
  if (l->extent <= CG_UNROLL_MAX_FULL && (double)l->extent * s <= CG_UNROLL_MAX_SIZE) return l->extent;
  double c = CG_UNROLL_MAX_SIZE / s;
  if (c > CG_UNROLL_PARTIAL) c = CG_UNROLL_PARTIAL;
  if (c > (double)l->extent) c = (double)l->extent;
  return c >= 2 ? (int64_t)c : 1;
}

/* The size of loop l around a body of size s. */
static double wrap(const IrLoop *l, double s, bool nvptx) {
  if (nvptx && l->kind == LOOP_B && l->hw != HW_NONE) return s;
  if (cg_unroll_wanted(l, nvptx)) {
    int64_t c = copies_of(l, s);
    if (c == l->extent) return cap((double)c * s);
    return cap(CG_UNROLL_LOOP_WEIGHT + (double)c * s);
  }
  return cap(CG_UNROLL_LOOP_WEIGHT + s);
}

double cg_unroll_size(const IrNest *n, int li, bool nvptx, bool fc) {
  if (li >= n->nloops) return items_size(n, nvptx, fc);
  return wrap(n->loops[li], cg_unroll_size(n, li + 1, nvptx, fc), nvptx);
}

int64_t cg_unroll_copies(const IrNest *n, int li, bool nvptx, bool fc) {
  const IrLoop *l = n->loops[li];
  if (!cg_unroll_wanted(l, nvptx)) return 0;
  return copies_of(l, cg_unroll_size(n, li + 1, nvptx, fc));
}

double cg_unroll_chain_size(IrLoop *const *loops, int nloops, int i, double body, bool nvptx) {
  double s = cap(body);
  for (int j = nloops - 1; j >= i; j--) s = wrap(loops[j], s, nvptx);
  return s;
}

int64_t cg_unroll_chain_copies(IrLoop *const *loops, int nloops, int i, double body, bool nvptx) {
  if (!cg_unroll_wanted(loops[i], nvptx)) return 0;
  return copies_of(loops[i], cg_unroll_chain_size(loops, nloops, i + 1, body, nvptx));
}
