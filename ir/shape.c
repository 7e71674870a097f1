/* shape.c -- interval arithmetic over loop ranges, intermediate shape
 * inference and range checks (SPEC §9.3). */
#include "ir/sema.h"

#include <string.h>

static const Interval unknown = {false, false, 0, 0};

static Interval iv(int64_t lo, int64_t hi, bool exact) { return (Interval){true, exact, lo, hi}; }

/* Does any index name occur in both expressions?  (Exactness of sums.) */
static void collect_idx(IrExpr *e, void *user) {
  PtrVec *v = user;
  if (e->kind == E_INDEX && v->n < v->cap) v->v[v->n++] = (void *)e->u.index.name;
}
static bool share_index(const IrExpr *a, const IrExpr *b) {
  void *sa[32], *sb[32];
  PtrVec va = {sa, 0, 32}, vb = {sb, 0, 32};
  ir_walk_expr((IrExpr *)a, collect_idx, &va);
  ir_walk_expr((IrExpr *)b, collect_idx, &vb);
  if (va.n == 32 || vb.n == 32) return true;
  for (int i = 0; i < va.n; i++)
    for (int j = 0; j < vb.n; j++)
      if (!strcmp(va.v[i], vb.v[j])) return true;
  return false;
}

static IrValue tensor_values(void *user, const IrTensor *t);

/* The value analysis of index arithmetic under sc's guards: exact int64
   arithmetic, index tensors read through their writers, a guard that
   leaves no value taken at its lower bound (the branch is still checked). */
static IrValueEnv env_of(SemaCtx *sc, IrValueGuards *g) {
  return (IrValueEnv){.tensor = sc->writers ? tensor_values : NULL,
                      .user = sc,
                      .st = DT_NONE,
                      .budget = &sc->budget,
                      .empty_as_point = true,
                      .guards = g};
}

static IrValue value_of(SemaCtx *sc, const IrExpr *e) {
  IrValueEnv env = env_of(sc, &sc->guards);
  return ir_value_expr(&env, e);
}

/* Narrows sc's guards by cond being truth; returns the depth to restore. */
static int push_guard(SemaCtx *sc, const IrExpr *cond, bool truth) {
  int n0 = sc->guards.n;
  IrValueEnv env = env_of(sc, &sc->guards);
  ir_value_guard(&env, cond, truth);
  return n0;
}

static bool known(IrValue v) { return ir_value_int_exact(v); }

/* Are the bounds of e's range attained (affine with every index once)?
   A property of the expression's form, not of its range. */
static bool attained(SemaCtx *sc, const IrExpr *e) {
  switch (e->kind) {
  case E_INT:
  case E_INDEX: return true;
  case E_PAREN: return attained(sc, e->u.paren);
  case E_UNARY: return attained(sc, e->u.unary.a);
  case E_BINARY:
    switch (e->u.bin.op) {
    case OP_ADD:
    case OP_SUB:
      return attained(sc, e->u.bin.a) && attained(sc, e->u.bin.b) && !share_index(e->u.bin.a, e->u.bin.b);
    case OP_MUL: {
      if (!attained(sc, e->u.bin.a) || !attained(sc, e->u.bin.b)) return false;
      IrValue a = value_of(sc, e->u.bin.a), b = value_of(sc, e->u.bin.b);
      return (known(a) && a.ilo == a.ihi) || (known(b) && b.ilo == b.ihi);
    }
    default: return false;
    }
  default: return false;
  }
}

Interval sema_interval(SemaCtx *sc, const IrExpr *e, bool *ovf) {
  IrValue v = value_of(sc, e);
  if (v.inexact) *ovf = true;
  if (!known(v)) return unknown;
  return iv(v.ilo, v.ihi, attained(sc, e));
}

bool ir_index_overflows_unguarded(LeirCtx *ctx, const IrExpr *e) {
  SemaCtx sc = {.ctx = ctx}; /* no writers: a read's range is unknown */
  sc.budget.max = SEMA_MAX_RECURSION;
  bool ovf = false;
  sema_interval(&sc, e, &ovf);
  return ovf;
}

/* The values an integer index tensor can hold: the union over its writing
 * statements of the values of their right sides (exact int64 arithmetic, as
 * the reads' subscripts).  Inputs are unbounded.
 *
 * The result does not depend on the reader: the writers run for every value
 * of their loops, so the narrowed ranges of the reader's guards do not apply
 * to them.  That makes the result a property of the tensor, computed once
 * (without this, a chain of tensors each reading the previous one twice took
 * exponential time).  A result cut by SEMA_MAX_RECURSION is not kept:
 * another reader may reach the tensor from less deep. */
