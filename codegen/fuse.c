/* fuse.c -- host: consecutive top-level nests with the same loops run as
 * one nest, their bodies one after the other per iteration (issue 41;
 * cg_fuse_nests, cg.h).
 *
 *     B^{16}_{tx=0}L^{N}_{a=0}[C_{tx,a}=abs(A_{tx,a});];
 *     B^{16}_{i=0}L^{N}_{j=0}[D_{i,j}=1+C_{i,j};];
 * runs as
 *     B^{16}_{tx=0}L^{N}_{a=0}[C_{tx,a}=abs(A_{tx,a}); D_{tx,a}=1+C_{tx,a};];
 * (the later nests' loop variables renamed to the first's): one pass over
 * the loops, one function call and one parallel region instead of several,
 * and LLVM forwards the value just stored to C to the read of it.  Every
 * store is kept (an intermediate is observable: the API returns it).
 *
 * A group is fused when, after the renaming:
 *   - every nest is perfect (statements only, no inner nest) with the same
 *     loop headers: kind, extent and hardware axis of each loop in order;
 *   - every statement is a plain assignment (no §9.5 initialisation or
 *     reduction: no reduction index, so no §13.3 tree order to keep) whose
 *     left subscripts are distinct loop indices covering every loop:
 *     distinct iterations write distinct elements;
 *   - every reference of the group to a tensor that a statement of the
 *     group writes has exactly that statement's left subscripts (the same
 *     loops in the same positions), so an iteration reads and writes its own
 *     elements of those tensors only;
 *   - every reference (read or written, subscripts of subscripts included)
 *     is provably in range (ir_expr_range): no guarded access, whose
 *     recorded error (the last one met, host.c) would depend on the order;
 *   - no tensor the group writes is read where the lowering evaluates
 *     lazily (an if_then_else branch, the right of & and |, the later
 *     operands of a comparison chain).  Not for the result, which is the
 *     same, but for speed: LLVM hoists the two branches' loads into one
 *     load through a select of the two addresses, which then neither takes
 *     the value just stored nor vectorises (HuberLoss: 4x slower fused).
 * Then the statements that touch one element of a written tensor all run
 * at the same iteration, in the group's text order, as they ran nest after
 * nest; the other tensors are only read.  Each element thus sees the same
 * operations on the same values in the same order: the interpreter's bits.
 *
 * Parallel runs follow the plan's rule for the fused nest (plan.c,
 * race_free): its outermost loop is a left subscript of every write, as it
 * was in each part.  The NVPTX path and the other emitters are not
 * affected (cg_build_module calls this for the host only).
 */
#include "config.h"

#include "codegen/cg.h"
#include "ir/range.h"

/* ------------------------------------------------------------ renaming */

typedef struct Rename {
  LeirCtx *ctx;
  const IrNest *from, *to; /* from's loop i becomes to's loop i */
} Rename;

static IrExpr *ren_expr(const Rename *rn, const IrExpr *e);

static IrRef *ren_ref(const Rename *rn, const IrRef *r) {
  IrRef *c = arena_alloc(&rn->ctx->arena, sizeof *c);
  *c = *r;
  c->sub = arena_alloc(&rn->ctx->arena, sizeof(IrExpr *) * (size_t)(r->nsub ? r->nsub : 1));
  for (int i = 0; i < r->nsub; i++) c->sub[i] = ren_expr(rn, r->sub[i]);
  return c;
}

static IrExpr *ren_expr(const Rename *rn, const IrExpr *e) {
  if (!e) return NULL;
  LeirCtx *ctx = rn->ctx;
  IrExpr *c = arena_alloc(&ctx->arena, sizeof *c);
  *c = *e;
  switch (e->kind) {
  case E_INDEX:
    for (int i = 0; i < rn->from->nloops; i++)
      if (e->u.index.loop == rn->from->loops[i]) {
        c->u.index.loop = rn->to->loops[i];
        c->u.index.name = rn->to->loops[i]->index;
      }
    break;
  case E_REF: c->u.ref = ren_ref(rn, e->u.ref); break;
  case E_UNARY: c->u.unary.a = ren_expr(rn, e->u.unary.a); break;
  case E_BINARY:
    c->u.bin.a = ren_expr(rn, e->u.bin.a);
    c->u.bin.b = ren_expr(rn, e->u.bin.b);
    break;
  case E_CMP:
    c->u.cmp.operand = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)e->u.cmp.n);
    for (int i = 0; i < e->u.cmp.n; i++) c->u.cmp.operand[i] = ren_expr(rn, e->u.cmp.operand[i]);
    break; /* the operators are shared: never written */
  case E_CALL:
    c->u.call.args = arena_alloc(&ctx->arena, sizeof(IrExpr *) * (size_t)(e->u.call.nargs ? e->u.call.nargs : 1));
    for (int i = 0; i < e->u.call.nargs; i++) c->u.call.args[i] = ren_expr(rn, e->u.call.args[i]);
    break;
  case E_PAREN: c->u.paren = ren_expr(rn, e->u.paren); break;
  default: break;
  }
  return c;
}

