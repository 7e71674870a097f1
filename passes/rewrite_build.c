/* rewrite_build.c -- tree rewriting shared by the passes (rewrite.h):
 * accumulation forms, factor pairs and divisors, subscript substitution,
 * copy nests with the tx fix-up (STRATEGIES §0.2), tensor renaming.  Moved
 * out of rewrite.c (issue 39) unchanged. */
#include "passes/rewrite.h"
#include "passes/graph.h"

#include "ir/range.h"
#include "ir/mathlib.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ accumulation */

typedef struct CountRefs {
  const char *name;
  int n;
} CountRefs;

static void count_refs(IrExpr *e, void *u) {
  CountRefs *c = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, c->name)) c->n++;
}

/* What the conversion of every step to the accumulator's dtype does that
 * makes the order of the updates part of the value, or NULL. */
static const char *accum_conversion(const IrStmt *s, IrReduceOp op) {
  IrDType acc = rw_ref_dtype(s->lhs), t = s->rhs->type;
  if (op == RED_MAX || op == RED_MIN)
    return ir_dtype_convert_monotone(t, acc) && ir_dtype_convert_monotone(acc, t) ? NULL : "does not keep the order of";
  if (op != RED_ADD && op != RED_MUL) return NULL;
  if (!ir_dtype_is_float(acc) && ir_dtype_is_float(t)) return "truncates or saturates";
  if (op == RED_ADD && acc == DT_BOOL && t != DT_BOOL) return "maps every nonzero sum to 1";
  return NULL;
}

bool rw_accum_converts(const IrStmt *s, IrReduceOp op) { return accum_conversion(s, op) != NULL; }

const char *rw_accum_not_associative(PassCtx *pc, const IrStmt *s, IrReduceOp op) {
  const char *what = accum_conversion(s, op);
  if (!what) return NULL;
  const char *acc = ir_dtype_name(rw_ref_dtype(s->lhs)), *t = ir_dtype_name(s->rhs->type);
  const char *val = op == RED_MAX ? "maximum" : op == RED_MIN ? "minimum" : op == RED_MUL ? "product" : "sum";
  const char *tail = op == RED_MAX || op == RED_MIN ? pass_reason(pc, "%s %s values", what, t) : what;
  return pass_reason(pc, "'%s' is %s but its update is computed in %s: every step converts the %s to %s, which %s, so "
                     "partial results do not recombine to the same value",
                     s->lhs->name, acc, t, val, acc, tail);
}

IrExpr *rw_accum_combine(LeirCtx *ctx, IrReduceOp op, IrExpr *a, IrExpr *b) {
  if (op == RED_MAX || op == RED_MIN) {
    IrExpr *args[2] = {a, b};
    return ir_call(ctx, op == RED_MAX ? F_MAX : F_MIN, 2, args);
  }
  return ir_binary(ctx, op == RED_MUL ? OP_MUL : OP_ADD, a, b);
}

IrReduceOp rw_accum_op(LeirCtx *ctx, const IrStmt *s, IrRef **self) {
  const IrExpr *e = ir_expr_unparen(s->rhs);
  IrReduceOp op = RED_NONE;
  const IrExpr *leaf = NULL;
  if (e->kind == E_CALL && (e->u.call.func == F_MAX || e->u.call.func == F_MIN) && e->u.call.nargs >= 2) {
    op = e->u.call.func == F_MAX ? RED_MAX : RED_MIN;
    leaf = ir_expr_unparen(e->u.call.args[0]);
  } else if (e->kind == E_BINARY) {
    const IrExpr *x = e;
    while (x->kind == E_BINARY) {
      IrReduceOp here = (x->u.bin.op == OP_ADD || x->u.bin.op == OP_SUB) ? RED_ADD
                        : x->u.bin.op == OP_MUL                         ? RED_MUL
                                                                        : RED_NONE;
      if (here == RED_NONE || (op != RED_NONE && here != op)) return RED_NONE;
      op = here;
      x = ir_expr_unparen(x->u.bin.a);
    }
    leaf = x;
  }
  if (op == RED_NONE || !leaf || leaf->kind != E_REF) return RED_NONE;
  const IrRef *r = leaf->u.ref;
  if (strcmp(r->name, s->lhs->name) || r->nsub != s->lhs->nsub) return RED_NONE;
  if (strcmp(rw_sub_text(ctx, r), rw_sub_text(ctx, s->lhs))) return RED_NONE;
  CountRefs c = {s->lhs->name, 0};
  ir_walk_expr(s->rhs, count_refs, &c);
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], count_refs, &c);
  if (c.n != 1) return RED_NONE;
  if (self) *self = (IrRef *)r;
  return op;
}

