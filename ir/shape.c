/* shape.c -- interval arithmetic over loop ranges, intermediate shape
 * inference and range checks (SPEC §9.3). */
#include "ir/sema.h"

#include <string.h>

static const Interval unknown = {false, false, 0, 0};

static Interval iv(int64_t lo, int64_t hi, bool exact) { return (Interval){true, exact, lo, hi}; }

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

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

static Interval tensor_values(SemaCtx *sc, IrTensor *t, bool *ovf);

/* a mod b for b > 0, in [0, b): unlike a - floordiv(a, b) * b, it cannot
   overflow (a = INT64_MIN). */
static int64_t floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

static Interval interval_of(SemaCtx *sc, const IrExpr *e, bool *ovf);

Interval sema_interval(SemaCtx *sc, const IrExpr *e, bool *ovf) {
  if (sc->depth >= SEMA_MAX_RECURSION) {
    sc->capped = true;
    return unknown;
  }
  sc->depth++;
  Interval r = interval_of(sc, e, ovf);
  sc->depth--;
  return r;
}

static Interval interval_of(SemaCtx *sc, const IrExpr *e, bool *ovf) {
  Interval a, b;
  int64_t r[4];
  switch (e->kind) {
  case E_INT: return iv(e->u.ilit.value, e->u.ilit.value, true);
  case E_INDEX: {
    if (!e->u.index.loop) return unknown;
    int64_t lo = 0, hi = e->u.index.loop->extent - 1;
    for (int i = 0; i < sc->novr; i++)
      if (sc->ovr_loop[i] == e->u.index.loop) {
        if (sc->ovr_lo[i] > lo) lo = sc->ovr_lo[i];
        if (sc->ovr_hi[i] < hi) hi = sc->ovr_hi[i];
      }
    if (lo > hi) hi = lo; /* an unreachable branch */
    return iv(lo, hi, true);
  }
  case E_PAREN: return sema_interval(sc, e->u.paren, ovf);
  case E_UNARY:
    a = sema_interval(sc, e->u.unary.a, ovf);
    if (!a.ok) return a;
    if (e->u.unary.op == OP_POS) return a;
    if (a.lo == INT64_MIN) { *ovf = true; return unknown; }
    return iv(-a.hi, -a.lo, a.exact);
  case E_REF:
    if (!e->u.ref->tensor || !sc->writers) return unknown;
    a = tensor_values(sc, e->u.ref->tensor, ovf);
    a.exact = false;
    return a;
  case E_BINARY:
    a = sema_interval(sc, e->u.bin.a, ovf);
    b = sema_interval(sc, e->u.bin.b, ovf);
    if (!a.ok || !b.ok) return unknown;
    switch (e->u.bin.op) {
    case OP_ADD:
      if (__builtin_add_overflow(a.lo, b.lo, &r[0]) || __builtin_add_overflow(a.hi, b.hi, &r[1])) break;
      return iv(r[0], r[1], a.exact && b.exact && !share_index(e->u.bin.a, e->u.bin.b));
    case OP_SUB:
      if (__builtin_sub_overflow(a.lo, b.hi, &r[0]) || __builtin_sub_overflow(a.hi, b.lo, &r[1])) break;
      return iv(r[0], r[1], a.exact && b.exact && !share_index(e->u.bin.a, e->u.bin.b));
    case OP_MUL: {
      if (__builtin_mul_overflow(a.lo, b.lo, &r[0]) || __builtin_mul_overflow(a.lo, b.hi, &r[1]) ||
          __builtin_mul_overflow(a.hi, b.lo, &r[2]) || __builtin_mul_overflow(a.hi, b.hi, &r[3]))
        break;
      int64_t lo = r[0], hi = r[0];
      for (int i = 1; i < 4; i++) {
        if (r[i] < lo) lo = r[i];
        if (r[i] > hi) hi = r[i];
      }
      bool constant = (a.lo == a.hi) || (b.lo == b.hi);
      return iv(lo, hi, a.exact && b.exact && constant);
    }
    case OP_FLOORDIV:
      if (b.lo != b.hi || b.lo <= 0) return unknown;
      return iv(floordiv(a.lo, b.lo), floordiv(a.hi, b.lo), false);
    case OP_MOD:
      if (b.lo != b.hi || b.lo <= 0) return unknown;
      if (floordiv(a.lo, b.lo) == floordiv(a.hi, b.lo))
        return iv(floormod(a.lo, b.lo), floormod(a.hi, b.lo), false);
      return iv(0, b.lo - 1, false);
    default: return unknown;
    }
    *ovf = true;
    return unknown;
  default: return unknown;
  }
}

bool ir_index_overflows_unguarded(LeirCtx *ctx, const IrExpr *e) {
  SemaCtx sc = {.ctx = ctx}; /* no writers: a read's range is unknown */
  bool ovf = false;
  sema_interval(&sc, e, &ovf);
  return ovf;
}

/* The values an integer index tensor can hold: the union over its writing
 * statements of the range of their right sides.  Inputs are unbounded.
 *
 * The result does not depend on the reader: the writers run for every value
 * of their loops, so the narrowed ranges of the reader's guards (sc->ovr_*)
 * do not apply to them.  That makes the result a property of the tensor,
 * computed once (without this, a chain of tensors each reading the previous
 * one twice took exponential time).  A result cut by SEMA_MAX_RECURSION is
 * not kept: another reader may reach the tensor from less deep. */