static IrValue tensor_values(void *user, const IrTensor *ct) {
  SemaCtx *sc = user;
  IrValue top = ir_value_top();
  if (!ir_dtype_is_signed_int(ct->dtype) && !ir_dtype_is_unsigned_int(ct->dtype) && ct->dtype != DT_BOOL)
    return top;
  if (ct->dtype == DT_BOOL) return ir_value_int(0, 1);
  PtrVec *w = &sc->writers[ct->id];
  if (w->n == 0 || sc->visiting[ct->id] == 1) return top;
  if (sc->visiting[ct->id] == 2) return sc->tvalue[ct->id];
  sc->visiting[ct->id] = 1;
  bool saved_capped = sc->budget.capped;
  sc->budget.capped = false;
  IrValueGuards fresh; /* the writers see none of the reader's guards */
  bool o = false;
  IrValue u = ir_value_bottom();
  for (int i = 0; i < w->n; i++) {
    IrStmt *s = w->v[i];
    if (s->self_ref) {
      u = top;
      break;
    }
    fresh.n = 0;
    IrValueEnv env = env_of(sc, &fresh);
    IrValue x = ir_value_expr(&env, s->rhs);
    o |= x.inexact;
    if (!known(x)) {
      u = top;
      break;
    }
    u = ir_value_join(u, x);
  }
  if (u.bottom) u = top;
  u.inexact = o; /* an overflow in a writer is reported at every read */
  if (sc->budget.capped) {
    sc->visiting[ct->id] = 0;
  } else {
    sc->visiting[ct->id] = 2;
    sc->tvalue[ct->id] = u;
  }
  sc->budget.capped |= saved_capped;
  return u;
}

/* ------------------------------------------------------------ shapes */

/* Shape accumulators, per tensor id: max[id] (per dimension, the largest
 * upper bound seen, -1 = none) is NULL for a tensor whose shape is not being
 * inferred; failed[id] once its error was reported.  The reads of all
 * read-only tensors are gathered in one walk of the program (a walk per
 * tensor was quadratic: 20000 inputs took 90 s). */
typedef struct ShapeAcc {
  SemaCtx *sc;
  int64_t **max;
  bool *failed;
} ShapeAcc;

static void widen(ShapeAcc *acc, IrRef *r) {
  IrTensor *t = r->tensor;
  if (!t || !acc->max[t->id] || acc->failed[t->id]) return;
  int64_t *max = acc->max[t->id];
  for (int d = 0; d < r->nsub && d < t->rank; d++) {
    bool ovf = false;
    Interval x = sema_interval(acc->sc, r->sub[d], &ovf);
    if (ovf) {
      diag_error(acc->sc->ctx, r->sub[d]->loc, "index arithmetic of '%s' overflows", r->name);
      acc->failed[t->id] = true;
      return;
    }
    if (!x.ok) {
      diag_error(acc->sc->ctx, r->sub[d]->loc,
                 "cannot infer the shape of '%s': item %d of this subscript has no bounded range",
                 r->name, d + 1);
      acc->failed[t->id] = true;
      return;
    }
    if (x.hi > max[d]) max[d] = x.hi;
  }
}

/* Walks the reads of the tracked tensors, narrowing index ranges inside
   guarded branches of if_then_else. */
static void find_reads(ShapeAcc *acc, IrExpr *e) {
  switch (e->kind) {
  case E_REF:
    widen(acc, e->u.ref);
    for (int i = 0; i < e->u.ref->nsub; i++) find_reads(acc, e->u.ref->sub[i]);
    break;
  case E_UNARY: find_reads(acc, e->u.unary.a); break;
  case E_BINARY:
    find_reads(acc, e->u.bin.a);
    find_reads(acc, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) find_reads(acc, e->u.cmp.operand[i]);
    break;
  case E_PAREN: find_reads(acc, e->u.paren); break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      int n0 = acc->sc->guards.n;
      if (e->u.call.func == F_ITE && i > 0) push_guard(acc->sc, e->u.call.args[0], i == 1);
      find_reads(acc, e->u.call.args[i]);
      acc->sc->guards.n = n0;
    }
    break;
  default: break;
  }
}

/* The shape of t from its accumulator, unless inference failed. */
static void finish_shape(ShapeAcc *acc, IrTensor *t) {
  SemaCtx *sc = acc->sc;
  const int64_t *max = acc->max[t->id];
  if (acc->failed[t->id]) return;
  t->shape = arena_alloc(&sc->ctx->arena, sizeof(int64_t) * (size_t)(t->rank ? t->rank : 1));
  for (int d = 0; d < t->rank; d++) {
    if (max[d] >= IR_MAX_NUMEL) { /* (max + 1 may overflow int64: print it unsigned) */
      diag_error(sc->ctx, t->loc, "dimension %d of '%s' would have %llu elements; at most %lld are supported",
                 d + 1, t->name, (unsigned long long)max[d] + 1, (long long)IR_MAX_NUMEL);
      return;
    }
    t->shape[d] = max[d] < 0 ? 1 : max[d] + 1;
  }
  t->shape_known = true;
}

/* Written tensors take their shapes from their writes, the others (inputs)
 * from their reads. */