static IrStmt *ren_stmt(const Rename *rn, const IrStmt *s) {
  IrStmt *c = arena_alloc(&rn->ctx->arena, sizeof *c);
  *c = *s;
  c->lhs = ren_ref(rn, s->lhs);
  c->rhs = ren_expr(rn, s->rhs);
  return c; /* nred is 0 (plain_stmt) */
}

/* ------------------------------------------------------------ legality */

/* Statements only, at least one loop. */
static bool perfect(const IrNest *n) {
  if (n->nloops < 1 || n->nitems < 1) return false;
  for (int i = 0; i < n->nitems; i++)
    if (n->items[i].kind != ITEM_STMT) return false;
  return true;
}

static bool same_header(const IrNest *a, const IrNest *b) {
  if (a->nloops != b->nloops) return false;
  for (int i = 0; i < a->nloops; i++) {
    const IrLoop *x = a->loops[i], *y = b->loops[i];
    if (x->kind != y->kind || x->extent != y->extent || x->hw != y->hw) return false;
  }
  return true;
}

/* A plain assignment whose left subscripts are distinct loop indices of n
 * covering all of n's loops. */
static bool plain_stmt(const IrNest *n, const IrStmt *s) {
  if (s->init != INIT_NONE || s->redop != RED_NONE || s->nred || s->lhs->nsub != n->nloops ||
      s->lhs->tensor->rank != s->lhs->nsub)
    return false;
  for (int l = 0; l < n->nloops; l++) {
    int uses = 0;
    for (int d = 0; d < s->lhs->nsub; d++) {
      const IrExpr *x = ir_expr_unparen(s->lhs->sub[d]);
      if (x->kind != E_INDEX) return false;
      uses += x->u.index.loop == n->loops[l];
    }
    if (uses != 1) return false;
  }
  return true;
}

typedef struct Group {
  int n;
  IrStmt **s; /* renamed to the first nest's loops */
} Group;

static bool same_ref(const IrRef *a, const IrRef *b) {
  if (a->tensor != b->tensor || a->nsub != b->nsub) return false;
  for (int d = 0; d < a->nsub; d++) {
    const IrExpr *x = ir_expr_unparen(a->sub[d]), *y = ir_expr_unparen(b->sub[d]);
    if (x->kind != E_INDEX || y->kind != E_INDEX || x->u.index.loop != y->u.index.loop) return false;
  }
  return true;
}

static bool ref_ok(const Group *g, const IrRef *r, bool lazy);

static bool written(const Group *g, const IrTensor *t) {
  for (int i = 0; i < g->n; i++)
    if (g->s[i]->lhs->tensor == t) return true;
  return false;
}

/* Every reference in e is in range and, to a written tensor, has its
 * writers' subscripts and is not evaluated lazily (lazy: e is). */
static bool expr_ok(const Group *g, const IrExpr *e, bool lazy) {
  e = ir_expr_unparen(e);
  if (!e) return true;
  switch (e->kind) {
  case E_INT: case E_FLOAT: case E_INF: case E_INDEX: return true;
  case E_REF: return ref_ok(g, e->u.ref, lazy);
  case E_UNARY: return expr_ok(g, e->u.unary.a, lazy);
  case E_BINARY: {
    bool and_or = e->u.bin.op == OP_AND || e->u.bin.op == OP_OR; /* lower.c: lazy_logic */
    return expr_ok(g, e->u.bin.a, lazy) && expr_ok(g, e->u.bin.b, lazy || and_or);
  }
  case E_CMP: /* lower.c: cmp_chain, the third operand on lazily */
    for (int i = 0; i < e->u.cmp.n; i++)
      if (!expr_ok(g, e->u.cmp.operand[i], lazy || i >= 2)) return false;
    return true;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!expr_ok(g, e->u.call.args[i], lazy || (e->u.call.func == F_ITE && i > 0))) return false;
    return true;
  default: return false;
  }
}

