/* exec_inline.c -- rule 2 of the verification runs' rewrites (exec.h):
 * a temporary that one nest computes element by element and one later
 * statement reads once is computed where it is read.
 *
 * The corpus's expression_splitting steps store a product in a temporary
 * before a reduction reads it: `L_d L_c L_a B_tx [H_{d,c,a,tx} =
 * A_{tx,a,d} * C_{tx,d,c};]` (4 GiB) then `B_tx L_a L_c L_d [E_{tx,a,c} =
 * E_{tx,a,c} + H_{d,c,a,tx};]` (a 16 MiB stride per step of d): 50 s on the
 * host JIT where the program before, `E = E + A*C`, takes half a second.
 *
 * THE RULE.  T is rewritten when
 *   (a) T is an intermediate (ROLE_TMP), not live (the caller does not read
 *       its bytes after the run), of dtype f32 or f64;
 *   (b) exactly one statement P writes T, the only item of a top-level
 *       nest Np (no continuation), with INIT_NONE and no read of T:
 *       P is T_{i1..ik} = e where i1..ik are distinct indices bound to the
 *       k loops of Np and loop ij's extent is T's dimension j (so P stores
 *       every element of T exactly once), e mentions every ij, e's type
 *       is T's dtype, and P is safe (cg_exec_stmt_safe: every read in
 *       bounds, no integer division);
 *   (c) T is read exactly once in the program (right sides and every
 *       subscript, left sides' included), by a statement C that is a direct
 *       item of a top-level nest Nc after Np, not inside a subscript, as
 *       T_{s1..sk} with each sj an index (of a loop enclosing C) proved in
 *       [0, dim j);
 *   (d) C's left side has T's dtype;
 *   (e) no statement of the nests after Np up to Nc, Nc included, writes a
 *       tensor that e reads;
 *   (f) C runs at most as often as P (a cost rule, not one of legality:
 *       no element of T computed more often than it was).
 * Then C's read of T becomes (e[ij := sj]), Np is dropped, and T is no
 * longer written or read (dropped[T]).
 *
 * PROOF that the live tensors end with the original's bytes.
 * By (b) at the end of Np, element t of T holds e evaluated at ij = tj,
 * converted to T's dtype (no conversion: e's type is T's) -- every element,
 * since P's loops cover T's shape; e cannot stop the run (safe).  By (e)
 * the tensors e reads hold the same values from the end of Np to every
 * execution of C (no statement between writes them, and no statement of
 * Nc does, so no earlier iteration of Nc changes them either), and T does
 * not change between (P is its only writer).  So at each execution of C
 * the read T_{s} (in bounds, (c)) gives e evaluated at ij = sj, its value
 * rounded once to T's dtype by e's own last operation.  e[ij := sj]
 * evaluated in C gives the same value: its operations are the same
 * sequence on the same operands in the same dtype (C's arithmetic is in
 * its left dtype, T's by (d); every subexpression keeps the type sema gave
 * it; f32 arithmetic on the host is done in f32: LLVM's fmul/fadd float
 * have no excess precision on x86-64 or AArch64), and the host code
 * generator emits no contraction of a*b+c into an fma unless
 * ctx->fp_contract (ir_contract_fma, codegen/lower.c), under which this
 * rule does nothing: a product stored to T and added later is rounded
 * twice, an fma once.  No fast-math flag either (ctx->unsafe_math: does
 * nothing).  C mentions the same indices as before (e mentions every ij,
 * replaced by the sj it read T with), so its §9.5 reduction indices, kept
 * as sema found them, are still the indices it mentions.  Dropping Np
 * changes only T (its only written tensor), which no statement reads any
 * more and the caller does not read (a); each rewrite keeps the others'
 * conditions for the remaining tensors, so the rule runs to a fixpoint. */
#include "config.h"
#include "codegen/exec.h"
#include "ir/range.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One walk over the program: T's writers and readers. */
typedef struct Find {
  const IrTensor *t;
  int nwrite, nread;
  const IrStmt *w, *c; /* the last writer, the last reader statement */
  int wnest, cnest;    /* their top-level nests */
  bool w_direct, c_direct;
  const IrRef *ref;   /* the read */
  bool ref_in_sub;    /* within a subscript */
  int64_t c_iters;    /* executions of the reader */
  const IrStmt *cur;
  int nest;
  bool direct;
  int64_t iters;
} Find;

