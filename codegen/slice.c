/* slice.c -- host: consecutive kernels run slice by slice (issue 41;
 * cg_slice_chains, slice.h; host.c runs the chains).
 *
 *     B^{16}_{tx=0}L^{32}_{a=0}L^{130}_{c=0}L^{130}_{d=0}[D_{tx,a,c,d}=if_then_else(..., A_{tx,a,c-1,d-1}, -inf);];
 *     B^{16}_{tx=0}L^{32}_{a=0}...[C_{tx,a,c,d}=max(C_{tx,a,c,d},D_{tx,a,c*2+f*3,d*2+g*3});];
 * (Max_Pooling_2D) runs as
 *     for each slice s of tx (CG_SLICE_BYTES of data or more):
 *       kernel 0 on tx in s;  kernel 1 on tx in s
 * instead of kernel 0 on all of tx, then kernel 1: the 2.2 MB of D that
 * kernel 1 reads for one tx were written just before (in the cache),
 * where D's 34.6 MB came back from memory.  Every store is kept, and each
 * kernel runs its own iterations in its own order: the code is the same,
 * only the ranges of the parallel loop that host.c passes its entry change
 * (the ranges run_parallel already passes).
 *
 * Kernels k, k+1, ..., k+m (consecutive top-level nests) chain when
 *   - each has a parallel loop (plan.c: the outermost loop, race-free), all
 *     of the same extent;
 *   - every tensor X that one of them writes has one position pos(X) where
 *     every reference to X in the chain, read or written, has that
 *     kernel's parallel loop index bare: iterations v and w != v of the
 *     parallel loops (of any two kernels of the chain) then touch disjoint
 *     elements of the written tensors, and the other tensors are only read.
 *     So the slices commute, and within a slice the kernels run in program
 *     order: every element sees the operations of the program's order, the
 *     interpreter's bits (and any split of the slices over threads gives
 *     them too);
 *   - at most one of them has a reference not provably in range
 *     (ir_expr_range): only that kernel can record an out-of-bounds access,
 *     in its own order, so the error reported (the last one recorded) is
 *     the one of the program's order.  (The kernels after an erring kernel
 *     still run their slices; the run fails all the same.)
 *   - each k+i (i > 0) reads a tensor an earlier kernel of the chain
 *     writes (else nothing is in the cache for it);
 *   - each runs at most CG_SLICE_REUSE statement iterations per element
 *     the chain writes: a kernel that reuses its data more (abs_abs's
 *     batched matrix product, 128 per element) has it in the cache anyway,
 *     and ran 15% slower sliced (one thread, two runs of five);
 * and the tensors the chain writes, per iteration of the parallel loop
 * (bytes / extent), make CG_SLICE_MIN slices or more of CG_SLICE_BYTES
 * (the slices then of equal iteration counts, the last one shorter):
 * data that fit in the L2 cache gain nothing, and pay the calls
 * (Average_Pooling_1D's 0.5 MB: 13.4 us sliced in 2, 12.7 us not).
 */
#include "config.h"

#include "codegen/slice.h"

#include <stdlib.h>

static bool bare(const IrExpr *e, const IrLoop *l) {
  e = e ? ir_expr_unparen(e) : NULL;
  return e && e->kind == E_INDEX && e->u.index.loop == l;
}

/* ------------------------------------------------------------ references */

typedef struct Walk {
  const IrLoop *par; /* the kernel's parallel loop */
  int k;             /* the kernel */
  int *pos;          /* per tensor id: the position of the parallel index in its writes, -1 none yet */
  int *wk;           /* per tensor id: the first kernel of the chain that writes it, -1 none */
  bool collect;      /* first pass: the written tensors and their positions */
  bool ok;
  bool in_range;      /* every reference provably in range */
  bool reads_written; /* reads a tensor an earlier kernel of the chain writes */
} Walk;

static int par_pos(const IrRef *r, const IrLoop *par) {
  for (int d = 0; d < r->nsub; d++)
    if (bare(r->sub[d], par)) return d;
  return -1;
}

static void walk_expr(Walk *w, const IrExpr *e);

