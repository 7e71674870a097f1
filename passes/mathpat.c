/* mathpat.c -- helpers of the non-symbolic math strategies (mathpat.h):
 * building and queries.  The value questions are in mathpat_values.c, the
 * softmax chain in mathpat_chain.c, the value splits in mathpat_split.c. */
#include "passes/mathpat.h"

#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ building */

IrExpr *mp_inf(LeirCtx *ctx, bool negative) {
  IrExpr *e = ir_expr_new(ctx, E_INF, (IrLoc){0, 0});
  return negative ? ir_unary(ctx, OP_NEG, e) : e;
}

IrExpr *mp_call1(LeirCtx *ctx, IrFunc f, IrExpr *a) { return ir_call(ctx, f, 1, &a); }

IrExpr *mp_call2(LeirCtx *ctx, IrFunc f, IrExpr *a, IrExpr *b) {
  IrExpr *v[2] = {a, b};
  return ir_call(ctx, f, 2, v);
}

IrExpr *mp_ite(LeirCtx *ctx, IrExpr *c, IrExpr *a, IrExpr *b) {
  IrExpr *v[3] = {c, a, b};
  return ir_call(ctx, F_ITE, 3, v);
}

IrExpr *mp_cmp(LeirCtx *ctx, IrExpr *a, IrOp op, IrExpr *b) {
  IrExpr *e = ir_expr_new(ctx, E_CMP, (IrLoc){0, 0});
  e->u.cmp.n = 2;
  e->u.cmp.operand = arena_alloc(&ctx->arena, 2 * sizeof(IrExpr *));
  e->u.cmp.op = arena_alloc(&ctx->arena, 2 * sizeof(IrOp));
  e->u.cmp.operand[0] = a;
  e->u.cmp.operand[1] = b;
  e->u.cmp.op[0] = op;
  return e;
}

static IrExpr *minus1(LeirCtx *ctx, const char *r) { return ir_binary(ctx, OP_SUB, ir_index(ctx, r), ir_int(ctx, 1)); }

IrExpr *mp_prev(LeirCtx *ctx, const IrRef *t, const char *r, IrExpr *ident) {
  IrRef *p = ir_ref_clone(ctx, t);
  rw_subst_sub_ref(ctx, p, r, minus1(ctx, r));
  return mp_ite(ctx, mp_cmp(ctx, minus1(ctx, r), OP_LT, ir_int(ctx, 0)), ident, ir_refexpr(ctx, p));
}

void mp_insert_item(LeirCtx *ctx, IrRef *r, int pos, const IrExpr *item) {
  IrExpr **v = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(r->nsub + 1));
  for (int i = 0, j = 0; i <= r->nsub; i++) v[i] = i == pos ? ir_expr_clone(ctx, item) : r->sub[j++];
  r->sub = v;
  r->nsub++;
}

typedef struct IdxMap {
  const char *const *from, *const *to;
  int n;
} IdxMap;

static void rename_idx(IrExpr *e, void *u) {
  const IdxMap *m = u;
  if (e->kind != E_INDEX) return;
  for (int i = 0; i < m->n; i++)
    if (!strcmp(e->u.index.name, m->from[i])) {
      e->u.index.name = m->to[i];
      e->u.index.loop = NULL;
      return;
    }
}

IrExpr *mp_rename_indices(LeirCtx *ctx, const IrExpr *e, const char *const *from, const char *const *to, int n) {
  IrExpr *c = ir_expr_clone(ctx, e);
  IdxMap m = {from, to, n};
  ir_walk_expr(c, rename_idx, &m); /* one visit per node: the renaming is simultaneous */
  return c;
}

/* ------------------------------------------------------------ queries */

bool mp_same_header(const IrNest *a, const IrNest *b) {
  if (a->nloops != b->nloops) return false;
  for (int i = 0; i < a->nloops; i++) {
    const IrLoop *x = a->loops[i], *y = b->loops[i];
    if (x->kind != y->kind || x->extent != y->extent || strcmp(x->index, y->index)) return false;
  }
  return true;
}

bool mp_has_nested(const IrNest *n) {
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind == ITEM_NEST) return true;
  return false;
}

static const char *mapped(const char *name, const char *const *from, const char *const *to, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(name, from[i])) return to[i];
  return name;
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

bool mp_ref_equal(const IrRef *a, const IrRef *b, const char *const *from, const char *const *to, int n) {
  if (strcmp(mapped(a->name, from, to, n), b->name) || a->dt_tag != b->dt_tag || a->sc_tag != b->sc_tag ||
      a->nsub != b->nsub)
    return false;
  for (int i = 0; i < a->nsub; i++)
    if (!mp_expr_equal(a->sub[i], b->sub[i], from, to, n)) return false;
  return true;
}

