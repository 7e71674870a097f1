/* dataflow.c -- program-level producer/consumer analysis (see dataflow.h). */
#include "passes/dataflow.h"

#include "passes/rewrite.h"
#include "ir/range.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ accesses */

static void collect_stmts(LeirCtx *ctx, const IrNest *n, PtrVec *stmts, bool *nested) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      *nested = true;
      collect_stmts(ctx, n->items[k].u.nest, stmts, nested);
    } else {
      ptrvec_push(&ctx->arena, stmts, n->items[k].u.stmt);
    }
  }
}

static void analyse_nest(LeirCtx *ctx, const IrNest *n, DfNest *d) {
  PtrVec stmts = {0}, acc = {0};
  collect_stmts(ctx, n, &stmts, &d->nested);
  d->nstmts = stmts.n;
  d->stmts = (IrStmt **)stmts.v;
  for (int k = 0; k < stmts.n; k++) {
    PtrVec refs = {0};
    rw_stmt_refs(ctx, stmts.v[k], &refs);
    for (int i = 0; i < refs.n; i++) {
      DepAccess *a = arena_alloc(&ctx->arena, sizeof *a);
      a->ref = refs.v[i];
      a->stmt = stmts.v[k];
      a->stmt_pos = k;
      a->write = i == 0;
      ptrvec_push(&ctx->arena, &acc, a);
    }
  }
  d->naccess = acc.n;
  d->access = arena_alloc(&ctx->arena, sizeof(DepAccess) * (size_t)(acc.n ? acc.n : 1));
  for (int i = 0; i < acc.n; i++) d->access[i] = *(DepAccess *)acc.v[i];
}

const DataFlow *df_analyse(PassCtx *pc, const IrProgram *p) {
  LeirCtx *ctx = pc->ctx;
  if (p == pc->prog && pc->dataflow) return pc->dataflow; /* a check per candidate: O(n) each, not kept n times */
  DataFlow *df = arena_alloc(&ctx->arena, sizeof *df);
  df->prog = p;
  df->nnests = p->nnests;
  df->nests = arena_alloc(&ctx->arena, sizeof(DfNest) * (size_t)(p->nnests ? p->nnests : 1));
  for (int k = 0; k < p->nnests; k++) analyse_nest(ctx, p->nests[k], &df->nests[k]);
  if (p == pc->prog) pc->dataflow = df;
  return df;
}

static bool mode_ok(const DepAccess *a, int mode) { return (a->write ? DF_WRITE : DF_READ) & mode; }

const DepAccess *df_find(const DataFlow *df, const char *name, int lo, int hi, int mode, int *nest) {
  if (lo < 0) lo = 0;
  if (hi > df->nnests) hi = df->nnests;
  for (int k = lo; k < hi; k++) {
    const DfNest *d = &df->nests[k];
    for (int i = 0; i < d->naccess; i++)
      if (mode_ok(&d->access[i], mode) && !strcmp(d->access[i].ref->name, name)) {
        if (nest) *nest = k;
        return &d->access[i];
      }
  }
  return NULL;
}

const DepAccess *df_shared(const DataFlow *df, int k, int mode, int j, int other) {
  const DfNest *d = &df->nests[k];
  for (int i = 0; i < d->naccess; i++)
    if (mode_ok(&d->access[i], mode) && df_find(df, d->access[i].ref->name, j, j + 1, other, NULL))
      return &d->access[i];
  return NULL;
}

bool df_nest_conflict(const DataFlow *df, int i, int j, DfConflict *out) {
  const DfNest *a = &df->nests[i], *b = &df->nests[j];
  const IrNest *na = df->prog->nests[i], *nb = df->prog->nests[j];
  for (int m = 0; m < b->naccess; m++) {
    const DepAccess *y = &b->access[m];
    /* j reads what i writes; j writes what i reads or writes */
    for (int k = 0; k < a->naccess; k++) {
      const DepAccess *x = &a->access[k];
      if ((!x->write && !y->write) || strcmp(x->ref->name, y->ref->name)) continue;
      if (df_refs_disjoint(na, x->ref, nb, y->ref)) continue;
      out->tensor = y->ref->name;
      out->first = x;
      out->second = y;
      return true;
    }
  }
  return false;
}