static void refs_walk(IrExpr *e, void *u) {
  PtrVec *v = ((void **)u)[0];
  LeirCtx *ctx = ((void **)u)[1];
  if (e->kind == E_REF) ptrvec_push(&ctx->arena, v, e->u.ref);
}

void rw_stmt_refs(LeirCtx *ctx, IrStmt *s, PtrVec *out) {
  void *u[2] = {out, ctx};
  ptrvec_push(&ctx->arena, out, s->lhs);
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], refs_walk, u);
  ir_walk_expr(s->rhs, refs_walk, u);
}

/* ------------------------------------------------------------ numbers */

int rw_factor_pairs(int64_t n, int64_t *f, int max) {
  int k = 0;
  for (int64_t d = 2; d <= n / d && k < max; d++)
    if (n % d == 0) f[k++] = d;
  return k;
}

int rw_divisors(int64_t n, int64_t *f, int max) {
  int k = 0;
  for (int64_t d = 2; d < n && k < max; d++) {
    if (d > n / 2) break;
    if (n % d == 0) f[k++] = d;
  }
  return k;
}

const char *rw_hw_limits(PassCtx *pc, const IrNest *n) { return rw_hw_limits_loops(pc, n->loops, n->nloops); }

const char *rw_hw_limits_loops(PassCtx *pc, IrLoop *const *loops, int nloops) {
  int64_t threads = 1;
  const IrLoop *by_axis[HW_BZ + 1] = {0};
  for (int i = 0; i < nloops; i++) {
    const IrLoop *l = loops[i];
    if (l->kind != LOOP_B) continue;
    IrHwAxis a = ir_hw_axis_of_index(l->index);
    if (a == HW_NONE) continue;
    if (by_axis[a])
      return pass_reason(pc, "loops '%s' and '%s' would both be bound to %s", by_axis[a]->index, l->index,
                         ir_hw_axis_name(a));
    by_axis[a] = l;
    if (a <= HW_TZ) {
      threads *= l->extent;
      if (threads > 1024)
        return pass_reason(pc, "the nest would need more than 1024 threads per block");
      if (a == HW_TZ && l->extent > 64)
        return pass_reason(pc, "threadIdx.z extent %lld exceeds 64", (long long)l->extent);
    } else if (a == HW_BX ? l->extent > 2147483647LL : l->extent > 65535) {
      return pass_reason(pc, "%s extent %lld exceeds %s", ir_hw_axis_name(a), (long long)l->extent,
                         a == HW_BX ? "2^31-1" : "65535");
    }
  }
  return NULL;
}

/* ------------------------------------------------------------ substitution */

static bool is_compound(const IrExpr *e) {
  e = ir_expr_unparen(e);
  return e->kind == E_BINARY || e->kind == E_UNARY || e->kind == E_CMP;
}

static void subst(LeirCtx *ctx, IrExpr **slot, const char *name, const IrExpr *repl, bool in_sub, bool whole) {
  IrExpr *e = *slot;
  if (!e) return;
  switch (e->kind) {
  case E_INDEX:
    if (in_sub && !strcmp(e->u.index.name, name)) {
      IrExpr *c = ir_expr_clone(ctx, repl);
      *slot = (!whole && is_compound(c)) ? ir_paren(ctx, c) : c;
    }
    break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) subst(ctx, &e->u.ref->sub[i], name, repl, true, true);
    break;
  case E_UNARY: subst(ctx, &e->u.unary.a, name, repl, in_sub, false); break;
  case E_BINARY:
    subst(ctx, &e->u.bin.a, name, repl, in_sub, false);
    subst(ctx, &e->u.bin.b, name, repl, in_sub, false);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) subst(ctx, &e->u.cmp.operand[i], name, repl, in_sub, false);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) subst(ctx, &e->u.call.args[i], name, repl, in_sub, false);
    break;
  case E_PAREN: subst(ctx, &e->u.paren, name, repl, in_sub, false); break;
  default: break;
  }
}

void rw_subst_sub(LeirCtx *ctx, IrExpr **e, const char *name, const IrExpr *repl) {
  subst(ctx, e, name, repl, false, false);
}

void rw_subst_sub_ref(LeirCtx *ctx, IrRef *r, const char *name, const IrExpr *repl) {
  for (int i = 0; i < r->nsub; i++) subst(ctx, &r->sub[i], name, repl, true, true);
}

void rw_subst_sub_stmt(LeirCtx *ctx, IrStmt *s, const char *name, const IrExpr *repl) {
  rw_subst_sub_ref(ctx, s->lhs, name, repl);
  rw_subst_sub(ctx, &s->rhs, name, repl);
}

typedef struct Rename {
  LeirCtx *ctx;
  const char *from, *to;
} Rename;

static void rename_walk(IrExpr *e, void *u) {
  Rename *r = u;
  if (e->kind == E_INDEX && !strcmp(e->u.index.name, r->from)) e->u.index.name = arena_strdup(&r->ctx->arena, r->to);
}

