/* exec_once.c -- rule 1 of the verification runs' rewrites (exec.h):
 * a loop whose index a statement never mentions runs once for it.
 *
 * The corpus's copy nests (tensor_concat_to_fuse_operators,
 * tensor_split_to_decouple_operators) keep the loops of the nest they came
 * from: `L^{64}_{a=0}...[H_{tx,d,c}=C_{tx,d,c};]` writes every element of H
 * 64 times with the same value, and `L^{256}_{d=0}[E_{tx,a,c}=J_{tx,a,c};]`
 * 256 times: a billion stores where four million do.
 *
 * THE RULE.  A top-level nest N whose items are statements S1..Sk (no
 * nested nest, no continuation) is rewritten when
 *   (a) no statement of N reads (right side, or any subscript) a tensor
 *       that a statement of N writes -- so no Si accumulates (X = X + ...)
 *       and none has a §9.5 initialisation (Si->init == INIT_NONE);
 *   (b) no two statements of N write the same tensor;
 *   (c) every statement is safe (cg_exec_stmt_safe: every reference proved
 *       in bounds, no integer division or remainder), so no execution of N
 *       stops the run and none can be told from another by an error;
 *   (d) some statement does not mention some loop of N.
 * N becomes k nests N1..Nk in order, Ni holding Si alone under copies of
 * N's loops in N's order, each loop that Si does not mention with extent 1
 * (loop extents are >= 1 by ir_verify, so "extent 1" always means "once";
 * LEIR has no side effect but stores and no random source in a statement).
 *
 * PROOF that every tensor ends with the original's bytes.
 * Fission: by (a), a statement's executions read only tensors that N does
 * not write, whose values are the same throughout N and before it; so the
 * value Si stores at an iteration depends on the iteration alone, not on
 * what the other statements did.  By (b) each tensor is written by one
 * statement, so its final bytes are decided by that statement's own
 * sequence of stores in iteration order, which fission keeps (Ni runs the
 * iterations of N in the same lexicographic order).  Nothing else changes:
 * tensors N does not write keep their values.
 * Once: let Si mention the loops U and not the loops V of N.  The value Si
 * stores, and the element it stores it to, depend on the values of U's
 * indices only (they are all Si mentions, and by (a) what it reads does
 * not change within N).  The iterations of N that store to one element e
 * are a set P_e x (all values of V), interleaved by position in N's loop
 * order; the last of them in lexicographic order takes, at every position
 * of V, the largest value, and at the positions of U the lexicographically
 * largest element of P_e; so the last store to e carries the value of
 * that largest element of P_e, which is also the last store to e when V's
 * loops run once (over U alone, in the same order).  Elements no iteration
 * stores to keep their values either way.  By (c) the run completes in
 * both programs, and an iteration's execution has no effect but its store.
 * Statement ids, the left side's dtype and the right side are unchanged,
 * so the code computing each stored value is the same: the same bits.
 * §9.5: a statement with INIT_NONE has no reduction index, and setting an
 * unmentioned loop to extent 1 changes nothing it mentions. */
#include "config.h"
#include "codegen/exec.h"
#include "ir/range.h"

#include <string.h>

IrExpr *cg_exec_clone(LeirCtx *ctx, const IrExpr *e, const CgExecSubst *s) {
  if (!e) return NULL;
  if (s && e->kind == E_REF && s->ref && e->u.ref == s->ref) return s->with;
  if (s && e->kind == E_INDEX) {
    for (int i = 0; i < s->n; i++) {
      if (e->u.index.loop != s->from[i]) continue;
      if (s->to_loop && s->to_loop[i]) {
        IrExpr *c = arena_alloc(&ctx->arena, sizeof *c);
        *c = *e;
        c->u.index.loop = s->to_loop[i];
        c->u.index.name = s->to_loop[i]->index;
        return c;
      }
      return cg_exec_clone(ctx, s->to_expr[i], NULL);
    }
  }
  IrExpr *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *e;
  switch (e->kind) {
  case E_REF: {
    IrRef *r = arena_alloc(&ctx->arena, sizeof *r);
    *r = *e->u.ref;
    r->sub = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(r->nsub + 1));
    for (int d = 0; d < r->nsub; d++) r->sub[d] = cg_exec_clone(ctx, e->u.ref->sub[d], s);
    c->u.ref = r;
    break;
  }
  case E_UNARY: c->u.unary.a = cg_exec_clone(ctx, e->u.unary.a, s); break;
  case E_BINARY:
    c->u.bin.a = cg_exec_clone(ctx, e->u.bin.a, s);
    c->u.bin.b = cg_exec_clone(ctx, e->u.bin.b, s);
    break;
  case E_CMP:
    c->u.cmp.operand = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)e->u.cmp.n);
    for (int i = 0; i < e->u.cmp.n; i++) c->u.cmp.operand[i] = cg_exec_clone(ctx, e->u.cmp.operand[i], s);
    break; /* the operators are never changed: shared */
  case E_CALL:
    c->u.call.args = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(e->u.call.nargs + 1));
    for (int i = 0; i < e->u.call.nargs; i++) c->u.call.args[i] = cg_exec_clone(ctx, e->u.call.args[i], s);
    break;
  case E_PAREN: c->u.paren = cg_exec_clone(ctx, e->u.paren, s); break;
  default: break;
  }
  return c;
}

typedef struct Safe {
  bool ok;
} Safe;

static void safe_expr(IrExpr *e, void *user) {
  Safe *s = user;
  if (e->kind == E_BINARY && (e->u.bin.op == OP_DIV || e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_MOD) &&
      !ir_dtype_is_float(e->type))
    s->ok = false;
  if (e->kind != E_REF) return;
  const IrRef *r = e->u.ref;
  if (!r->tensor || r->nsub != r->tensor->rank) {
    s->ok = false;
    return;
  }
  for (int d = 0; d < r->nsub; d++)
    if (!ir_expr_in_bounds(r->sub[d], r->tensor->shape[d])) s->ok = false;
}