bool mp_expr_equal(const IrExpr *a, const IrExpr *b, const char *const *from, const char *const *to, int n) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case E_INT: return a->u.ilit.value == b->u.ilit.value && same_text(a->u.ilit.text, b->u.ilit.text);
  case E_FLOAT: return a->u.flit.value == b->u.flit.value && same_text(a->u.flit.text, b->u.flit.text);
  case E_INF: return true;
  case E_INDEX: return !strcmp(a->u.index.name, b->u.index.name);
  case E_REF: return mp_ref_equal(a->u.ref, b->u.ref, from, to, n);
  case E_UNARY: return a->u.unary.op == b->u.unary.op && mp_expr_equal(a->u.unary.a, b->u.unary.a, from, to, n);
  case E_BINARY:
    return a->u.bin.op == b->u.bin.op && mp_expr_equal(a->u.bin.a, b->u.bin.a, from, to, n) &&
           mp_expr_equal(a->u.bin.b, b->u.bin.b, from, to, n);
  case E_CMP:
    if (a->u.cmp.n != b->u.cmp.n) return false;
    for (int i = 0; i < a->u.cmp.n; i++) {
      if (i + 1 < a->u.cmp.n && a->u.cmp.op[i] != b->u.cmp.op[i]) return false;
      if (!mp_expr_equal(a->u.cmp.operand[i], b->u.cmp.operand[i], from, to, n)) return false;
    }
    return true;
  case E_CALL:
    if (a->u.call.func != b->u.call.func || a->u.call.alias != b->u.call.alias || a->u.call.nargs != b->u.call.nargs)
      return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!mp_expr_equal(a->u.call.args[i], b->u.call.args[i], from, to, n)) return false;
    return true;
  case E_PAREN: return mp_expr_equal(a->u.paren, b->u.paren, from, to, n);
  }
  return false;
}

bool mp_nest_equal(const IrNest *a, const IrNest *b, const char *const *from, const char *const *to, int n) {
  if (!mp_same_header(a, b) || a->nitems != b->nitems) return false;
  for (int i = 0; i < a->nitems; i++) {
    if (a->items[i].kind != b->items[i].kind) return false;
    if (a->items[i].kind == ITEM_NEST) {
      if (!mp_nest_equal(a->items[i].u.nest, b->items[i].u.nest, from, to, n)) return false;
      continue;
    }
    const IrStmt *x = a->items[i].u.stmt, *y = b->items[i].u.stmt;
    if (!mp_ref_equal(x->lhs, y->lhs, from, to, n) || !mp_expr_equal(x->rhs, y->rhs, from, to, n)) return false;
  }
  return true;
}

bool mp_ref_same(LeirCtx *ctx, const IrRef *a, const IrRef *b) {
  (void)ctx;
  return mp_ref_equal(a, b, NULL, NULL, 0);
}

bool mp_simple_subscript(const IrRef *r) {
  for (int i = 0; i < r->nsub; i++) {
    const IrExpr *e = r->sub[i];
    if (e->kind == E_INT) continue;
    if (e->kind != E_INDEX) return false;
    for (int j = 0; j < i; j++)
      if (r->sub[j]->kind == E_INDEX && !strcmp(r->sub[j]->u.index.name, e->u.index.name)) return false;
  }
  return true;
}

typedef struct RefCount {
  const char *name;
  int n;
} RefCount;

static void count_ref(IrExpr *e, void *u) {
  RefCount *c = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, c->name)) c->n++;
}

static void count_in_nest(const IrNest *n, RefCount *c, bool with_lhs) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      count_in_nest(n->items[i].u.nest, c, with_lhs);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    if (with_lhs && !strcmp(s->lhs->name, c->name)) c->n++;
    for (int k = 0; k < s->lhs->nsub; k++) ir_walk_expr(s->lhs->sub[k], count_ref, c);
    ir_walk_expr(s->rhs, count_ref, c);
  }
}

int mp_count_refs_expr(IrExpr *e, const char *name) {
  RefCount c = {name, 0};
  ir_walk_expr(e, count_ref, &c);
  return c.n;
}

int mp_count_refs(const IrNest *n, const char *name, bool with_lhs) {
  RefCount c = {name, 0};
  count_in_nest(n, &c, with_lhs);
  return c.n;
}

bool mp_writes(const IrNest *n, const char *name) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (mp_writes(n->items[i].u.nest, name)) return true;
    } else if (!strcmp(n->items[i].u.stmt->lhs->name, name)) {
      return true;
    }
  }
  return false;
}

int mp_first_use(const IrProgram *p, const char *name, int from, int to, bool with_lhs, const int *skip, int nskip) {
  for (int k = from < 0 ? 0 : from; k < to && k < p->nnests; k++) {
    bool skipped = false;
    for (int i = 0; i < nskip; i++) skipped |= skip[i] == k;
    if (!skipped && mp_count_refs(p->nests[k], name, with_lhs) > 0) return k;
  }
  return -1;
}

int mp_other_writer(const IrProgram *p, const char *name, int except) {
  for (int k = 0; k < p->nnests; k++)
    if (k != except && mp_writes(p->nests[k], name)) return k;
  return -1;
}

typedef struct RefFn {
  void (*fn)(IrRef *r, void *u);
  void *u;
} RefFn;

static void ref_fn(IrExpr *e, void *u) {
  RefFn *f = u;
  if (e->kind == E_REF) f->fn(e->u.ref, f->u);
}

void mp_for_refs(IrNest *n, void (*fn)(IrRef *r, void *u), void *u) {
  RefFn f = {fn, u};
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      mp_for_refs(n->items[i].u.nest, fn, u);
      continue;
    }
    IrStmt *s = n->items[i].u.stmt;
    IrExpr lhs = {.kind = E_REF};
    lhs.u.ref = s->lhs;
    ir_walk_expr(&lhs, ref_fn, &f);
    ir_walk_expr(s->rhs, ref_fn, &f);
  }
}
