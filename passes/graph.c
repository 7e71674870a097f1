/* graph.c -- tree helpers shared by the graph-level passes (see graph.h). */
#include "passes/graph.h"

#include "passes/rewrite.h"

#include "ir/range.h"

#include <string.h>

/* ------------------------------------------------------------ sites */

/* lazy: 0, or where the outermost lazy context is: 1 an if_then_else
   branch, 2 the right operand of & or | (both short-circuit: REF lowers them to Python and/or, SPEC 5.2) */
static void sites_walk(LeirCtx *ctx, IrExpr **slot, int lazy, bool cond, PtrVec *out) {
  IrExpr *e = ir_expr_unparen_mut(*slot);
  GxSite *s = arena_alloc(&ctx->arena, sizeof *s);
  s->slot = slot;
  s->e = e;
  s->lazy = lazy != 0;
  s->logic = lazy == 2;
  s->cond = cond;
  ptrvec_push(&ctx->arena, out, s);
  switch (e->kind) {
  case E_UNARY: sites_walk(ctx, &e->u.unary.a, lazy, cond, out); break;
  case E_BINARY: {
    bool logic = e->u.bin.op == OP_AND || e->u.bin.op == OP_OR;
    sites_walk(ctx, &e->u.bin.a, lazy, cond, out);
    sites_walk(ctx, &e->u.bin.b, lazy ? lazy : logic ? 2 : 0, cond, out);
    break;
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) sites_walk(ctx, &e->u.cmp.operand[i], lazy, cond, out);
    break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      bool ite = e->u.call.func == F_ITE;
      sites_walk(ctx, &e->u.call.args[i], lazy ? lazy : ite && i > 0 ? 1 : 0, cond || (ite && i == 0), out);
    }
    break;
  default: break;
  }
}

const char *gx_lazy_place(const GxSite *g) {
  return g->logic ? "the right operand of & or |" : "an if_then_else branch";
}

int gx_sites(LeirCtx *ctx, IrStmt *s, PtrVec *out) {
  sites_walk(ctx, &s->rhs, 0, false, out);
  return out->n;
}

const PtrVec *gx_sites_of(PassCtx *pc, const IrProgram *p, IrStmt *s) {
  PtrVec *v;
  if (p != pc->prog || s->id < 0 || s->id >= p->nstmts || p->stmts[s->id] != s) {
    v = arena_alloc(&pc->ctx->arena, sizeof *v); /* zeroed */
    gx_sites(pc->ctx, s, v);
    return v;
  }
  if (!pc->sites) pc->sites = arena_alloc(&pc->ctx->arena, sizeof(PtrVec) * (size_t)p->nstmts); /* zeroed */
  v = (PtrVec *)pc->sites + s->id;
  if (!v->n) gx_sites(pc->ctx, s, v); /* every right side has site 0 */
  return v;
}

const char *gx_lazy_read_unbounded(PassCtx *pc, IrStmt *s, const IrRef *r) {
  const PtrVec *sites = gx_sites_of(pc, pc->prog, s);
  const GxSite *lazy = NULL;
  for (int i = 0; i < sites->n && !lazy; i++) {
    const GxSite *g = sites->v[i];
    if (g->lazy && g->e->kind == E_REF && g->e->u.ref == r) lazy = g;
  }
  if (!lazy) return NULL;
  const IrTensor *t = r->tensor;
  for (int d = 0; d < r->nsub; d++) {
    if (!t || d >= t->rank || !ir_expr_in_bounds(r->sub[d], t->shape[d]))
      return pass_reason(pc, "'%s' is read inside %s and item %d of its subscript (%s) is not provably in bounds "
                         "over the whole loop ranges: the copy nest would read it unconditionally", r->name,
                         gx_lazy_place(lazy), d + 1, rw_sub_text(pc->ctx, r));
  }
  return NULL;
}

const char *gx_not_hoistable(const IrExpr *e) {
  switch (e->kind) {
  case E_CALL: return NULL;
  case E_UNARY: return NULL;
  case E_BINARY: return e->u.bin.op == OP_AND || e->u.bin.op == OP_OR ? "a logical operation" : NULL;
  case E_CMP: return "a comparison";
  case E_REF: return "a single tensor read";
  case E_INDEX: return "a single index";
  default: return "a constant";
  }
}

/* REF tests "a single call" on the text: a call whose arguments hold no
 * parenthesis (exp(A), max(A,0)); min(max(A,0),6) gets parentheses. */
static bool flat_call(const IrExpr *e) {
  if (e->kind != E_CALL) return false;
  SBuf b = {0};
  ir_print_expr(&b, e);
  int open = 0;
  for (const char *p = b.s ? b.s : ""; *p; p++) open += *p == '(';
  sbuf_free(&b);
  return open == 1;
}