bool cg_exec_stmt_safe(const IrStmt *st) {
  Safe s = {true};
  IrExpr lhs = {.kind = E_REF};
  lhs.u.ref = st->lhs;
  ir_walk_expr(&lhs, safe_expr, &s);
  ir_walk_expr(st->rhs, safe_expr, &s);
  return s.ok;
}

typedef struct Mention {
  const IrLoop *l;
  bool hit;
} Mention;

static void mention_expr(IrExpr *e, void *user) {
  Mention *m = user;
  if (e->kind == E_INDEX && e->u.index.loop == m->l) m->hit = true;
}

bool cg_exec_mentions(const IrExpr *e, const IrLoop *l) {
  Mention m = {l, false};
  ir_walk_expr((IrExpr *)e, mention_expr, &m);
  return m.hit;
}

static bool stmt_mentions(const IrStmt *s, const IrLoop *l) {
  for (int d = 0; d < s->lhs->nsub; d++)
    if (cg_exec_mentions(s->lhs->sub[d], l)) return true;
  return cg_exec_mentions(s->rhs, l);
}

/* Reads (right side, every subscript) of tensors written by the nest. */
typedef struct Reads {
  const IrNest *n;
  bool hit;
} Reads;

static void reads_written(IrExpr *e, void *user) {
  Reads *r = user;
  if (e->kind != E_REF) return;
  for (int i = 0; i < r->n->nitems; i++)
    if (r->n->items[i].u.stmt->lhs->tensor == e->u.ref->tensor) r->hit = true;
}

/* Does rule 1 apply to n, and is there a loop to set once? */
static bool nest_ok(const IrNest *n) {
  if (n->continuation || n->nloops < 1) return false;
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind != ITEM_STMT) return false;
  Reads r = {n, false};
  bool some = false;
  for (int i = 0; i < n->nitems; i++) {
    const IrStmt *s = n->items[i].u.stmt;
    if (s->init != INIT_NONE || s->self_ref || s->nred || !cg_exec_stmt_safe(s)) return false;
    for (int j = 0; j < i; j++)
      if (n->items[j].u.stmt->lhs->tensor == s->lhs->tensor) return false; /* (b) */
    for (int d = 0; d < s->lhs->nsub; d++) ir_walk_expr(s->lhs->sub[d], reads_written, &r);
    ir_walk_expr(s->rhs, reads_written, &r);
    if (r.hit) return false; /* (a) */
    for (int l = 0; l < n->nloops && !some; l++) some = !stmt_mentions(s, n->loops[l]);
  }
  return some;
}

/* Si alone under copies of n's loops, those it does not mention once. */
static IrNest *once_nest(LeirCtx *ctx, const IrNest *n, const IrStmt *s, IrStmt **stmts, int *nloops) {
  IrLoop **to = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)n->nloops);
  for (int l = 0; l < n->nloops; l++) {
    IrLoop *c = arena_alloc(&ctx->arena, sizeof *c);
    *c = *n->loops[l];
    if (!stmt_mentions(s, n->loops[l]) && c->extent != 1) {
      c->extent = 1;
      c->extent_text = NULL;
      ++*nloops;
    }
    to[l] = c;
  }
  CgExecSubst sub = {n->nloops, n->loops, to, NULL, NULL, NULL};
  IrStmt *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *s;
  IrExpr lhs = {.kind = E_REF, .type = s->lhs->tensor->dtype};
  lhs.u.ref = s->lhs;
  c->lhs = cg_exec_clone(ctx, &lhs, &sub)->u.ref;
  c->rhs = cg_exec_clone(ctx, s->rhs, &sub);
  stmts[s->id] = c;
  IrNest *m = arena_alloc(&ctx->arena, sizeof *m);
  *m = *n;
  m->loops = to;
  m->nitems = 1;
  m->items = arena_alloc(&ctx->arena, sizeof(IrItem));
  m->items[0].kind = ITEM_STMT;
  m->items[0].u.stmt = c;
  return m;
}

const IrProgram *cg_exec_once(LeirCtx *ctx, const IrProgram *p, int *nloops) {
  int dummy = 0, *cnt = nloops ? nloops : &dummy;
  *cnt = 0;
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i]->id != i) return p; /* the lowering's lookups by id */
  bool *ok = arena_alloc(&ctx->arena, sizeof(bool) * (size_t)(p->nnests + 1)), any = false;
  int extra = 0;
  for (int i = 0; i < p->nnests; i++)
    if ((ok[i] = nest_ok(p->nests[i]))) {
      any = true;
      extra += p->nests[i]->nitems - 1;
    }
  if (!any) return p;
  IrStmt **stmts = arena_alloc(&ctx->arena, sizeof(IrStmt *) * (size_t)(p->nstmts + 1));
  memcpy(stmts, p->stmts, sizeof(IrStmt *) * (size_t)p->nstmts);
  IrNest **nests = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)(p->nnests + extra + 1));
  int nn = 0;
  for (int i = 0; i < p->nnests; i++) {
    const IrNest *n = p->nests[i];
    if (!ok[i]) {
      nests[nn++] = p->nests[i];
      continue;
    }
    for (int k = 0; k < n->nitems; k++) nests[nn++] = once_nest(ctx, n, n->items[k].u.stmt, stmts, cnt);
  }
  IrProgram *q = arena_alloc(&ctx->arena, sizeof *q);
  *q = *p;
  q->nnests = nn;
  q->nests = nests;
  q->stmts = stmts;
  return q;
}
