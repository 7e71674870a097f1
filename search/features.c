/* features.c -- the learned cost model's features (see features.h). */
#include "search/features.h"

#include "codegen/costmodel.h"

#include <math.h>
#include <string.h>

static const char *const names[SEARCH_NFEATURES] = {
    "analytic_seconds", "flops", "l1_bytes", "parallelism", "cycles", "walk_cycles", "l2_bytes", "l3_bytes",
    "mem_bytes", "iters", "vec_share", "vec_width", "chain_share", "jam_share", "loads", "stores", "math_calls",
    "divisions", "selections", "intensity", "reuse", "nests", "stmts", "depth", "tensor_bytes", "pool_nests",
    "par_iters", "dom_share", "dom_depth", "dom_ext0", "dom_ext1", "dom_ext2", "dom_ext_outer", "dom_ext_li",
    "dom_unrolled", "dom_vec_width", "dom_chain", "dom_loads", "dom_stores", "dom_ops", "dom_in_zero",
    "dom_in_unit", "dom_in_short", "dom_in_long", "dom_in_scat", "dom_li_zero", "dom_li_unit", "dom_li_short",
    "dom_li_long", "dom_li_scat", "dom_elem", "dom_par_ext", "dom_l1_bytes", "dom_iters", "dom_math",
    "dom_red_share"};

const char *search_feature_name(int i) { return i >= 0 && i < SEARCH_NFEATURES ? names[i] : NULL; }

static double lg(double x) { return log2(1.0 + (x > 0 ? x : 0)); }

typedef struct Counts {
  double math, div, sel;
} Counts;

static void count_expr(const IrExpr *e, Counts *c) {
  if (!e) return;
  switch (e->kind) {
  case E_PAREN: count_expr(e->u.paren, c); return;
  case E_UNARY: count_expr(e->u.unary.a, c); return;
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    if (op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) c->div++;
    if (op == OP_POW) {
      const IrExpr *b = ir_expr_unparen(e->u.bin.b);
      bool square = b && ((b->kind == E_INT && b->u.ilit.value == 2) || (b->kind == E_FLOAT && b->u.flit.value == 2));
      if (!square) c->math++;
    }
    count_expr(e->u.bin.a, c);
    count_expr(e->u.bin.b, c);
    return;
  }
  case E_CMP:
    c->sel += e->u.cmp.n - 1;
    for (int i = 0; i < e->u.cmp.n; i++) count_expr(e->u.cmp.operand[i], c);
    return;
  case E_CALL:
    switch (e->u.call.func) {
    case F_EXP: case F_LOG: case F_SQRT: case F_ERF: c->math++; break;
    case F_ITE: c->sel++; break;
    case F_MAX: case F_MIN: c->sel += e->u.call.nargs > 1 ? e->u.call.nargs - 1 : 1; break;
    default: break;
    }
    for (int i = 0; i < e->u.call.nargs; i++) count_expr(e->u.call.args[i], c);
    return;
  default: return;
  }
}

typedef struct Acc {
  double cycles, walks, l2, l3, mem, iters, vec_iters, vec_w, chain_iters, jam_iters, loads, stores;
  double math, div, sel, reuse, par_iters, total_t, dom_t;
  int stmts, depth;
  bool have_dom;
  float dom[SEARCH_NFEATURES]; /* entries 28.. of the dominant statement */
} Acc;

static double stmt_time(const CostStmtTerms *t) {
  double a = t->cycles / 3e9, b = t->l2_bytes / 96e9, c = t->l3_bytes / 48e9, d = t->mem_bytes / 12e9;
  double m = a > b ? a : b;
  m = m > c ? m : c;
  return m > d ? m : d;
}

static double ext(const CostStmtTerms *t, int j) { return j >= 0 && j < t->depth ? (double)t->chain[j]->extent : 0; }