IrExpr *gx_wrap(LeirCtx *ctx, const IrExpr *e) {
  IrExpr *c = ir_expr_clone(ctx, e);
  switch (c->kind) {
  case E_REF: case E_INT: case E_FLOAT: case E_INF: case E_PAREN: return c;
  default: return flat_call(c) ? c : ir_paren(ctx, c);
  }
}

/* ------------------------------------------------------------ queries */

typedef struct Reads {
  const char *name;
  bool found;
} Reads;

static void reads_walk(IrExpr *e, void *u) {
  Reads *r = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, r->name)) r->found = true;
}

bool gx_reads(const IrExpr *e, const char *name) {
  Reads r = {name, false};
  ir_walk_expr((IrExpr *)e, reads_walk, &r);
  return r.found;
}

/* The leaves that take their statement's type (SPEC 5.4): index values,
   literals and inf; with `cond`, the ones that are i64 in a condition
   instead (index values, integer literals), outside e's own conditions. */
static bool typed_leaf(const IrExpr *e, bool cond) {
  switch (e->kind) {
  case E_INDEX: case E_INT: return true;
  case E_FLOAT: case E_INF: return !cond;
  case E_UNARY: return typed_leaf(e->u.unary.a, cond);
  case E_BINARY: return typed_leaf(e->u.bin.a, cond) || typed_leaf(e->u.bin.b, cond);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (typed_leaf(e->u.cmp.operand[i], cond)) return true;
    return false;
  case E_CALL:
    for (int i = cond && e->u.call.func == F_ITE; i < e->u.call.nargs; i++)
      if (typed_leaf(e->u.call.args[i], cond)) return true;
    return false;
  case E_PAREN: return typed_leaf(e->u.paren, cond);
  default: return false; /* refs: their subscripts are not values */
  }
}

bool gx_stmt_typed_leaf(const IrExpr *e) { return typed_leaf(e, false); }

bool gx_cond_typed_leaf(const IrExpr *e) { return typed_leaf(e, true); }

const char *gx_cond_retyped(PassCtx *pc, const GxSite *site, IrDType tz) {
  if (!site->cond || tz == DT_I64 || !gx_cond_typed_leaf(site->e)) return NULL;
  return pass_reason(pc, "sub-expression %s sits in an if_then_else condition, where its index values and integer "
                     "literals are i64 (SPEC 5.4); in the new tensor's statement they would be %s",
                     rw_text(pc->ctx, site->e), ir_dtype_name(tz));
}

uint64_t gx_red_mask(const IrNest *n, const IrStmt *s) {
  uint64_t m = 0;
  for (int k = 0; k < n->nloops && k < 64; k++) {
    const char *x = n->loops[k]->index;
    if (n->loops[k]->extent > 1 && !rw_ref_mentions(s->lhs, x) && rw_expr_mentions(s->rhs, x)) m |= 1ULL << k;
  }
  return m;
}

int gx_red_change(const IrNest *n, const IrStmt *s, IrExpr *rhs, bool *dropped) {
  IrStmt t = *s;
  t.rhs = rhs;
  uint64_t before = gx_red_mask(n, s), diff = before ^ gx_red_mask(n, &t);
  if (!diff) return -1;
  int k = __builtin_ctzll(diff);
  if (dropped) *dropped = (before >> k) & 1;
  return k;
}

/* ------------------------------------------------------------ nests */

IrNest *gx_nest_like(LeirCtx *ctx, const IrNest *n) {
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)(n->nloops ? n->nloops : 1));
  for (int i = 0; i < n->nloops; i++) loops[i] = rw_loop_clone(ctx, n->loops[i]);
  IrNest *m = ir_nest_new(ctx, n->nloops, loops);
  m->loc = n->loc;
  return m;
}

IrNest *gx_cand_pair(PassCtx *pc, const IrProgram *p, PassCand *c, IrNest **next, const char **why) {
  IrNest *n = rw_cand_nest(pc, p, c, why);
  if (!n) return NULL;
  if (c->nest + 1 >= p->nnests) {
    *why = pass_reason(pc, "nest %d is the last nest: there is no nest %d to pair it with", c->nest, c->nest + 1);
    return NULL;
  }
  *next = rw_top_nest(pc, p, c->nest + 1, why);
  return *next ? n : NULL;
}

const char *gx_ref_text(LeirCtx *ctx, const IrRef *r) {
  SBuf b = {0};
  ir_print_ref(&b, r);
  const char *s = arena_strdup(&ctx->arena, b.s ? b.s : "");
  sbuf_free(&b);
  return s;
}

int gx_float_rank(IrDType t) {
  switch (t) {
  case DT_F16: case DT_BF16: return 1;
  case DT_F32: return 2;
  case DT_F64: return 3;
  default: return 0;
  }
}