static Interval tensor_values(SemaCtx *sc, IrTensor *t, bool *ovf) {
  if (!ir_dtype_is_signed_int(t->dtype) && !ir_dtype_is_unsigned_int(t->dtype) && t->dtype != DT_BOOL)
    return unknown;
  if (t->dtype == DT_BOOL) return iv(0, 1, false);
  PtrVec *w = &sc->writers[t->id];
  if (w->n == 0 || sc->visiting[t->id] == 1) return unknown;
  if (sc->visiting[t->id] == 2) {
    *ovf |= sc->tovf[t->id];
    return sc->tvalue[t->id];
  }
  sc->visiting[t->id] = 1;
  int saved_novr = sc->novr;
  bool saved_capped = sc->capped;
  sc->novr = 0;
  sc->capped = false;
  bool o = false;
  Interval u = unknown;
  for (int i = 0; i < w->n; i++) {
    IrStmt *s = w->v[i];
    if (s->self_ref) { u = unknown; break; }
    Interval x = sema_interval(sc, s->rhs, &o);
    if (!x.ok) { u = unknown; break; }
    if (!u.ok) u = x;
    else {
      if (x.lo < u.lo) u.lo = x.lo;
      if (x.hi > u.hi) u.hi = x.hi;
    }
  }
  sc->novr = saved_novr;
  *ovf |= o;
  if (sc->capped) {
    sc->visiting[t->id] = 0;
  } else {
    sc->visiting[t->id] = 2;
    sc->tvalue[t->id] = u;
    sc->tovf[t->id] = o;
  }
  sc->capped |= saved_capped;
  return u;
}

/* ------------------------------------------------------------ guards */

static const IrExpr *strip(const IrExpr *e) {
  while (e->kind == E_PAREN) e = e->u.paren;
  return e;
}

/* Matches `i`, `i+k`, `i-k` (k an integer literal); *k receives the offset. */
static IrLoop *index_plus_const(const IrExpr *e, int64_t *k) {
  e = strip(e);
  *k = 0;
  if (e->kind == E_INDEX) return e->u.index.loop;
  if (e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB)) {
    const IrExpr *a = strip(e->u.bin.a), *b = strip(e->u.bin.b);
    if (a->kind == E_INDEX && b->kind == E_INT) {
      *k = e->u.bin.op == OP_ADD ? b->u.ilit.value : -b->u.ilit.value;
      return a->u.index.loop;
    }
  }
  return NULL;
}

static IrOp negate(IrOp op) {
  switch (op) {
  case OP_LT: return OP_GE;
  case OP_LE: return OP_GT;
  case OP_GT: return OP_LE;
  case OP_GE: return OP_LT;
  case OP_EQ: return OP_NE;
  default: return OP_EQ;
  }
}

static IrOp mirror(IrOp op) {
  switch (op) {
  case OP_LT: return OP_GT;
  case OP_LE: return OP_GE;
  case OP_GT: return OP_LT;
  case OP_GE: return OP_LE;
  default: return op;
  }
}

static int push_one(SemaCtx *sc, const IrExpr *x, IrOp op, const IrExpr *y) {
  int64_t k;
  IrLoop *l = index_plus_const(x, &k);
  if (!l) {
    l = index_plus_const(y, &k);
    if (!l) return 0;
    const IrExpr *t = x;
    x = y;
    y = t;
    op = mirror(op);
  }
  if (op == OP_NE || sc->novr == 64) return 0;
  bool ovf = false;
  Interval b = sema_interval(sc, y, &ovf);
  if (!b.ok || ovf || b.lo < INT64_MIN / 4 || b.hi > INT64_MAX / 4 || k < INT64_MIN / 4 || k > INT64_MAX / 4)
    return 0;
  /* i + k op y  =>  i op y - k */
  int64_t lo = INT64_MIN / 2, hi = INT64_MAX / 2;
  switch (op) {
  case OP_LT: hi = b.hi - 1 - k; break;
  case OP_LE: hi = b.hi - k; break;
  case OP_GT: lo = b.lo + 1 - k; break;
  case OP_GE: lo = b.lo - k; break;
  case OP_EQ: lo = b.lo - k; hi = b.hi - k; break;
  default: return 0;
  }
  sc->ovr_loop[sc->novr] = l;
  sc->ovr_lo[sc->novr] = lo;
  sc->ovr_hi[sc->novr] = hi;
  sc->novr++;
  return 1;
}

int sema_push_ranges(SemaCtx *sc, const IrExpr *cond, bool truth) {
  cond = strip(cond);
  if (cond->kind == E_BINARY && cond->u.bin.op == OP_AND && truth)
    return sema_push_ranges(sc, cond->u.bin.a, true) + sema_push_ranges(sc, cond->u.bin.b, true);
  if (cond->kind == E_BINARY && cond->u.bin.op == OP_OR && !truth)
    return sema_push_ranges(sc, cond->u.bin.a, false) + sema_push_ranges(sc, cond->u.bin.b, false);
  if (cond->kind != E_CMP) return 0;
  if (!truth) {
    if (cond->u.cmp.n != 2) return 0;
    return push_one(sc, cond->u.cmp.operand[0], negate(cond->u.cmp.op[0]), cond->u.cmp.operand[1]);
  }
  int n = 0;
  for (int i = 0; i + 1 < cond->u.cmp.n; i++)
    n += push_one(sc, cond->u.cmp.operand[i], cond->u.cmp.op[i], cond->u.cmp.operand[i + 1]);
  return n;
}

void sema_pop_ranges(SemaCtx *sc, int n) { sc->novr -= n; }

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
      int pushed = 0;
      if (e->u.call.func == F_ITE && i > 0) pushed = sema_push_ranges(acc->sc, e->u.call.args[0], i == 1);
      find_reads(acc, e->u.call.args[i]);
      sema_pop_ranges(acc->sc, pushed);
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
  int pushed = sema_push_ranges(rc->sc, cond, truth);
  check_expr(rc, e);
  sema_pop_ranges(rc->sc, pushed);
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