static void find_expr(Find *f, const IrExpr *e, bool in_sub);

static void find_ref(Find *f, const IrRef *r, bool in_sub) {
  for (int d = 0; d < r->nsub; d++) find_expr(f, r->sub[d], true);
}

static void find_expr(Find *f, const IrExpr *e, bool in_sub) {
  if (!e) return;
  switch (e->kind) {
  case E_REF:
    if (e->u.ref->tensor == f->t) {
      f->nread++;
      f->c = f->cur;
      f->cnest = f->nest;
      f->c_direct = f->direct;
      f->ref = e->u.ref;
      f->ref_in_sub = in_sub;
      f->c_iters = f->iters;
    }
    find_ref(f, e->u.ref, in_sub);
    break;
  case E_UNARY: find_expr(f, e->u.unary.a, in_sub); break;
  case E_BINARY:
    find_expr(f, e->u.bin.a, in_sub);
    find_expr(f, e->u.bin.b, in_sub);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) find_expr(f, e->u.cmp.operand[i], in_sub);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) find_expr(f, e->u.call.args[i], in_sub);
    break;
  case E_PAREN: find_expr(f, e->u.paren, in_sub); break;
  default: break;
  }
}

static void find_nest(Find *f, const IrNest *n, bool top) {
  int64_t saved = f->iters;
  for (int l = 0; l < n->nloops; l++) f->iters = ir_mul_sat_i64(f->iters, n->loops[l]->extent);
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      bool d = f->direct;
      f->direct = false;
      find_nest(f, n->items[i].u.nest, false);
      f->direct = d;
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    f->cur = s;
    f->direct = top;
    if (s->lhs->tensor == f->t) {
      f->nwrite++;
      f->w = s;
      f->wnest = f->nest;
      f->w_direct = top && n->nitems == 1 && !n->continuation;
    }
    find_ref(f, s->lhs, false);
    find_expr(f, s->rhs, false);
  }
  f->iters = saved;
}

/* Tensors that e reads. */
typedef struct Readset {
  unsigned char *r;
} Readset;

static void read_mark(IrExpr *e, void *user) {
  Readset *rs = user;
  if (e->kind == E_REF && e->u.ref->tensor) rs->r[e->u.ref->tensor->id] = 1;
}

static bool nest_writes(const IrNest *n, const unsigned char *r) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (nest_writes(n->items[i].u.nest, r)) return true;
    } else if (r[n->items[i].u.stmt->lhs->tensor->id]) {
      return true;
    }
  }
  return false;
}

/* The producer's loop bound to subscript d of its left side, or NULL. */
static IrLoop *lhs_loop(const IrStmt *p, int d) {
  const IrExpr *x = ir_expr_unparen(p->lhs->sub[d]);
  return x->kind == E_INDEX ? x->u.index.loop : NULL;
}

/* Conditions (b)-(f) for T in p; on success the producer's nest is
 * f->wnest and the reader f->c, in nest f->cnest. */
static bool inline_ok(const IrProgram *p, const IrTensor *t, Find *f, unsigned char *reads) {
  memset(f, 0, sizeof *f);
  f->t = t;
  for (int i = 0; i < p->nnests; i++) {
    f->nest = i;
    f->iters = 1;
    find_nest(f, p->nests[i], true);
  }
  if (f->nwrite != 1 || f->nread != 1 || !f->w_direct || !f->c_direct || f->ref_in_sub || f->c == f->w ||
      f->cnest <= f->wnest)
    return false;
  const IrStmt *w = f->w;
  const IrNest *np = p->nests[f->wnest];
  if (w->init != INIT_NONE || w->self_ref || w->nred || t->rank != np->nloops || w->lhs->nsub != t->rank ||
      w->rhs->type != t->dtype || !cg_exec_stmt_safe(w))
    return false;
  for (int d = 0; d < t->rank; d++) {
    IrLoop *l = lhs_loop(w, d);
    if (!l || l->extent != t->shape[d] || !cg_exec_mentions(w->rhs, l)) return false;
    bool in_nest = false;
    for (int k = 0; k < np->nloops; k++) in_nest |= np->loops[k] == l;
    for (int k = 0; k < d; k++) in_nest &= lhs_loop(w, k) != l;
    if (!in_nest) return false;
  }
  const IrRef *r = f->ref;
  if (r->nsub != t->rank || f->c->lhs->tensor->dtype != t->dtype) return false;
  for (int d = 0; d < r->nsub; d++)
    if (ir_expr_unparen(r->sub[d])->kind != E_INDEX || !ir_expr_in_bounds(r->sub[d], t->shape[d])) return false;
  int64_t piters = 1;
  for (int k = 0; k < np->nloops; k++) piters = ir_mul_sat_i64(piters, np->loops[k]->extent);
  if (f->c_iters > piters) return false;
  memset(reads, 0, (size_t)p->ntensors + 1);
  Readset rs = {reads};
  ir_walk_expr(w->rhs, read_mark, &rs);
  for (int i = f->wnest + 1; i <= f->cnest; i++)
    if (nest_writes(p->nests[i], reads)) return false;
  return true;
}

