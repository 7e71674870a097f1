/* verify.c -- the IR verifier: checks the invariants listed in ir.h.  Runs
 * after parsing and (in checking builds, or with --verify-each) after every
 * pass.  A violation is a compiler bug, reported as such. */
#include "ir/ir.h"

#include <string.h>

typedef struct Vf {
  LeirCtx *ctx;
  const IrProgram *p;
  const IrLoop *scope[256];
  int64_t iters[256]; /* iterations of scope[0..i]; -1 once overflowed */
  int nscope;
  int depth;          /* of the expression being checked */
  const char *err;
} Vf;

static void fail(Vf *v, const char *msg) {
  if (!v->err) v->err = msg;
}

static bool in_scope(Vf *v, const IrLoop *l) {
  for (int i = 0; i < v->nscope; i++)
    if (v->scope[i] == l) return true;
  return false;
}

static void vexpr(Vf *v, const IrExpr *e);

static void vref(Vf *v, const IrRef *r) {
  const IrTensor *t = r->tensor;
  if (!t) return fail(v, arena_printf(&v->ctx->arena, "reference to '%s' is not bound to a tensor", r->name));
  if (t->id < 0 || t->id >= v->p->ntensors || v->p->tensors[t->id] != t)
    return fail(v, arena_printf(&v->ctx->arena, "tensor '%s' is not in the program's table", r->name));
  if (strcmp(t->name, r->name))
    return fail(v, arena_printf(&v->ctx->arena, "reference '%s' bound to tensor '%s'", r->name, t->name));
  if (r->nsub != t->rank)
    return fail(v, arena_printf(&v->ctx->arena, "'%s' has %d subscripts but rank %d", r->name, r->nsub, t->rank));
  for (int i = 0; i < r->nsub; i++) vexpr(v, r->sub[i]);
}

static void vexpr_node(Vf *v, const IrExpr *e);

/* The depth bound is checked before recursing, so that the verifier itself
   survives a tree a pass made too deep. */
static void vexpr(Vf *v, const IrExpr *e) {
  if (!e) return fail(v, "null expression");
  if (v->depth >= IR_MAX_DEPTH)
    return fail(v, arena_printf(&v->ctx->arena, "expression deeper than %d levels", IR_MAX_DEPTH));
  v->depth++;
  vexpr_node(v, e);
  v->depth--;
}

static void vexpr_node(Vf *v, const IrExpr *e) {
  switch (e->kind) {
  case E_INDEX:
    if (!e->u.index.loop || !in_scope(v, e->u.index.loop))
      fail(v, arena_printf(&v->ctx->arena, "index '%s' is not bound to an enclosing loop", e->u.index.name));
    else if (strcmp(e->u.index.loop->index, e->u.index.name))
      fail(v, arena_printf(&v->ctx->arena, "index '%s' bound to loop '%s'", e->u.index.name,
                           e->u.index.loop->index));
    break;
  case E_REF: vref(v, e->u.ref); break;
  case E_UNARY: vexpr(v, e->u.unary.a); break;
  case E_BINARY:
    vexpr(v, e->u.bin.a);
    vexpr(v, e->u.bin.b);
    break;
  case E_CMP:
    if (e->u.cmp.n < 2) fail(v, "comparison chain with fewer than two operands");
    for (int i = 0; i < e->u.cmp.n; i++) vexpr(v, e->u.cmp.operand[i]);
    break;
  case E_CALL: {
    IrFunc f = e->u.call.func;
    int n = e->u.call.nargs;
    if ((f == F_MAX || f == F_MIN) ? n < 2 : f == F_ITE ? n != 3 : n != 1)
      fail(v, arena_printf(&v->ctx->arena, "call of %s with %d arguments", ir_func_name(f), n));
    for (int i = 0; i < n; i++) vexpr(v, e->u.call.args[i]);
    break;
  }
  case E_PAREN: vexpr(v, e->u.paren); break;
  default: break;
  }
}

/* `level`: the bracket depth of the nest (a continuation nest, written after
   its first part's `]`, is at its first part's level). */
static void vnest(Vf *v, const IrNest *n, int level) {
  int saved = v->nscope;
  if (level > IR_MAX_DEPTH)
    return fail(v, arena_printf(&v->ctx->arena, "nests nested deeper than %d levels", IR_MAX_DEPTH));
  if (n->nitems == 0) fail(v, "nest with an empty body");
  for (int i = 0; i < n->nloops; i++) {
    const IrLoop *l = n->loops[i];
    if (l->extent < 1) fail(v, arena_printf(&v->ctx->arena, "loop '%s' has extent %lld", l->index, (long long)l->extent));
    if (l->kind == LOOP_B && ir_hw_axis_of_index(l->index) == HW_NONE)
      fail(v, arena_printf(&v->ctx->arena, "B loop '%s' names no hardware axis", l->index));
    for (int k = 0; k < v->nscope; k++)
      if (!strcmp(v->scope[k]->index, l->index))
        fail(v, arena_printf(&v->ctx->arena, "index '%s' declared twice on one loop chain", l->index));
    if (v->nscope < 256) {
      int64_t outer = v->nscope ? v->iters[v->nscope - 1] : 1, it = -1;
      if (outer >= 0 && __builtin_mul_overflow(outer, l->extent, &it)) {
        fail(v, arena_printf(&v->ctx->arena, "the loops up to '%s' run more than 2^63-1 iterations", l->index));
        it = -1;
      }
      v->iters[v->nscope] = it;
      v->scope[v->nscope++] = l;
    }
  }
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) {
      const IrNest *c = n->items[k].u.nest;
      vnest(v, c, c->continuation ? level : level + 1);
    } else {
      const IrStmt *s = n->items[k].u.stmt;
      v->depth = 1; /* the left reference; its subscripts are level 2 */
      vref(v, s->lhs);
      v->depth = 0;
      vexpr(v, s->rhs);
    }
  }
  v->nscope = saved;
}

const char *ir_verify(LeirCtx *ctx, const IrProgram *p) {
  Vf v = {.ctx = ctx, .p = p};
  if (p->nnests < 1) return "program without nests";
  for (int i = 0; i < p->ntensors && !v.err; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->id != i) fail(&v, arena_printf(&ctx->arena, "tensor '%s' has id %d at position %d", t->name, t->id, i));
    if (!t->shape_known || t->rank < 0)
      fail(&v, arena_printf(&ctx->arena, "tensor '%s' has no shape", t->name));
    for (int d = 0; d < t->rank && !v.err; d++)
      if (t->shape[d] < 1) fail(&v, arena_printf(&ctx->arena, "tensor '%s' has extent %lld", t->name, (long long)t->shape[d]));
    if (!v.err && ir_tensor_numel(t) > IR_MAX_NUMEL)
      fail(&v, arena_printf(&ctx->arena, "tensor '%s' has more than %lld elements", t->name, (long long)IR_MAX_NUMEL));
  }
  for (int i = 0; i < p->nnests && !v.err; i++) vnest(&v, p->nests[i], 1);
  return v.err;
}