void sema_infer_shapes(SemaCtx *sc) {
  IrProgram *p = sc->p;
  size_t n = (size_t)(p->ntensors ? p->ntensors : 1);
  ShapeAcc acc = {sc, arena_alloc(&sc->ctx->arena, sizeof(int64_t *) * n),
                  arena_alloc(&sc->ctx->arena, sizeof(bool) * n)};
  bool any_read_only = false;
  for (int i = 0; i < p->ntensors; i++) {
    IrTensor *t = p->tensors[i];
    if (t->shape_known || t->rank < 0) continue;
    if (t->rank > 64) {
      diag_error(sc->ctx, t->loc, "'%s' has rank %d; at most 64 is supported", t->name, t->rank);
      continue;
    }
    acc.max[i] = arena_alloc(&sc->ctx->arena, sizeof(int64_t) * (size_t)(t->rank ? t->rank : 1));
    for (int d = 0; d < t->rank; d++) acc.max[i][d] = -1;
    PtrVec *w = &sc->writers[i];
    if (w->n == 0) {
      any_read_only = true;
      continue;
    }
    for (int k = 0; k < w->n; k++) widen(&acc, ((IrStmt *)w->v[k])->lhs);
    finish_shape(&acc, t);
    acc.max[i] = NULL; /* done: the walk of the reads leaves it alone */
  }
  if (!any_read_only) return;
  for (int i = 0; i < p->nstmts; i++) {
    IrStmt *s = p->stmts[i];
    find_reads(&acc, s->rhs);
    for (int k = 0; k < s->lhs->nsub; k++) find_reads(&acc, s->lhs->sub[k]);
  }
  for (int i = 0; i < p->ntensors; i++)
    if (acc.max[i]) finish_shape(&acc, p->tensors[i]);
}

/* ------------------------------------------------------------ range checks */

typedef struct RangeCk {
  SemaCtx *sc;
  int guarded; /* inside a branch of if_then_else or the right operand of & or | */
} RangeCk;

static void check_ref(RangeCk *rc, IrRef *r, bool write) {
  IrTensor *t = r->tensor;
  if (!t || !t->shape_known) return;
  for (int d = 0; d < r->nsub && d < t->rank; d++) {
    bool ovf = false;
    Interval x = sema_interval(rc->sc, r->sub[d], &ovf);
    if (ovf) { /* the interpreter and the code generator would wrap around */
      diag_error(rc->sc->ctx, r->sub[d]->loc, "index arithmetic of '%s' overflows int64: item %d", r->name, d + 1);
      continue;
    }
    if (!x.ok || (x.lo >= 0 && x.hi < t->shape[d])) continue;
    if (x.exact && (write || !rc->guarded))
      diag_error(rc->sc->ctx, r->sub[d]->loc,
                 "%s of '%s' out of bounds: item %d ranges over [%lld,%lld] but the extent is %lld",
                 write ? "write" : "read", r->name, d + 1, (long long)x.lo, (long long)x.hi,
                 (long long)t->shape[d]);
    else if (!rc->guarded)
      diag_warn(rc->sc->ctx, r->sub[d]->loc,
                "%s of '%s' may be out of bounds: item %d ranges over [%lld,%lld] but the extent is %lld",
                write ? "write" : "read", r->name, d + 1, (long long)x.lo, (long long)x.hi,
                (long long)t->shape[d]);
  }
}

static void check_expr(RangeCk *rc, IrExpr *e);

/* e, evaluated only where cond has the value truth: no diagnostic for a
   read that may be out of bounds, and the ranges cond implies. */
static void check_guarded(RangeCk *rc, IrExpr *e, const IrExpr *cond, bool truth) {
  rc->guarded++;
  int n0 = push_guard(rc->sc, cond, truth);
  check_expr(rc, e);
  rc->sc->guards.n = n0;
  rc->guarded--;
}

static void check_expr(RangeCk *rc, IrExpr *e) {
  switch (e->kind) {
  case E_REF:
    check_ref(rc, e->u.ref, false);
    for (int i = 0; i < e->u.ref->nsub; i++) check_expr(rc, e->u.ref->sub[i]);
    break;
  case E_UNARY: check_expr(rc, e->u.unary.a); break;
  case E_BINARY:
    check_expr(rc, e->u.bin.a);
    /* & and | short-circuit (REF lowers them to Python's and/or): the right
       operand is evaluated only where the left one is true (false) */
    if (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR)
      check_guarded(rc, e->u.bin.b, e->u.bin.a, e->u.bin.op == OP_AND);
    else
      check_expr(rc, e->u.bin.b);
    break;
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++) check_expr(rc, e->u.cmp.operand[i]);
    break;
  case E_PAREN: check_expr(rc, e->u.paren); break;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) {
      if (e->u.call.func == F_ITE && i > 0)
        check_guarded(rc, e->u.call.args[i], e->u.call.args[0], i == 1);
      else
        check_expr(rc, e->u.call.args[i]);
    }
    break;
  default: break;
  }
}

void sema_check_ranges(SemaCtx *sc) {
  for (int i = 0; i < sc->p->nstmts; i++) {
    IrStmt *s = sc->p->stmts[i];
    RangeCk rc = {sc, 0};
    check_ref(&rc, s->lhs, true);
    for (int k = 0; k < s->lhs->nsub; k++) check_expr(&rc, s->lhs->sub[k]);
    check_expr(&rc, s->rhs);
  }
}