void rw_rename_index_stmt(LeirCtx *ctx, IrStmt *s, const char *from, const char *to) {
  Rename r = {ctx, from, to};
  for (int i = 0; i < s->lhs->nsub; i++) ir_walk_expr(s->lhs->sub[i], rename_walk, &r);
  ir_walk_expr(s->rhs, rename_walk, &r);
}

void rw_for_stmts(IrNest *n, void (*f)(IrStmt *s, void *u), void *u) {
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_STMT)
      f(n->items[k].u.stmt, u);
    else
      rw_for_stmts(n->items[k].u.nest, f, u);
  }
}

IrExpr *rw_affine(LeirCtx *ctx, const char *outer, int64_t m, const char *inner) {
  return ir_binary(ctx, OP_ADD, ir_binary(ctx, OP_MUL, ir_index(ctx, outer), ir_int(ctx, m)), ir_index(ctx, inner));
}

void rw_replace_item(LeirCtx *ctx, IrRef *r, const char *item_text, const IrExpr *repl) {
  for (int i = 0; i < r->nsub; i++) {
    if (!strcmp(rw_text(ctx, r->sub[i]), item_text)) {
      r->sub[i] = ir_expr_clone(ctx, repl);
      continue;
    }
    /* nested reads inside the item */
    IrExpr *stack[64];
    int n = 0;
    stack[n++] = r->sub[i];
    while (n) {
      IrExpr *e = stack[--n];
      if (e->kind == E_REF) rw_replace_item(ctx, e->u.ref, item_text, repl);
      else if (e->kind == E_BINARY && n < 62) {
        stack[n++] = e->u.bin.a;
        stack[n++] = e->u.bin.b;
      } else if (e->kind == E_UNARY && n < 63) stack[n++] = e->u.unary.a;
      else if (e->kind == E_PAREN && n < 63) stack[n++] = e->u.paren;
    }
  }
}

/* ------------------------------------------------------------ copy nests */

static void names_walk(const IrExpr *e, const char **names, int *n, int max) {
  if (!e) return;
  switch (e->kind) {
  case E_INDEX:
    for (int i = 0; i < *n; i++)
      if (!strcmp(names[i], e->u.index.name)) return;
    if (*n < max) names[(*n)++] = e->u.index.name;
    break;
  case E_REF:
    for (int i = 0; i < e->u.ref->nsub; i++) names_walk(e->u.ref->sub[i], names, n, max);
    break;
  case E_UNARY: names_walk(e->u.unary.a, names, n, max); break;
  case E_BINARY:
    names_walk(e->u.bin.a, names, n, max);
    names_walk(e->u.bin.b, names, n, max);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) names_walk(e->u.cmp.operand[i], names, n, max);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) names_walk(e->u.call.args[i], names, n, max);
    break;
  case E_PAREN: names_walk(e->u.paren, names, n, max); break;
  default: break;
  }
}

int rw_names_in_ref(const IrRef *r, const char **names, int max) {
  int n = 0;
  for (int i = 0; i < r->nsub; i++) names_walk(r->sub[i], names, &n, max);
  return n;
}

int rw_names_in_expr(const IrExpr *e, const char **names, int max) {
  int n = 0;
  names_walk(e, names, &n, max);
  return n;
}

IrLoop *rw_loop(LeirCtx *ctx, IrLoopKind k, int64_t n, const char *index) {
  return ir_loop_new(ctx, k, n, index);
}

void rw_set_extent(IrLoop *l, int64_t n) {
  l->extent = n;
  l->extent_text = NULL;
}

IrLoop *rw_loop_clone(LeirCtx *ctx, const IrLoop *l) {
  IrLoop *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *l;
  return c;
}

void rw_insert_loop(LeirCtx *ctx, IrNest *n, int pos, IrLoop *l) {
  IrLoop **v = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 1));
  for (int i = 0, j = 0; i <= n->nloops; i++) v[i] = i == pos ? l : n->loops[j++];
  n->loops = v;
  n->nloops++;
}

void rw_remove_loop(IrNest *n, int pos) {
  for (int i = pos; i + 1 < n->nloops; i++) n->loops[i] = n->loops[i + 1];
  n->nloops--;
}

bool rw_fix_tx_loops(PassCtx *pc, IrLoop **loops, int k, const char **renamed, const char **why) {
  *renamed = NULL;
  for (int i = 0; i < k; i++)
    if (!strcmp(loops[i]->index, "tx") || (loops[i]->kind == LOOP_B && ir_hw_axis_of_index(loops[i]->index) == HW_TX))
      return true;
  for (int i = 0; i < k; i++)
    if (loops[i]->extent < 1024) {
      *renamed = loops[i]->index;
      loops[i]->index = "tx";
      loops[i]->kind = LOOP_B;
      loops[i]->hw = HW_TX;
      return true;
    }
  *why = k ? pass_reason(pc, "tx fix-up: no loop of the copy nest has an extent below 1024")
           : pass_reason(pc, "tx fix-up: the copy nest has no loop");
  return false;
}