static void walk_ref(Walk *w, const IrRef *r, bool write) {
  const IrTensor *t = r->tensor;
  for (int d = 0; d < r->nsub; d++) {
    walk_expr(w, r->sub[d]);
    IrRange g = ir_expr_range(r->sub[d]);
    if (d >= t->rank || !g.ok || g.lo < 0 || g.hi >= t->shape[d]) w->in_range = false;
  }
  if (w->collect) {
    if (!write) return;
    int d = par_pos(r, w->par);
    if (d < 0 || (w->pos[t->id] >= 0 && w->pos[t->id] != d)) w->ok = false;
    else w->pos[t->id] = d;
    if (w->wk[t->id] < 0) w->wk[t->id] = w->k;
    return;
  }
  if (w->wk[t->id] < 0) return; /* only read in the chain */
  if (!write && w->wk[t->id] < w->k) w->reads_written = true;
  int d = w->pos[t->id];
  if (d < 0 || d >= r->nsub || !bare(r->sub[d], w->par)) w->ok = false;
}

static void walk_expr(Walk *w, const IrExpr *e) {
  if (!e) return;
  switch (e->kind) {
  case E_PAREN: walk_expr(w, e->u.paren); break;
  case E_REF: walk_ref(w, e->u.ref, false); break;
  case E_UNARY: walk_expr(w, e->u.unary.a); break;
  case E_BINARY:
    walk_expr(w, e->u.bin.a);
    walk_expr(w, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) walk_expr(w, e->u.cmp.operand[i]);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(w, e->u.call.args[i]);
    break;
  default: break;
  }
}

static void walk_nest(Walk *w, const IrNest *n) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      walk_nest(w, n->items[i].u.nest);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    walk_expr(w, s->rhs);
    walk_ref(w, s->lhs, true);
  }
}

/* ------------------------------------------------------------ chains */

/* Do kernels a..b (inclusive) chain?  *bytes: the bytes of the tensors
 * they write per iteration of the parallel loop. */
static bool chains(const IrProgram *p, const CgPlan *plan, int a, int b, int64_t *bytes) {
  size_t n = (size_t)p->ntensors + 1;
  int *pos = malloc(n * sizeof *pos), *wk = malloc(n * sizeof *wk);
  bool ok = pos && wk;
  for (size_t i = 0; ok && i < n; i++) pos[i] = wk[i] = -1;
  for (int k = a; ok && k <= b; k++) { /* the written tensors and their positions */
    Walk w = {plan->k[k].par, k, pos, wk, true, true, true, false};
    walk_nest(&w, plan->k[k].nest);
    ok = w.ok;
  }
  int unproven = 0;
  for (int k = a; ok && k <= b; k++) { /* every reference to them */
    Walk w = {plan->k[k].par, k, pos, wk, false, true, true, false};
    walk_nest(&w, plan->k[k].nest);
    ok = w.ok && (k == a || w.reads_written);
    unproven += !w.in_range;
  }
  ok = ok && unproven <= 1;
  int64_t sum = 0, elems = 0;
  for (int i = 0; ok && i < p->ntensors; i++)
    if (wk[i] >= 0) {
      sum += ir_tensor_numel(p->tensors[i]) * ir_dtype_size(p->tensors[i]->dtype);
      elems += ir_tensor_numel(p->tensors[i]);
    }
  for (int k = a; ok && k <= b; k++) ok = cg_nest_work(plan->k[k].nest) / CG_SLICE_REUSE <= elems;
  *bytes = ok ? sum / plan->k[a].par->extent : 0;
  free(pos);
  free(wk);
  return ok;
}

void cg_slice_chains(const IrProgram *p, const CgPlan *plan, int *len, int64_t *chunk) {
  int nk = plan->nkernels;
  for (int k = 0; k < nk; k++) len[k] = 1, chunk[k] = 0;
  for (int k = 0; k < nk;) {
    const IrLoop *par = plan->k[k].par;
    int e = k;
    int64_t bytes = 0;
    while (par && e + 1 < nk && plan->k[e + 1].par && plan->k[e + 1].par->extent == par->extent &&
           !plan->k[e + 1].nest->continuation) {
      int64_t b;
      if (!chains(p, plan, k, e + 1, &b)) break;
      e++;
      bytes = b;
    }
    int64_t c = bytes > 0 ? CG_SLICE_BYTES / bytes : 0;
    if (c < 1) c = 1;
    if (e > k && c * CG_SLICE_MIN <= par->extent) {
      int64_t ns = (par->extent + c - 1) / c; /* slices of equal size */
      c = (par->extent + ns - 1) / ns;
      len[k] = e - k + 1;
      chunk[k] = c;
      for (int j = k + 1; j <= e; j++) len[j] = 0;
      k = e + 1;
    } else {
      k++;
    }
  }
}