static const char *ref_text(PassCtx *pc, const IrRef *r) {
  SBuf b = {0};
  ir_print_ref(&b, r);
  const char *s = arena_strdup(&pc->ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

const char *df_describe_conflict(PassCtx *pc, const DfConflict *c, int i, int j) {
  return pass_reason(pc, "nest %d %s '%s' (%s), which nest %d %s", j, c->second->write ? "writes" : "reads", c->tensor,
                     ref_text(pc, c->second->ref), i, c->first->write ? "writes" : "reads");
}

/* ------------------------------------------------------------ merging */

/* Can a vector of the product set be lexicographically negative? */
static bool can_go_back(const Dep *d, int n) {
  for (int k = 0; k < n; k++) {
    if (d->dir[k] & DEP_GT) return true;
    if (!(d->dir[k] & DEP_EQ)) return false;
  }
  return false;
}

const Dep *df_check_groups(PassCtx *pc, const IrNest *merged, const int *group, const char **why) {
  *why = NULL;
  NestDeps *d = deps_analyse(pc, merged);
  if (d->unsupported) {
    *why = d->unsupported;
    return NULL;
  }
  for (int i = 0; i < d->ndeps; i++) {
    const Dep *dep = &d->deps[i];
    if (group[dep->x->stmt_pos] == group[dep->y->stmt_pos]) continue;
    if (can_go_back(dep, d->nloops)) return dep;
  }
  return NULL;
}

/* ------------------------------------------------------------ affine items */

typedef struct Term {
  int64_t a; /* |coefficient| */
  int64_t span; /* |coefficient| * (extent - 1) */
} Term;

static int cmp_term(const void *x, const void *y) {
  const Term *a = x, *b = y;
  return a->a < b->a ? -1 : a->a > b->a;
}

/* Marks in det[] the loops an affine item determines (none if it is not a
 * mixed radix over its loops of extent > 1). */
static void item_determines(const IrNest *n, const IrExpr *e, bool *det) {
  int nl = n->nloops;
  if (nl > DEP_MAX_LOOPS) return;
  int64_t c, coef[DEP_MAX_LOOPS];
  if (!dep_affine(e, n, &c, coef)) return;
  Term t[DEP_MAX_LOOPS];
  int nt = 0;
  for (int i = 0; i < nl; i++) {
    if (!coef[i] || n->loops[i]->extent == 1) continue;
    int64_t a = coef[i] < 0 ? -coef[i] : coef[i];
    if (__builtin_mul_overflow(a, n->loops[i]->extent - 1, &t[nt].span)) return;
    t[nt++].a = a;
  }
  qsort(t, (size_t)nt, sizeof t[0], cmp_term);
  int64_t below = 0; /* largest difference the smaller terms can make */
  for (int i = 0; i < nt; i++) {
    if (t[i].a <= below) return;
    if (__builtin_add_overflow(below, t[i].span, &below)) return;
  }
  for (int i = 0; i < nl; i++)
    if (coef[i] && n->loops[i]->extent > 1) det[i] = true;
}

bool df_write_injective(const IrNest *n, const IrRef *r) {
  if (n->nloops > DEP_MAX_LOOPS) return false;
  bool det[DEP_MAX_LOOPS] = {0};
  for (int d = 0; d < r->nsub; d++) item_determines(n, r->sub[d], det);
  for (int i = 0; i < n->nloops; i++)
    if (n->loops[i]->extent > 1 && !det[i]) return false;
  return true;
}

bool df_loop_separates(const IrNest *n, const IrRef *r, int pos) {
  if (n->nloops > DEP_MAX_LOOPS || pos < 0 || pos >= n->nloops) return false;
  if (n->loops[pos]->extent == 1) return true;
  bool det[DEP_MAX_LOOPS] = {0};
  for (int d = 0; d < r->nsub; d++) item_determines(n, r->sub[d], det);
  return det[pos];
}

bool df_refs_disjoint(const IrNest *na, const IrRef *x, const IrNest *nb, const IrRef *y) {
  (void)na, (void)nb; /* the items' indices are bound to their loops */
  if (x->nsub != y->nsub) return false;
  for (int d = 0; d < x->nsub; d++) {
    IrRange rx = ir_expr_range(x->sub[d]), ry = ir_expr_range(y->sub[d]); /* the value analysis */
    if (rx.ok && ry.ok && (rx.hi < ry.lo || ry.hi < rx.lo)) return true;
  }
  return false;
}

bool df_same_header(const IrNest *a, const IrNest *b) {
  if (a->nloops != b->nloops) return false;
  for (int i = 0; i < a->nloops; i++) {
    const IrLoop *x = a->loops[i], *y = b->loops[i];
    if (x->kind != y->kind || x->extent != y->extent || strcmp(x->index, y->index)) return false;
  }
  return true;
}