IrNest *rw_copy_loops(PassCtx *pc, const IrNest *n, const char **names, int nnames, bool in_given_order,
                      const char **renamed, const char **why) {
  LeirCtx *ctx = pc->ctx;
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops + 1));
  int k = 0;
  if (in_given_order) {
    for (int j = 0; j < nnames; j++) {
      int pos = rw_loop_pos(n, names[j]);
      if (pos >= 0) loops[k++] = rw_loop_clone(ctx, n->loops[pos]);
    }
  } else {
    for (int i = 0; i < n->nloops; i++)
      for (int j = 0; j < nnames; j++)
        if (!strcmp(n->loops[i]->index, names[j])) {
          loops[k++] = rw_loop_clone(ctx, n->loops[i]);
          break;
        }
  }
  if (!rw_fix_tx_loops(pc, loops, k, renamed, why)) return NULL;
  const char *bad = rw_hw_limits_loops(pc, loops, k);
  if (bad) {
    *why = pass_reason(pc, "the copy nest breaks a hardware limit: %s", bad);
    return NULL;
  }
  IrNest *m = ir_nest_new(ctx, k, loops);
  m->loc = (IrLoc){0, 0};
  return m;
}

void rw_fix_tx_stmt(LeirCtx *ctx, IrStmt *s, const char *renamed) {
  if (renamed) rw_rename_index_stmt(ctx, s, renamed, "tx");
}

void rw_insert_nest(LeirCtx *ctx, IrProgram *q, int k, IrNest *m) {
  IrNest **v = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)(q->nnests + 1));
  for (int i = 0, j = 0; i <= q->nnests; i++) {
    if (i == k) v[i] = m;
    else v[i] = q->nests[j++];
  }
  q->nests = v;
  q->nnests++;
}

IrNest *rw_nest1(LeirCtx *ctx, IrLoop **loops, int nloops, IrStmt *s) {
  IrNest *m = ir_nest_new(ctx, nloops, loops);
  ir_nest_add_item(ctx, m, ITEM_STMT, s);
  return m;
}

IrRef *rw_ref(LeirCtx *ctx, const char *name, IrDType dt, IrScope sc, IrExpr **items, int n) {
  IrExpr **c = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) c[i] = ir_expr_clone(ctx, items[i]);
  return ir_ref_new(ctx, name, dt, sc, n, c);
}

typedef struct TRename {
  const char *from, *to;
  IrDType dt;
  IrScope sc;
} TRename;

static void trename_ref(IrRef *r, const TRename *t) {
  if (!strcmp(r->name, t->from)) {
    r->name = t->to;
    r->dt_tag = t->dt;
    r->sc_tag = t->sc;
    r->tensor = NULL;
  }
}

static void trename_walk(IrExpr *e, void *u) {
  if (e->kind == E_REF) trename_ref(e->u.ref, u);
}

void rw_rename_tensor_stmt(IrStmt *s, const char *from, const char *to, IrDType dt, IrScope sc) {
  TRename t = {from, to, dt, sc};
  IrExpr tmp = {.kind = E_REF};
  tmp.u.ref = s->lhs;
  ir_walk_expr(&tmp, trename_walk, &t);
  ir_walk_expr(s->rhs, trename_walk, &t);
}

int rw_parse_int_list(const char *s, int64_t *v, int max) {
  int n = 0;
  const char *p = s;
  if (!*p) return -1;
  for (;;) {
    if (*p < '0' || *p > '9') return -1;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (n >= max || end - p > 9) return -1;
    v[n++] = x;
    p = end;
    if (!*p) return n;
    if (*p != '.') return -1;
    p++;
  }
}

IrRef *rw_first_read(IrExpr *e, const char *name) {
  if (!e) return NULL;
  switch (e->kind) {
  case E_REF: return !strcmp(e->u.ref->name, name) ? e->u.ref : NULL;
  case E_UNARY: return rw_first_read(e->u.unary.a, name);
  case E_BINARY: {
    IrRef *r = rw_first_read(e->u.bin.a, name);
    return r ? r : rw_first_read(e->u.bin.b, name);
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) {
      IrRef *r = rw_first_read(e->u.cmp.operand[i], name);
      if (r) return r;
    }
    return NULL;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      IrRef *r = rw_first_read(e->u.call.args[i], name);
      if (r) return r;
    }
    return NULL;
  case E_PAREN: return rw_first_read(e->u.paren, name);
  default: return NULL;
  }
}
