/* init.c -- the implicit-initialisation rule of reductions (SPEC §9.5).
 *
 * A statement whose right side mentions its left tensor T, and whose T was
 * not written by any earlier statement (text order), is a reduction when the
 * left subscript equals (as text) the subscript of the first right-side
 * occurrence of T and the right side has one of these token shapes:
 *   T_s + ...   T_s - ...   -> 0        T_s * ...           -> 1
 *   ... / T_s   ... // T_s   ... % T_s  -> 1 (REF quirk)
 *   max(T_s, ...) -> -inf               min(T_s, ...)       -> +inf
 * The identity is stored before an execution of the update in which every
 * reduction index (an index the statement mentions outside its left
 * subscript) is 0; with no reduction index, before every execution. */
#include "ir/sema.h"

#include <math.h>
#include <string.h>

typedef struct FirstOcc {
  const IrTensor *t;
  const IrRef *first;
} FirstOcc;

static void find_first(IrExpr *e, void *user) {
  FirstOcc *f = user;
  if (!f->first && e->kind == E_REF && e->u.ref->tensor == f->t) f->first = e->u.ref;
}

static bool is_ref_to(const IrExpr *e, const IrRef *want) { return e->kind == E_REF && e->u.ref == want; }

/* The token shape of the right side, given the first occurrence T_s. */
static IrReduceOp match_shape(const IrExpr *rhs, const IrRef *ts) {
  /* Begins with `T_s op`: walk the left spine of binary nodes; the leaf's
     parent operator is the token after T_s. */
  const IrExpr *e = rhs;
  IrOp parent = (IrOp)-1;
  while (e->kind == E_BINARY) {
    parent = e->u.bin.op;
    e = e->u.bin.a;
  }
  if (is_ref_to(e, ts)) {
    if (parent == OP_ADD) return RED_ADD;
    if (parent == OP_SUB) return RED_SUB;
    if (parent == OP_MUL) return RED_MUL;
  }
  if (e->kind == E_CALL && (e->u.call.func == F_MAX || e->u.call.func == F_MIN) &&
      is_ref_to(e->u.call.args[0], ts))
    return e->u.call.func == F_MAX ? RED_MAX : RED_MIN;
  /* Ends with `/ T_s`, `// T_s` or `% T_s`: the right spine. */
  e = rhs;
  parent = (IrOp)-1;
  while (e->kind == E_BINARY) {
    parent = e->u.bin.op;
    e = e->u.bin.b;
  }
  if (is_ref_to(e, ts) && (parent == OP_DIV || parent == OP_FLOORDIV || parent == OP_MOD))
    return RED_DIV;
  return RED_NONE;
}

static double identity_of(IrReduceOp op, IrDType t) {
  switch (op) {
  case RED_ADD: case RED_SUB: return 0;
  case RED_MUL: case RED_DIV: return 1;
  case RED_MAX:
    if (ir_dtype_is_float(t)) return -INFINITY;
    if (ir_dtype_is_unsigned_int(t) || t == DT_BOOL) return 0;
    return -ldexp(1, ir_dtype_size(t) * 8 - 1);
  case RED_MIN:
    if (ir_dtype_is_float(t)) return INFINITY;
    if (t == DT_BOOL) return 1;
    if (ir_dtype_is_unsigned_int(t)) return ldexp(1, ir_dtype_size(t) * 8) - 1;
    return ldexp(1, ir_dtype_size(t) * 8 - 1) - 1;
  default: return 0;
  }
}

/* The loops a statement mentions: at most the 256 of its loop chain (sema
 * refuses deeper chains), so the set never overflows. */
typedef struct IdxSet {
  IrLoop *v[256];
  int n;
} IdxSet;

static void add_idx(IrExpr *e, void *user) {
  IdxSet *s = user;
  if (e->kind != E_INDEX || !e->u.index.loop) return;
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == e->u.index.loop) return;
  if (s->n < 256) s->v[s->n++] = e->u.index.loop;
}

static void classify(LeirCtx *ctx, IrStmt *s, bool *written) {
  IrTensor *t = s->lhs->tensor;
  s->init = INIT_NONE;
  s->redop = RED_NONE;
  s->nred = 0;
  s->red = NULL;
  FirstOcc f = {t, NULL};
  ir_walk_expr(s->rhs, find_first, &f);
  s->self_ref = f.first != NULL;
  bool earlier = written[t->id];
  written[t->id] = true;
  if (!f.first || earlier || !ir_ref_same_subscript(s->lhs, f.first)) return;
  IrReduceOp op = match_shape(s->rhs, f.first);
  if (op == RED_NONE) return;
  s->init = INIT_REDUCE;
  s->redop = op;
  s->identity = identity_of(op, t->dtype);
  IdxSet lhs = {0}, all = {0};
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], add_idx, &lhs);
  ir_walk_expr(s->rhs, add_idx, &all);
  s->red = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(all.n ? all.n : 1));
  for (int i = 0; i < all.n; i++) {
    bool in_lhs = false;
    for (int k = 0; k < lhs.n; k++) in_lhs |= lhs.v[k] == all.v[i];
    if (!in_lhs) s->red[s->nred++] = all.v[i];
  }
}

void sema_classify_init(LeirCtx *ctx, IrProgram *p) {
  bool *written = arena_alloc(&ctx->arena, sizeof(bool) * (size_t)(p->ntensors ? p->ntensors : 1));
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i]->lhs->tensor) classify(ctx, p->stmts[i], written);
}
