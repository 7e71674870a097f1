/* group.c -- host: a serial reduction loop lowered in groups of its
 * iterations jammed into the innermost loop (cg_group_count, cg.h).
 *
 * A nest ... r, v (r serial, v innermost) whose statements each update one
 * element chosen by v and not by r (D[tx,a] += A[tx,c] * C[c,a] with c, a:
 * SGEMM in the i-k-j order) runs as
 *     for r0 by groups of G:  for v:  body(r0, v), body(r0+1, v), ...
 * then the remaining iterations of r as written.  The element of v then
 * stays in a register for G updates, where each update loaded and stored
 * it (the i-k-j loop is bound by those loads and stores).
 *
 * Legal because the body at (r, v) and at (r', v') with v != v' commute:
 * every reference to a tensor the nest writes has the left side's own
 * subscripts, one of which is v itself, so they touch different elements
 * of the written tensors and read none the other writes; the other tensors
 * are only read.  Each element still sees its updates in r's order, so the
 * result is the interpreter's bit for bit.  Every reference must be
 * provably in range (cg_ref_in_bounds): a guarded access records the first
 * out-of-range access, and the grouped order would record another. */
#include "config.h"

#include "codegen/cg.h"

#define GROUP 4         /* iterations of r per group */
#define GROUP_MIN_V 512 /* v a long row (shorter ones: slower, Sum_reduction_over_a_dimension's 256) */

static bool same_sub(const IrExpr *a, const IrExpr *b) {
  a = ir_expr_unparen(a);
  b = ir_expr_unparen(b);
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
  case E_INT: return a->u.ilit.value == b->u.ilit.value;
  case E_INDEX: return a->u.index.loop == b->u.index.loop;
  case E_UNARY: return a->u.unary.op == b->u.unary.op && same_sub(a->u.unary.a, b->u.unary.a);
  case E_BINARY:
    return a->u.bin.op == b->u.bin.op && same_sub(a->u.bin.a, b->u.bin.a) && same_sub(a->u.bin.b, b->u.bin.b);
  default: return false;
  }
}

static bool same_ref(const IrRef *a, const IrRef *b) {
  if (a->nsub != b->nsub) return false;
  for (int i = 0; i < a->nsub; i++)
    if (!same_sub(a->sub[i], b->sub[i])) return false;
  return true;
}

static bool mentions(const IrExpr *e, const IrLoop *l) {
  e = ir_expr_unparen(e);
  if (!e) return false;
  switch (e->kind) {
  case E_INDEX: return e->u.index.loop == l;
  case E_UNARY: return mentions(e->u.unary.a, l);
  case E_BINARY: return mentions(e->u.bin.a, l) || mentions(e->u.bin.b, l);
  case E_INT: case E_FLOAT: case E_INF: return false;
  default: return true; /* anything else: assume it does */
  }
}

/* The statement writing tensor t in nest n, or NULL; *twice when two do. */
static const IrStmt *writer(const IrNest *n, const IrTensor *t, bool *twice) {
  const IrStmt *w = NULL;
  for (int i = 0; i < n->nitems; i++) {
    const IrStmt *s = n->items[i].u.stmt;
    if (s->lhs->tensor != t) continue;
    if (w) *twice = true;
    w = s;
  }
  return w;
}

/* Every reference in e to a tensor the nest writes has its writer's left
 * side's subscripts. */
static bool refs_ok(const CgFn *f, const IrNest *n, const IrExpr *e) {
  e = ir_expr_unparen(e);
  if (!e) return true;
  switch (e->kind) {
  case E_INT: case E_FLOAT: case E_INF: case E_INDEX: return true;
  case E_REF: {
    bool twice = false;
    const IrStmt *w = writer(n, e->u.ref->tensor, &twice);
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (!refs_ok(f, n, e->u.ref->sub[i])) return false;
    return cg_ref_in_bounds(f, e->u.ref) && (!w || (!twice && same_ref(e->u.ref, w->lhs)));
  }
  case E_UNARY: return refs_ok(f, n, e->u.unary.a);
  case E_BINARY: return refs_ok(f, n, e->u.bin.a) && refs_ok(f, n, e->u.bin.b);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (!refs_ok(f, n, e->u.cmp.operand[i])) return false;
    return true;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!refs_ok(f, n, e->u.call.args[i])) return false;
    return true;
  default: return false;
  }
}

bool cg_commute_along(const CgFn *f, const IrNest *n, const IrLoop *r, const IrLoop *v) {
  for (int i = 0; i < n->nitems; i++) /* writer() reads every item as a statement */
    if (n->items[i].kind != ITEM_STMT) return false;
  for (int i = 0; i < n->nitems; i++) {
    const IrStmt *s = n->items[i].u.stmt;
    bool by_v = false, twice = false;
    for (int d = 0; d < s->lhs->nsub; d++) {
      if (mentions(s->lhs->sub[d], r) || !refs_ok(f, n, s->lhs->sub[d])) return false;
      const IrExpr *x = ir_expr_unparen(s->lhs->sub[d]);
      by_v |= x->kind == E_INDEX && x->u.index.loop == v;
    }
    writer(n, s->lhs->tensor, &twice);
    if (!by_v || twice || !cg_ref_in_bounds(f, s->lhs) || !refs_ok(f, n, s->rhs)) return false;
  }
  return true;
}

int cg_group_count(const CgFn *f, const IrNest *n, int li, int64_t first) {
  if (f->m->target != CG_TARGET_HOST || f->k->nred || f->group || li + 2 != n->nloops) return 0;
  const IrLoop *r = n->loops[li], *v = n->loops[li + 1];
  if (r->kind != LOOP_L || r == f->k->par || v->extent < GROUP_MIN_V || r->extent - first < 2 * GROUP) return 0;
  return cg_commute_along(f, n, r, v) ? GROUP : 0;
}