static void on_stmt(void *user, const CostStmtTerms *t) {
  Acc *a = user;
  Counts c = {0, 0, 0};
  count_expr(t->stmt->rhs, &c);
  a->stmts++;
  if (t->depth > a->depth) a->depth = t->depth;
  a->cycles += t->cycles;
  a->walks += t->walk_cycles;
  a->l2 += t->l2_bytes;
  a->l3 += t->l3_bytes;
  a->mem += t->mem_bytes;
  a->iters += t->iters;
  if (t->vector_width > 1) a->vec_iters += t->iters;
  a->vec_w += t->iters * t->vector_width;
  if (t->chain_latency > 0) a->chain_iters += t->iters;
  if (t->jammed) a->jam_iters += t->iters;
  a->loads += t->iters * t->loads;
  a->stores += t->iters * t->stores;
  a->math += t->iters * c.math;
  a->div += t->iters * c.div;
  a->sel += t->iters * c.sel;
  a->reuse += t->iters * t->nrefs * t->elem_bytes;
  if (t->par) a->par_iters += t->iters;
  double st = stmt_time(t);
  a->total_t += st;
  if (a->have_dom && st <= a->dom_t) return;
  a->have_dom = true;
  a->dom_t = st;
  float *f = a->dom;
  int d = t->depth;
  f[28] = (float)d;
  f[29] = (float)lg(ext(t, d - 1));
  f[30] = (float)lg(ext(t, d - 2));
  f[31] = (float)lg(ext(t, d - 3));
  f[32] = (float)lg(ext(t, 0));
  f[33] = (float)lg(ext(t, t->li));
  f[34] = (float)lg(t->unrolled);
  f[35] = (float)t->vector_width;
  f[36] = (float)t->chain_latency;
  f[37] = (float)t->loads;
  f[38] = (float)t->stores;
  f[39] = (float)t->ops;
  double nr = t->nrefs > 0 ? t->nrefs : 1;
  for (int k = 0; k < 2; k++) {
    f[40 + 5 * k] = (float)(t->refs_zero[k] / nr);
    f[41 + 5 * k] = (float)(t->refs_unit[k] / nr);
    f[42 + 5 * k] = (float)(t->refs_short[k] / nr);
    f[43 + 5 * k] = (float)(t->refs_long[k] / nr);
    f[44 + 5 * k] = (float)(t->refs_scattered[k] / nr);
  }
  f[50] = (float)t->elem_bytes;
  f[51] = (float)lg(t->par ? (double)t->par->extent : 0);
  f[52] = (float)lg(t->touch_bytes);
  f[53] = (float)lg(t->iters);
  f[54] = (float)lg(c.math);
  int nred = 0;
  for (int j = 0; j < d; j++)
    for (int r = 0; r < t->stmt->nred; r++) nred += t->stmt->red[r] == t->chain[j];
  f[55] = d > 0 ? (float)nred / (float)d : 0.0f;
}

bool search_features(LeirCtx *ctx, const IrProgram *p, float out[SEARCH_NFEATURES]) {
  memset(out, 0, sizeof(float) * SEARCH_NFEATURES);
  Acc a;
  memset(&a, 0, sizeof a);
  CostEstimate e;
  bool *par = arena_alloc(&ctx->arena, (size_t)p->nnests + 1);
  if (!cost_model_host_walk(ctx, p, &e, par, on_stmt, &a)) return false;
  double tb = 0;
  for (int i = 0; i < p->ntensors; i++) tb += (double)ir_tensor_numel(p->tensors[i]) * ir_dtype_size(p->tensors[i]->dtype);
  int pool = 0;
  for (int i = 0; i < p->nnests; i++) pool += par[i];
  double it = a.iters > 0 ? a.iters : 1;
  double l1 = e.bytes > 0 ? e.bytes : 1;
  memcpy(out, a.dom, sizeof(float) * SEARCH_NFEATURES);
  out[0] = (float)lg(e.seconds * 1e9);
  out[1] = (float)lg(e.flops);
  out[2] = (float)lg(e.bytes);
  out[3] = (float)e.parallelism;
  out[4] = (float)lg(a.cycles);
  out[5] = (float)lg(a.walks);
  out[6] = (float)lg(a.l2);
  out[7] = (float)lg(a.l3);
  out[8] = (float)lg(a.mem);
  out[9] = (float)lg(a.iters);
  out[10] = (float)(a.vec_iters / it);
  out[11] = (float)(a.vec_w / it);
  out[12] = (float)(a.chain_iters / it);
  out[13] = (float)(a.jam_iters / it);
  out[14] = (float)lg(a.loads);
  out[15] = (float)lg(a.stores);
  out[16] = (float)lg(a.math);
  out[17] = (float)lg(a.div);
  out[18] = (float)lg(a.sel);
  out[19] = (float)lg(e.flops / l1);
  out[20] = (float)lg(a.reuse / l1);
  out[21] = (float)p->nnests;
  out[22] = (float)a.stmts;
  out[23] = (float)a.depth;
  out[24] = (float)lg(tb);
  out[25] = (float)pool;
  out[26] = (float)lg(a.par_iters);
  out[27] = a.total_t > 0 ? (float)(a.dom_t / a.total_t) : 1.0f;
  return true;
}