static bool ref_ok(const Group *g, const IrRef *r, bool lazy) {
  const IrTensor *t = r->tensor;
  if (!t || t->rank != r->nsub || (lazy && written(g, t))) return false;
  for (int d = 0; d < r->nsub; d++) {
    IrRange q = ir_expr_range(r->sub[d]);
    if (!q.ok || q.lo < 0 || q.hi >= t->shape[d] || !expr_ok(g, r->sub[d], lazy)) return false;
  }
  for (int i = 0; i < g->n; i++)
    if (g->s[i]->lhs->tensor == t && !same_ref(r, g->s[i]->lhs)) return false;
  return true;
}

static bool group_ok(const Group *g) {
  for (int i = 0; i < g->n; i++)
    if (!ref_ok(g, g->s[i]->lhs, false) || !expr_ok(g, g->s[i]->rhs, false)) return false;
  return true;
}

/* ------------------------------------------------------------ the program */

/* The nests [first, *end) that fuse with nest first, renamed into g (its
 * statements: the first nest's as they are, the others' renamed).  *end is
 * first + 1 when none does. */
static void find_group(LeirCtx *ctx, const IrProgram *p, int first, Group *g, int *end) {
  const IrNest *n0 = p->nests[first];
  *end = first + 1;
  g->n = 0;
  if (!perfect(n0)) return;
  int total = 0;
  for (int j = first; j < p->nnests; j++) total += p->nests[j]->nitems;
  g->s = arena_alloc(&ctx->arena, sizeof(IrStmt *) * (size_t)(total + 1));
  for (int i = 0; i < n0->nitems; i++) {
    if (!plain_stmt(n0, n0->items[i].u.stmt)) return;
    g->s[g->n++] = n0->items[i].u.stmt;
  }
  if (!group_ok(g)) {
    g->n = 0;
    return;
  }
  for (int j = first + 1; j < p->nnests; j++) {
    const IrNest *n = p->nests[j];
    if (!perfect(n) || !same_header(n0, n)) break;
    Rename rn = {ctx, n, n0};
    int had = g->n;
    bool ok = true;
    for (int i = 0; ok && i < n->nitems; i++) {
      ok = plain_stmt(n, n->items[i].u.stmt);
      if (ok) g->s[g->n++] = ren_stmt(&rn, n->items[i].u.stmt);
    }
    if (!ok || !group_ok(g)) {
      g->n = had;
      break;
    }
    *end = j + 1;
  }
}

const IrProgram *cg_fuse_nests(LeirCtx *ctx, const IrProgram *p) {
  for (int i = 0; i < p->nstmts; i++)
    if (p->stmts[i]->id != i) return p; /* cg_lower_program's lookups by id */
  IrNest **nests = arena_alloc(&ctx->arena, sizeof(IrNest *) * (size_t)(p->nnests + 1));
  IrStmt **stmts = arena_alloc(&ctx->arena, sizeof(IrStmt *) * (size_t)(p->nstmts + 1));
  for (int i = 0; i < p->nstmts; i++) stmts[i] = p->stmts[i];
  int nn = 0;
  for (int i = 0; i < p->nnests;) {
    Group g = {0};
    int end = i + 1;
    find_group(ctx, p, i, &g, &end);
    if (end == i + 1) {
      nests[nn++] = p->nests[i++];
      continue;
    }
    IrNest *f = arena_alloc(&ctx->arena, sizeof *f);
    *f = *p->nests[i];
    f->nitems = g.n;
    f->items = arena_alloc(&ctx->arena, sizeof(IrItem) * (size_t)g.n);
    for (int k = 0; k < g.n; k++) {
      f->items[k].kind = ITEM_STMT;
      f->items[k].u.stmt = g.s[k];
      stmts[g.s[k]->id] = g.s[k];
    }
    nests[nn++] = f;
    i = end;
  }
  if (nn == p->nnests) return p;
  IrProgram *q = arena_alloc(&ctx->arena, sizeof *q);
  *q = *p;
  q->nnests = nn;
  q->nests = nests;
  q->stmts = stmts;
  return q;
}