/* p with T's read in f->c replaced and its producer's nest dropped. */
static IrProgram *inline_one(LeirCtx *ctx, const IrProgram *p, const Find *f) {
  const IrStmt *w = f->w, *c = f->c;
  int k = f->t->rank;
  IrLoop **from = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(k + 1));
  const IrExpr **to = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(k + 1));
  for (int d = 0; d < k; d++) {
    from[d] = lhs_loop(w, d);
    to[d] = ir_expr_unparen(f->ref->sub[d]);
  }
  CgExecSubst sw = {k, from, NULL, to, NULL, NULL};
  IrExpr *par = arena_alloc(&ctx->arena, sizeof *par);
  par->kind = E_PAREN;
  par->loc = f->ref->loc;
  par->type = w->rhs->type;
  par->u.paren = cg_exec_clone(ctx, w->rhs, &sw);
  CgExecSubst sc = {0, NULL, NULL, NULL, f->ref, par};
  IrStmt *nc = arena_alloc(&ctx->arena, sizeof *nc);
  *nc = *c;
  nc->rhs = cg_exec_clone(ctx, c->rhs, &sc);
  const IrNest *oc = p->nests[f->cnest];
  IrNest *ncn = arena_alloc(&ctx->arena, sizeof *ncn);
  *ncn = *oc;
  ncn->items = arena_alloc(&ctx->arena, sizeof(IrItem) * (size_t)oc->nitems);
  for (int i = 0; i < oc->nitems; i++) {
    ncn->items[i] = oc->items[i];
    if (oc->items[i].kind == ITEM_STMT && oc->items[i].u.stmt == c) ncn->items[i].u.stmt = nc;
  }
  IrProgram *q = arena_alloc(&ctx->arena, sizeof *q);
  *q = *p;
  q->stmts = arena_alloc(&ctx->arena, sizeof(IrStmt *) * (size_t)(p->nstmts + 1));
  memcpy(q->stmts, p->stmts, sizeof(IrStmt *) * (size_t)p->nstmts);
  q->stmts[c->id] = nc;
  q->nests = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)p->nnests);
  q->nnests = 0;
  for (int i = 0; i < p->nnests; i++) {
    if (i == f->wnest) continue;
    q->nests[q->nnests++] = i == f->cnest ? ncn : p->nests[i];
  }
  return q;
}

const IrProgram *cg_exec_inline(LeirCtx *ctx, const IrProgram *p, const unsigned char *live, unsigned char *dropped,
                                int *ninlined) {
  int dummy = 0, *cnt = ninlined ? ninlined : &dummy;
  *cnt = 0;
  if (ctx->fp_contract || ctx->unsafe_math) return p;
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i]->id != i) return p; /* the lowering's lookups by id */
  unsigned char *reads = calloc((size_t)p->ntensors + 1, 1);
  if (!reads) return p;
  const IrProgram *q = p;
  for (bool again = true; again;) {
    again = false;
    for (int i = 0; i < q->ntensors; i++) {
      const IrTensor *t = q->tensors[i];
      if (t->role != ROLE_TMP || (live && live[t->id]) || (t->dtype != DT_F32 && t->dtype != DT_F64)) continue;
      if (dropped && dropped[t->id]) continue;
      Find f;
      if (!inline_ok(q, t, &f, reads)) continue;
      q = inline_one(ctx, q, &f);
      if (dropped) dropped[t->id] = 1;
      ++*cnt;
      again = true;
    }
  }
  free(reads);
  return q;
}
