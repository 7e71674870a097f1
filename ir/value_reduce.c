/* value_reduce.c -- the value analysis (see value.h): what an interval per
 * tensor cannot see about a pair of reductions.  The denominator of a
 * softmax, S = sum over d of exp(Y_d - M) with M = max over d of Y_d, is at
 * least 1 (or NaN): at the d where Y_d = M the term is exp(0) = 1, and a
 * float sum of terms >= 0 that includes 1 is >= 1 in any order.  Per term
 * the analysis knows only exp(Y_d - M) >= 0 (Y_d may be -inf: a masked
 * score), so without this the sum may be 0; the sign walk it replaces
 * (issue 39) took every exp to be > 0. */
#include "ir/value.h"

#include <string.h>

enum { MAX_LOOPS = 32 };

static bool is_self(const IrExpr *e, const IrStmt *s) {
  e = ir_expr_unparen(e);
  return e->kind == E_REF && e->u.ref->tensor && e->u.ref->tensor == s->lhs->tensor;
}

/* The top-level nest holding statement s, with s's enclosing loops. */
static bool find_in(const IrNest *n, const IrStmt *s, const IrLoop **loops, int depth, int *nloops) {
  if (depth + n->nloops > MAX_LOOPS) return false;
  for (int i = 0; i < n->nloops; i++) loops[depth + i] = n->loops[i];
  depth += n->nloops;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (find_in(n->items[i].u.nest, s, loops, depth, nloops)) return true;
    } else if (n->items[i].u.stmt == s) {
      *nloops = depth;
      return true;
    }
  }
  return false;
}

static int nest_of(const IrProgram *p, const IrStmt *s, const IrLoop **loops, int *nloops) {
  for (int k = 0; k < p->nnests; k++)
    if (find_in(p->nests[k], s, loops, 0, nloops)) return k;
  return -1;
}

typedef struct Reads {
  const IrTensor *t;
  bool found;
} Reads;

static void reads_cb(IrExpr *e, void *u) {
  Reads *r = u;
  if (e->kind == E_REF && e->u.ref->tensor == r->t) r->found = true;
}

static bool nest_reads(const IrNest *n, const IrTensor *t, const IrStmt *except) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (nest_reads(n->items[i].u.nest, t, except)) return true;
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    Reads r = {t, false};
    if (s != except) ir_walk_expr(s->rhs, reads_cb, &r);
    for (int j = 0; s != except && j < s->lhs->nsub && !r.found; j++) ir_walk_expr(s->lhs->sub[j], reads_cb, &r);
    if (r.found) return true;
  }
  return false;
}

/* The only statement writing t, or NULL. */
static const IrStmt *sole_writer(const IrProgram *p, const IrTensor *t, int *index) {
  const IrStmt *w = NULL;
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i]->lhs->tensor == t) {
      if (w) return NULL;
      w = p->stmts[i];
      *index = i;
    }
  return w;
}

/* Do the loops of nests a and b have the same names and extents (>= 1)? */
static bool same_loops(const IrProgram *p, const IrStmt *a, const IrStmt *b, int *ka, int *kb) {
  const IrLoop *la[MAX_LOOPS], *lb[MAX_LOOPS];
  int na = 0, nb = 0;
  *ka = nest_of(p, a, la, &na);
  *kb = nest_of(p, b, lb, &nb);
  if (*ka < 0 || *kb < 0 || na != nb) return false;
  for (int i = 0; i < na; i++)
    if (strcmp(la[i]->index, lb[i]->index) || la[i]->extent != lb[i]->extent || la[i]->extent < 1) return false;
  return true;
}

bool ir_value_sum_exp_over_max(const IrProgram *p, const IrStmt *s) {
  /* S = S + exp(Y - M), a sum reduction, S its only writer; or S = S + F
     with F[...] = exp(Y - M) over the same loops in an earlier nest, F's
     only writer, read as it wrote it (expression_splitting's form) */
  const IrTensor *S = s->lhs->tensor;
  int si = -1, mi = -1, xi = -1;
  if (!S || !ir_dtype_is_float(S->dtype) || s->init != INIT_REDUCE || s->redop != RED_ADD || s->nred < 1) return false;
  if (sole_writer(p, S, &si) != s) return false;
  const IrExpr *e = ir_expr_unparen(s->rhs);
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD || !is_self(e->u.bin.a, s)) return false;
  const IrExpr *x = ir_expr_unparen(e->u.bin.b);
  const IrStmt *xs = s; /* the statement computing the exp */
  xi = si;
  int ks, kx, km;
  if (x->kind == E_REF && x->u.ref->tensor && x->u.ref->tensor != S) {
    const IrStmt *w = sole_writer(p, x->u.ref->tensor, &xi);
    if (!w || xi >= si || w->init != INIT_NONE || w->nred != 0) return false;
    IrExpr wl = {.kind = E_REF};
    wl.u.ref = w->lhs;
    if (!ir_value_same_expr(&wl, x, true) || !same_loops(p, s, w, &ks, &kx) || kx >= ks) return false;
    xs = w;
    x = ir_expr_unparen(w->rhs);
  }
  if (x->kind != E_CALL || x->u.call.func != F_EXP || x->u.call.nargs != 1) return false;
  const IrExpr *d = ir_expr_unparen(x->u.call.args[0]);
  if (d->kind != E_BINARY || d->u.bin.op != OP_SUB) return false;
  const IrExpr *y = ir_expr_unparen(d->u.bin.a), *m = ir_expr_unparen(d->u.bin.b);
  if (y->kind != E_REF || m->kind != E_REF || !y->u.ref->tensor || !m->u.ref->tensor) return false;
  const IrTensor *Y = y->u.ref->tensor, *M = m->u.ref->tensor;
  if (M == Y || M == S || Y == S || !ir_dtype_is_float(M->dtype) || M->dtype != Y->dtype) return false;
  /* M = max(M, Y) over the same loops, M's only writer, in an earlier nest */
  const IrStmt *mx = sole_writer(p, M, &mi);
  if (!mx || mi >= xi || mx->init != INIT_REDUCE || mx->redop != RED_MAX || mx->nred != s->nred) return false;
  const IrExpr *mr = ir_expr_unparen(mx->rhs);
  if (mr->kind != E_CALL || mr->u.call.func != F_MAX || mr->u.call.nargs != 2 || !is_self(mr->u.call.args[0], mx) ||
      !ir_value_same_expr(mr->u.call.args[1], y, true))
    return false;
  /* M read in the exp as the max wrote it */
  IrExpr lhs = {.kind = E_REF};
  lhs.u.ref = mx->lhs;
  if (!ir_value_same_expr(&lhs, m, true)) return false;
  if (!same_loops(p, xs, mx, &kx, &km) || km >= kx) return false;
  if (xs == s) ks = kx; /* else the F branch compared s's loops with xs's */
  for (int i = 0; i < s->nred; i++)
    if (strcmp(s->red[i]->index, mx->red[i]->index)) return false;
  /* Y complete before the max's nest and unchanged until the exp */
  const IrLoop *lw[MAX_LOOPS];
  int nw = 0;
  for (int i = 0; i < xi; i++)
    if (p->stmts[i]->lhs->tensor == Y) {
      int kw = nest_of(p, p->stmts[i], lw, &nw);
      if (kw < 0 || kw >= km) return false;
    }
  for (int i = xi; i < p->nstmts; i++)
    if (p->stmts[i]->lhs->tensor == Y && nest_of(p, p->stmts[i], lw, &nw) <= kx) return false;
  /* S read in its nest by nothing else */
  return !nest_reads(p->nests[ks], S, s);
}
