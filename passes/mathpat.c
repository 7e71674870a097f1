/* mathpat.c -- helpers of the non-symbolic math strategies (mathpat.h). */
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

/* ------------------------------------------------------------ may be infinite */

static bool has_inf(const IrExpr *e) {
  if (!e) return false;
  switch (e->kind) {
  case E_INF: return true;
  case E_UNARY: return has_inf(e->u.unary.a);
  case E_BINARY: return has_inf(e->u.bin.a) || has_inf(e->u.bin.b);
  case E_PAREN: return has_inf(e->u.paren);
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (has_inf(e->u.call.args[i])) return true;
    return false;
  case E_CMP: /* a comparison yields 0 or 1 */
  default: return false;
  }
}

enum { MP_MAX_DEPTH = 32 };

/* The tensors a search has settled, with their results: a program whose
 * definitions read one tensor along many paths (T2 = T1+T1, T3 = T2+T2, ...)
 * is walked once per tensor, not once per path (2^n: --list-applicable on
 * a 30-nest chain took minutes). */
enum { MP_MEMO = 256 };
typedef struct MpMemo {
  const char *name[MP_MEMO];
  int val[MP_MEMO];
  int n;
} MpMemo;

static bool memo_get(const MpMemo *m, const char *name, int *val) {
  for (int i = 0; i < m->n; i++)
    if (!strcmp(m->name[i], name)) {
      *val = m->val[i];
      return true;
    }
  return false;
}

static bool memo_has(const MpMemo *m, const char *name) {
  int v;
  return memo_get(m, name, &v);
}

static void memo_put(MpMemo *m, const char *name, int val) {
  if (m->n == MP_MEMO) return;
  m->name[m->n] = name;
  m->val[m->n++] = val;
}

/* A search for a right side with some property (has: inf, a huge literal)
 * among the definitions a tensor is computed from. */
typedef struct InfSearch {
  const IrProgram *p;
  bool (*has)(const IrExpr *rhs, void *u);
  void *u;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *culprit; /* the tensor whose definition has it */
  int nest;
  MpMemo clean; /* tensors from which none is reachable */
} InfSearch;

static bool has_inf_rhs(const IrExpr *rhs, void *u) {
  (void)u;
  return has_inf(rhs);
}

static bool inf_tensor(InfSearch *s, const char *name);

typedef struct InfRefs {
  InfSearch *s;
  const char *self;
  bool found;
} InfRefs;

static void inf_ref(IrExpr *e, void *u) {
  InfRefs *r = u;
  if (r->found || e->kind != E_REF || (r->self && !strcmp(e->u.ref->name, r->self))) return;
  r->found = inf_tensor(r->s, e->u.ref->name);
}

static bool inf_in_nest(InfSearch *s, const IrNest *n, int k, const char *name) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (inf_in_nest(s, n->items[i].u.nest, k, name)) return true;
      continue;
    }
    IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    if (s->has(st->rhs, s->u)) {
      s->culprit = name;
      s->nest = k;
      return true;
    }
    InfRefs r = {s, name, false};
    ir_walk_expr(st->rhs, inf_ref, &r);
    if (r.found) return true;
  }
  return false;
}

static bool inf_tensor(InfSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return false;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) return false; /* a cycle adds no infinity of its own */
  if (s->depth == MP_MAX_DEPTH) {
    s->culprit = name;
    s->nest = -1;
    return true; /* too deep to tell: assume the worst */
  }
  if (memo_has(&s->clean, name)) return false;
  s->stack[s->depth++] = name;
  bool found = false;
  for (int k = 0; k < s->p->nnests && !found; k++) found = inf_in_nest(s, s->p->nests[k], k, name);
  s->depth--;
  /* (reachability: a cycle cut below only skips a tensor whose own walk
     is under way above) */
  if (!found) memo_put(&s->clean, name, 0);
  return found;
}

const char *mp_may_be_inf(PassCtx *pc, const IrProgram *p, const char *name) {
  InfSearch s = {.p = p, .has = has_inf_rhs};
  if (!inf_tensor(&s, name)) return NULL;
  if (s.nest < 0) return pass_reason(pc, "its definition is too deep to analyse");
  if (!strcmp(s.culprit, name)) return pass_reason(pc, "its definition in nest %d contains inf", s.nest);
  return pass_reason(pc, "it is computed from '%s', whose definition in nest %d contains inf", s.culprit, s.nest);
}

const char *mp_computed_from(const IrProgram *p, const IrExpr *e, const char *self,
                             bool (*has)(const IrExpr *rhs, void *u), void *u, int *nest) {
  InfSearch s = {.p = p, .has = has, .u = u};
  InfRefs r = {&s, self, false};
  ir_walk_expr((IrExpr *)e, inf_ref, &r);
  if (!r.found) return NULL;
  *nest = s.nest;
  return s.culprit;
}

/* ------------------------------------------------------------ a divisor that may be infinite */

/* The largest exponent a divisor's powers may have. */
#define MP_MAX_DIV_EXP 8

typedef struct DivSearch {
  PassCtx *pc;
  const IrProgram *p;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *why;    /* the construct */
  const char *tensor; /* the tensor whose definition has it (NULL: e itself) */
  bool top;           /* in e's own + - * / and integer powers (the algebra's) */
  IrDType st;         /* the type of the statement being searched */
  MpMemo finite;      /* tensors found finite (reachability, as InfSearch) */
} DivSearch;

static bool div_expr(DivSearch *s, const IrExpr *e);
static bool div_tensor(DivSearch *s, const char *name);

static bool div_found(DivSearch *s, const char *why) {
  if (!s->why) s->why = why;
  return true;
}

/* A literal >= 0 (an exponent that keeps a finite base finite). */
static bool nonneg_literal(const IrExpr *e) {
  while (e->kind == E_PAREN) e = e->u.paren;
  return (e->kind == E_INT) || (e->kind == E_FLOAT && e->u.flit.value >= 0);
}

static bool literal(const IrExpr *e);
static double literal_value(const IrExpr *e);

static bool div_binary(DivSearch *s, const IrExpr *e) {
  const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
  switch (e->u.bin.op) {
  case OP_DIV:
    if (s->top) return div_expr(s, a) || div_expr(s, b); /* the algebra's own */
    /* fall through */
  case OP_FLOORDIV: case OP_MOD:
    if (!literal(b) || literal_value(b) == 0) return div_found(s, "a division by a non-constant");
    return div_expr(s, a);
  case OP_POW: {
    int64_t n; /* (top: the algebra's integer powers, alg_int_exponent) */
    bool own = s->top && alg_int_exponent(b, &n);
    if (!nonneg_literal(b) && !own) return div_found(s, "a power with a negative or non-constant exponent");
    /* a moderate base (up to 10^4) to a power above 8 may overflow even
       f32: (1-A)**1020.7 was inf, and together's common denominator
       made inf/inf = NaN of 1/inf-1/A (fuzz_passes finding 41) */
    if (fabs(own ? (double)n : literal_value(b)) > MP_MAX_DIV_EXP)
      return div_found(s, "a power with an exponent above 8, which may overflow");
    return div_expr(s, a);
  }
  default: return div_expr(s, a) || div_expr(s, b);
  }
}

static bool div_expr(DivSearch *s, const IrExpr *e) {
  switch (e->kind) {
  case E_INF: return div_found(s, "inf");
  case E_PAREN: return div_expr(s, e->u.paren);
  case E_UNARY: return div_expr(s, e->u.unary.a);
  case E_BINARY: return div_binary(s, e);
  case E_REF: {
    bool top = s->top;
    s->top = false;
    bool found = div_tensor(s, e->u.ref->name);
    s->top = top;
    return found;
  }
  case E_CALL: {
    const IrExpr *x = e->u.call.nargs ? e->u.call.args[0] : NULL;
    if (e->u.call.func == F_LOG && mp_sign_expr(s->p, x, s->st) != SIGN_POS)
      return div_found(s, "log of a value that may be 0");
    if (e->u.call.func == F_EXP && mp_immoderate(s->pc, s->p, x, s->st))
      return div_found(s, "exp of a value that may be large");
    bool top = s->top, found = false;
    IrDType st = s->st;
    s->top = false;
    for (int i = 0; i < e->u.call.nargs && !found; i++) {
      /* an if_then_else condition's literals and index values are i64 (SPEC 5.4) */
      s->st = e->u.call.func == F_ITE && i == 0 ? DT_I64 : st;
      found = div_expr(s, e->u.call.args[i]);
    }
    s->st = st;
    s->top = top;
    return found;
  }
  default: return false; /* literals (finite: the algebra checks them), indices, comparisons */
  }
}

static bool div_in_nest(DivSearch *s, const IrNest *n, const char *name) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (div_in_nest(s, n->items[i].u.nest, name)) return true;
      continue;
    }
    const IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    const char *before = s->why;
    IrDType outer = s->st;
    s->st = rw_ref_dtype(st->lhs);
    bool found = div_expr(s, st->rhs);
    s->st = outer;
    if (found) {
      if (!before && !s->tensor) s->tensor = name;
      return true;
    }
  }
  return false;
}

static bool div_tensor(DivSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return false;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) return false; /* a cycle (a reduction) adds no infinity of its own */
  if (memo_has(&s->finite, name)) return false;
  if (s->depth == MP_MAX_DEPTH) {
    s->tensor = name;
    return div_found(s, "a definition too deep to analyse");
  }
  s->stack[s->depth++] = name;
  bool found = false;
  for (int k = 0; k < s->p->nnests && !found; k++) found = div_in_nest(s, s->p->nests[k], name);
  s->depth--;
  if (!found) memo_put(&s->finite, name, 0);
  return found;
}

const char *mp_expr_may_be_inf(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  DivSearch s = {.pc = pc, .p = p, .top = true, .st = st};
  if (!div_expr(&s, e)) return NULL;
  if (s.tensor) return pass_reason(pc, "'%s' is computed with %s", s.tensor, s.why);
  return pass_reason(pc, "it has %s", s.why);
}

/* ------------------------------------------------------------ positivity */

/* The signs of the tensors an expression reads, as the least fixed point of
 * their writers' signs (each tensor's: the lowest of its writes'), found by
 * chaotic iteration from SIGN_UNKNOWN: every rule below is monotone in the
 * order UNKNOWN < NONNEG < POS, so each tensor's sign only rises, at most
 * twice, and a tensor's writers are re-evaluated only when a tensor they
 * read has risen.  A fixed point is a claim every write keeps given that
 * the writes before it kept theirs; the least one claims nothing a cycle
 * does not prove (A = B, B = A stays unknown; A = max(B,1) is positive).
 * Linear in the part of the program the expression reaches (a search that
 * cut cycles and remembered only the results computed without a cut took
 * time exponential in a chain of tensors each read twice by the next once
 * the chain had a cycle: fuzz_passes, issue 11). */
typedef struct PosSearch {
  const IrProgram *p;
  signed char *sign;  /* by tensor id; -1: not reached */
  PtrVec *writers;    /* by tensor id */
  PtrVec *readers;    /* by tensor id: the reached tensors whose writers read it */
  PtrVec work;        /* reached tensors to (re-)evaluate */
  bool *queued;       /* by tensor id */
  IrDType st;         /* the type of the statement being evaluated */
  Arena scratch;
} PosSearch;

static int pos_expr(PosSearch *s, const IrExpr *e, IrDType *ty);

static int lo(int a, int b) { return a < b ? a : b; }

/* p's own tensor for a reference (a ref built outside p, or unbound, is
   looked up by name). */
static const IrTensor *pos_ref_tensor(const IrProgram *p, const IrRef *r) {
  const IrTensor *t = r->tensor;
  if (t && t->id >= 0 && t->id < p->ntensors && p->tensors[t->id] == t) return t;
  return ir_find_tensor(p, r->name);
}

/* ---- sign of a value through the types SPEC 5.4 gives it ---- */

/* Every value of an unsigned or bool dtype is >= 0. */
static int pos_floor(int v, IrDType t) {
  return (ir_dtype_is_unsigned_int(t) || t == DT_BOOL) && v < SIGN_NONNEG ? SIGN_NONNEG : v;
}

/* The sign of a value of sign v in dtype `from` once converted to `to`
 * (interp/ops.h): rounding to a float type keeps it (a value below the
 * type's least subnormal rounds to 0 -- taken, as exp's underflow is, not
 * to happen); a float becomes an integer by truncation (0.5 -> 0, NaN -> 0;
 * to bool, NaN -> 0) and an integer a narrower one by wrapping; an integer
 * becomes bool as nonzero -> 1. */
static int pos_convert(int v, IrDType from, IrDType to) {
  if (from == to || ir_dtype_is_float(to)) return v;
  if (ir_dtype_is_float(from)) return pos_floor(lo(v, SIGN_NONNEG), to);
  if (to == DT_BOOL) return v == SIGN_POS ? SIGN_POS : SIGN_NONNEG;
  if (ir_dtype_convert_monotone(from, to)) return pos_floor(v, to);
  return pos_floor(SIGN_UNKNOWN, to);
}

/* The sign of a sum or product that may wrap in dtype t: only 64-bit
 * integer arithmetic is taken not to (a 32-bit one wraps a positive value
 * to 0 or below). */
static int pos_wrap(int v, IrDType t) {
  if (ir_dtype_is_float(t) || t == DT_I64 || t == DT_U64) return v;
  return pos_floor(SIGN_UNKNOWN, t);
}

/* The sign of the literal v (integral when `integral`) in the statement
 * type st: rounded to a float type (1e-50 is 0 in f32), truncated to an
 * integer type (0.5 is 0) or, for an integer literal, wrapped (256 is 0 in
 * u8). */
static int pos_literal(double v, bool integral, IrDType st) {
  if (ir_dtype_is_float(st)) v = ir_dtype_literal_value(st, v);
  else if (st == DT_BOOL) v = v != 0;
  else if (!integral) v = trunc(v); /* saturating: a positive value stays >= 1 */
  else if (ir_dtype_size(st) < 8 && ldexp(1.0, 8 * ir_dtype_size(st) - !ir_dtype_is_unsigned_int(st)) <= v)
    return pos_floor(SIGN_UNKNOWN, st);
  return v > 0 ? SIGN_POS : v == 0 ? SIGN_NONNEG : pos_floor(SIGN_UNKNOWN, st);
}

static int pos_binary(PosSearch *s, const IrExpr *e, IrDType *ty) {
  IrDType ta, tb;
  int a = pos_expr(s, e->u.bin.a, &ta), b = pos_expr(s, e->u.bin.b, &tb), v;
  if (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR) {
    *ty = DT_BOOL;
    return SIGN_NONNEG;
  }
  IrDType t = *ty = ir_dtype_usual(ta, tb);
  bool integer = !ir_dtype_is_float(t);
  a = pos_convert(a, ta, t);
  b = pos_convert(b, tb, t);
  switch (e->u.bin.op) {
  case OP_ADD:
    v = a == SIGN_UNKNOWN || b == SIGN_UNKNOWN ? SIGN_UNKNOWN : a == SIGN_POS || b == SIGN_POS ? SIGN_POS : SIGN_NONNEG;
    v = pos_wrap(v, t);
    break;
  case OP_MUL: v = pos_wrap(lo(a, b), t); break;
  case OP_DIV: /* integer division truncates: (tx+1)/3 is 0 at tx = 0 (fuzz_passes finding 59) */
    v = b == SIGN_POS ? (integer ? lo(a, SIGN_NONNEG) : a) : SIGN_UNKNOWN;
    break;
  case OP_POW: {
    const IrExpr *x = e->u.bin.b;
    while (x->kind == E_PAREN) x = x->u.paren;
    if (integer) v = SIGN_UNKNOWN; /* integer powers truncate (2**-1) and wrap */
    else if (a == SIGN_POS) v = SIGN_POS;
    else v = x->kind == E_INT && x->u.ilit.value % 2 == 0 ? SIGN_NONNEG : SIGN_UNKNOWN;
    break;
  }
  default: v = SIGN_UNKNOWN; break;
  }
  return pos_floor(v, t);
}

/* Calls are typed as sema types them: the usual type of the arguments
 * (of the two values for if_then_else), exp/log/sqrt/erf of an integer in
 * the statement's float type or f64, abs promoted. */
static int pos_call(PosSearch *s, const IrExpr *e, IrDType *ty) {
  int n = e->u.call.nargs, first = e->u.call.func == F_ITE ? 1 : 0;
  int *sign = arena_alloc(&s->scratch, sizeof(int) * (size_t)n);
  IrDType *at = arena_alloc(&s->scratch, sizeof(IrDType) * (size_t)n), t = DT_NONE;
  for (int i = first; i < n; i++) {
    sign[i] = pos_expr(s, e->u.call.args[i], &at[i]);
    t = i > first ? ir_dtype_usual(t, at[i]) : at[i];
  }
  IrFunc f = e->u.call.func;
  if (t == DT_NONE) t = s->st;
  if ((f == F_EXP || f == F_LOG || f == F_SQRT || f == F_ERF) && !ir_dtype_is_float(t))
    t = ir_dtype_is_float(s->st) ? s->st : DT_F64;
  if (f == F_ABS) t = ir_dtype_promote(t);
  *ty = t;
  for (int i = first; i < n; i++) sign[i] = pos_convert(sign[i], at[i], t);
  int v = SIGN_UNKNOWN;
  switch (f) {
  case F_EXP: v = SIGN_POS; break;
  case F_SQRT: v = sign[0]; break;
  case F_ABS: /* abs of the least signed integer is itself */
    v = sign[0] == SIGN_POS ? SIGN_POS : sign[0] == SIGN_NONNEG || ir_dtype_is_float(t) ? SIGN_NONNEG : SIGN_UNKNOWN;
    break;
  case F_MAX:
    for (int i = 0; i < n; i++)
      if (sign[i] > v) v = sign[i];
    break;
  case F_MIN:
    v = SIGN_POS;
    for (int i = 0; i < n; i++) v = lo(v, sign[i]);
    break;
  case F_ITE: v = lo(sign[1], sign[2]); break;
  default: break;
  }
  return pos_floor(v, t);
}

/* A read's sign: its tensor's current one (inputs, parameters and tensors
   nothing writes are unknown, but for an unsigned or bool dtype). */
static int pos_ref(PosSearch *s, const IrRef *r, IrDType *ty) {
  const IrTensor *t = pos_ref_tensor(s->p, r);
  *ty = t ? t->dtype : s->st;
  return pos_floor(t && s->sign[t->id] > 0 ? s->sign[t->id] : SIGN_UNKNOWN, *ty);
}

/* The sign of e and, in *ty, its type (sema's rules, SPEC 5.4, with s->st
 * the statement type; e is never a condition, whose operands are i64). */
static int pos_expr(PosSearch *s, const IrExpr *e, IrDType *ty) {
  *ty = s->st;
  switch (e->kind) {
  case E_INT: return pos_literal((double)e->u.ilit.value, true, s->st);
  case E_FLOAT: return pos_literal(e->u.flit.value, false, s->st);
  case E_INDEX: return pos_convert(SIGN_NONNEG, DT_I64, s->st);
  case E_PAREN: return pos_expr(s, e->u.paren, ty);
  case E_UNARY: {
    IrDType ta;
    int a = pos_expr(s, e->u.unary.a, &ta);
    *ty = ir_dtype_promote(ta);
    return pos_floor(e->u.unary.op == OP_POS ? pos_convert(a, ta, *ty) : SIGN_UNKNOWN, *ty);
  }
  case E_BINARY: return pos_binary(s, e, ty);
  case E_CALL: return pos_call(s, e, ty);
  case E_REF: return pos_ref(s, e->u.ref, ty);
  case E_CMP: *ty = DT_BOOL; return SIGN_NONNEG;
  default: return pos_floor(SIGN_UNKNOWN, s->st); /* inf */
  }
}

/* The sign of one write, in its tensor's dtype: accumulations combine the
 * identity (or an earlier write, itself required positive) with the new
 * term, in their usual type, converted back. */
static int pos_write(PosSearch *s, const IrStmt *st) {
  const IrExpr *e = st->rhs;
  IrDType lt = rw_ref_dtype(st->lhs), tb;
  s->st = lt;
  if (st->self_ref) {
    const IrExpr *b = NULL;
    bool sum = false;
    if (e->kind == E_BINARY && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_MUL) && e->u.bin.a->kind == E_REF &&
        !strcmp(e->u.bin.a->u.ref->name, st->lhs->name))
      b = e->u.bin.b, sum = true;
    if (e->kind == E_CALL && e->u.call.func == F_MAX && e->u.call.nargs == 2 && e->u.call.args[0]->kind == E_REF &&
        !strcmp(e->u.call.args[0]->u.ref->name, st->lhs->name))
      b = e->u.call.args[1];
    if (!b || pos_expr(s, b, &tb) != SIGN_POS) return pos_floor(SIGN_UNKNOWN, lt);
    IrDType t = ir_dtype_usual(lt, tb);
    int v = pos_convert(SIGN_POS, tb, t);
    return pos_convert(sum ? pos_wrap(v, t) : v, t, lt);
  }
  int v = pos_expr(s, e, &tb);
  return pos_convert(v, tb, lt);
}

static void pos_queue(PosSearch *s, const IrTensor *t) {
  if (s->queued[t->id]) return;
  s->queued[t->id] = true;
  ptrvec_push(&s->scratch, &s->work, (void *)t);
}

typedef struct PosReach {
  PosSearch *s;
  const IrTensor *reader; /* the tensor whose writer reads, or NULL (the expression) */
} PosReach;

/* Reaches the tensor a reference reads: computed tensors join the search
   (sign 0 = unknown, to be raised), and the reader is noted as theirs. */
static void pos_reach(IrExpr *e, void *u) {
  PosReach *r = u;
  PosSearch *s = r->s;
  if (e->kind != E_REF) return;
  const IrTensor *t = pos_ref_tensor(s->p, e->u.ref);
  if (!t || t->role == ROLE_IN || t->role == ROLE_PARAM || !s->writers[t->id].n) return;
  if (r->reader) ptrvec_push(&s->scratch, &s->readers[t->id], (void *)r->reader);
  if (s->sign[t->id] >= 0) return;
  s->sign[t->id] = SIGN_UNKNOWN;
  pos_queue(s, t);
}

static int pos_search(const IrProgram *p, const IrExpr *e, const char *name, IrDType st) {
  PosSearch s = {.p = p};
  size_t n = (size_t)(p->ntensors ? p->ntensors : 1);
  s.sign = arena_alloc(&s.scratch, n);
  memset(s.sign, -1, n);
  s.writers = arena_alloc(&s.scratch, sizeof(PtrVec) * n);
  s.readers = arena_alloc(&s.scratch, sizeof(PtrVec) * n);
  s.queued = arena_alloc(&s.scratch, sizeof(bool) * n);
  for (int i = 0; i < p->nstmts; i++) {
    const IrTensor *t = pos_ref_tensor(p, p->stmts[i]->lhs);
    if (t) ptrvec_push(&s.scratch, &s.writers[t->id], p->stmts[i]);
  }
  const IrTensor *named = name ? ir_find_tensor(p, name) : NULL;
  IrExpr ref = {.kind = E_REF};
  IrRef r = {.name = name, .tensor = (IrTensor *)named};
  ref.u.ref = &r;
  PosReach top = {&s, NULL};
  if (name) pos_reach(&ref, &top);
  else ir_walk_expr((IrExpr *)e, pos_reach, &top);
  /* reach everything first (the reader lists must be whole before a
     sign rises), then iterate */
  for (int w = 0; w < s.work.n; w++) {
    const IrTensor *t = s.work.v[w];
    PosReach rd = {&s, t};
    for (int i = 0; i < s.writers[t->id].n; i++) ir_walk_expr(((IrStmt *)s.writers[t->id].v[i])->rhs, pos_reach, &rd);
  }
  for (int w = 0; w < s.work.n; w++) {
    const IrTensor *t = s.work.v[w];
    s.queued[t->id] = false;
    int v = SIGN_POS;
    for (int i = 0; i < s.writers[t->id].n && v != SIGN_UNKNOWN; i++) v = lo(v, pos_write(&s, s.writers[t->id].v[i]));
    if (v <= s.sign[t->id]) continue;
    s.sign[t->id] = (signed char)v;
    for (int i = 0; i < s.readers[t->id].n; i++) pos_queue(&s, s.readers[t->id].v[i]);
  }
  IrDType ty;
  s.st = st;
  int v = name ? pos_ref(&s, &r, &ty) : pos_expr(&s, e, &ty);
  arena_free_all(&s.scratch);
  return v;
}

bool mp_positive_tensor(const IrProgram *p, const char *name) { return pos_search(p, NULL, name, DT_F32) == SIGN_POS; }

int mp_sign_expr(const IrProgram *p, const IrExpr *e, IrDType st) { return pos_search(p, e, NULL, st); }

/* ------------------------------------------------------------ a split that reaches a divisor */

typedef struct Taint {
  const bool *tainted; /* by tensor id */
  const IrExpr *node;  /* the rewritten node, or NULL */
  const IrRef *ref;    /* the rewritten reference, or NULL */
  bool found;
} Taint;

static void taint_walk(IrExpr *e, void *u) {
  Taint *t = u;
  if (e == t->node) t->found = true;
  if (e->kind == E_REF && (e->u.ref == t->ref || (e->u.ref->tensor && t->tainted[e->u.ref->tensor->id])))
    t->found = true;
}

static bool reads_tainted(const Taint *t0, const IrExpr *e) {
  Taint t = *t0;
  t.found = false;
  ir_walk_expr((IrExpr *)e, taint_walk, &t);
  return t.found;
}

/* The first divisor in e (the right operand of / // %, or the base of a
 * power whose exponent is not a constant >= 0) that reads a tainted tensor
 * (or holds the rewritten node) and is not proved positive, or NULL. */
static const IrExpr *tainted_divisor(const IrProgram *p, const IrExpr *e, const Taint *t, IrDType st) {
  const IrExpr *d = NULL;
  double v;
  switch (e->kind) {
  case E_PAREN: return tainted_divisor(p, e->u.paren, t, st);
  case E_UNARY: return tainted_divisor(p, e->u.unary.a, t, st);
  case E_BINARY: {
    IrOp op = e->u.bin.op;
    const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
    if ((op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) && reads_tainted(t, b) &&
        mp_sign_expr(p, b, st) != SIGN_POS)
      return b;
    if (op == OP_POW && !(rw_const_value(b, &v) && v >= 0) && reads_tainted(t, a) && mp_sign_expr(p, a, st) != SIGN_POS)
      return a;
    if ((d = tainted_divisor(p, a, t, st))) return d;
    return tainted_divisor(p, b, t, st);
  }
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n && !d; i++) d = tainted_divisor(p, e->u.cmp.operand[i], t, st);
    return d;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs && !d; i++) /* (an if_then_else condition is typed i64, SPEC 5.4) */
      d = tainted_divisor(p, e->u.call.args[i], t, e->u.call.func == F_ITE && i == 0 ? DT_I64 : st);
    return d;
  default: return NULL;
  }
}

const char *mp_divisor_rule(PassCtx *pc, const IrProgram *p, const IrStmt *s, const IrExpr *node, const IrRef *ref,
                            const char *form) {
  LeirCtx *ctx = pc->ctx;
  bool *tainted = arena_alloc(&ctx->arena, sizeof(bool) * (size_t)(p->ntensors + 1));
  memset(tainted, 0, sizeof(bool) * (size_t)(p->ntensors + 1));
  Taint t = {tainted, node, ref, false};
  const IrExpr *d = tainted_divisor(p, s->rhs, &t, rw_ref_dtype(s->lhs));
  if (d && ref)
    return pass_reason(pc, "'%s' is read in the divisor %s, which is not proved positive: %s, which a divisor near "
                       "zero amplifies without bound (--unsafe-math allows it)", ref->name, rw_text(ctx, d), form);
  if (d)
    return pass_reason(pc, "%s is in the divisor %s, which is not proved positive: %s, which a divisor near zero "
                       "amplifies without bound (--unsafe-math allows it)", rw_text(ctx, node), rw_text(ctx, d), form);
  if (!s->lhs->tensor) return NULL;
  t.node = NULL;
  t.ref = NULL;
  tainted[s->lhs->tensor->id] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < p->nstmts; i++) {
      const IrStmt *u = p->stmts[i];
      if (u == s || !reads_tainted(&t, u->rhs)) continue;
      if ((d = tainted_divisor(p, u->rhs, &t, rw_ref_dtype(u->lhs))))
        return pass_reason(pc, "'%s' reaches the divisor %s in the statement writing '%s', which is not proved "
                           "positive: %s, which a divisor near zero amplifies without bound (--unsafe-math allows "
                           "it)", s->lhs->name, rw_text(ctx, d), u->lhs->name, form);
      if (u->lhs->tensor && !tainted[u->lhs->tensor->id]) tainted[u->lhs->tensor->id] = grew = true;
    }
  }
  return NULL;
}

/* ------------------------------------------------------------ moderate magnitude */

typedef struct ModSearch {
  const IrProgram *p;
  const char *stack[MP_MAX_DEPTH];
  int depth;
  const char *why;    /* the construct */
  const char *tensor; /* the tensor whose definition has it (NULL: e itself) */
  MpMemo ok;          /* tensors found moderate (a cycle fails, so none across one) */
  IrDType st;         /* the type of the statement being searched */
} ModSearch;

static bool mod_expr(ModSearch *s, const IrExpr *e);
static bool mod_tensor(ModSearch *s, const char *name);

/* A literal larger than this is not moderate (fuzz_passes: y = 1e8 made
   1+y-y exactly 0 in f32). */
#define MP_MODERATE_LITERAL 10000

/* e without parentheses and unary minuses: a literal's node; *neg says
 * whether an odd number of minuses was stripped. */
static const IrExpr *strip_sign(const IrExpr *e, bool *neg) {
  *neg = false;
  while (e->kind == E_PAREN || (e->kind == E_UNARY && e->u.unary.op == OP_NEG)) {
    if (e->kind == E_UNARY) *neg = !*neg;
    e = e->kind == E_PAREN ? e->u.paren : e->u.unary.a;
  }
  return e;
}

static bool literal(const IrExpr *e) {
  bool neg;
  e = strip_sign(e, &neg);
  return e->kind == E_INT || e->kind == E_FLOAT;
}

/* The value of a literal (literal() holds). */
static double literal_value(const IrExpr *e) {
  bool neg;
  e = strip_sign(e, &neg);
  double v = e->kind == E_INT ? (double)e->u.ilit.value : e->u.flit.value;
  return neg ? -v : v;
}

static bool fail(ModSearch *s, const char *why) {
  if (!s->why) s->why = why;
  return false;
}

static bool mod_binary(ModSearch *s, const IrExpr *e) {
  const IrExpr *a = e->u.bin.a, *b = e->u.bin.b;
  switch (e->u.bin.op) {
  case OP_ADD: case OP_SUB: return mod_expr(s, a) && mod_expr(s, b);
  case OP_MUL:
    if (!literal(a) && !literal(b)) return fail(s, "a product of two non-constants");
    return mod_expr(s, a) && mod_expr(s, b);
  case OP_DIV: case OP_FLOORDIV: case OP_MOD:
    if (!literal(b)) return fail(s, "a division by a non-constant");
    if (literal_value(b) == 0) return fail(s, "a division by zero");
    return mod_expr(s, a);
  case OP_POW: return fail(s, "a power");
  default: return true; /* & and |: 0 or 1 */
  }
}

static bool mod_call(ModSearch *s, const IrExpr *e) {
  switch (e->u.call.func) {
  case F_EXP: return fail(s, "exp");
  case F_LOG: return fail(s, "log");
  case F_ERF: /* bounded, but NaN where its argument is: X+y-y is NaN where X alone is not (fuzz_passes finding
                 57: y the shifted erf((A**A+1)**3), NaN at A < 0) */
    return mod_expr(s, e->u.call.args[0]);
  case F_SQRT: /* NaN below 0: X+y-y is NaN where X alone is not (fuzz_passes) */
    if (mp_sign_expr(s->p, e->u.call.args[0], s->st) == SIGN_UNKNOWN)
      return fail(s, "sqrt of a value that may be negative");
    return mod_expr(s, e->u.call.args[0]);
  case F_ITE: return mod_expr(s, e->u.call.args[1]) && mod_expr(s, e->u.call.args[2]);
  default:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!mod_expr(s, e->u.call.args[i])) return false;
    return true;
  }
}

static bool mod_expr(ModSearch *s, const IrExpr *e) {
  switch (e->kind) {
  case E_INT:
    if (e->u.ilit.value > MP_MODERATE_LITERAL || e->u.ilit.value < -MP_MODERATE_LITERAL)
      return fail(s, "a literal above 10000 in magnitude");
    return true;
  case E_FLOAT:
    if (fabs(e->u.flit.value) > MP_MODERATE_LITERAL) return fail(s, "a literal above 10000 in magnitude");
    return true;
  case E_INDEX: case E_CMP: return true;
  case E_INF: return fail(s, "inf");
  case E_PAREN: return mod_expr(s, e->u.paren);
  case E_UNARY: return mod_expr(s, e->u.unary.a);
  case E_BINARY: return mod_binary(s, e);
  case E_CALL: return mod_call(s, e);
  case E_REF: return mod_tensor(s, e->u.ref->name);
  }
  return false;
}

/* `max(T,e)`, `min(T,e)` or their prefix forms
 * `max(if_then_else(c,-inf,T_{..}),e)`: moderate when e is. */
static bool mod_running(ModSearch *s, const IrStmt *st) {
  const IrExpr *e = st->rhs;
  if (e->kind != E_CALL || (e->u.call.func != F_MAX && e->u.call.func != F_MIN) || e->u.call.nargs != 2) return false;
  const IrExpr *a = e->u.call.args[0];
  if (a->kind == E_CALL && a->u.call.func == F_ITE && a->u.call.args[2]->kind == E_REF) {
    const IrExpr *id = a->u.call.args[1];
    if (id->kind == E_UNARY) id = id->u.unary.a;
    if (id->kind != E_INF) return false;
    a = a->u.call.args[2];
  }
  if (a->kind != E_REF || strcmp(a->u.ref->name, st->lhs->name)) return false;
  return mod_expr(s, e->u.call.args[1]);
}

static bool mod_writes(ModSearch *s, const IrNest *n, const char *name, bool *any) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      if (!mod_writes(s, n->items[i].u.nest, name, any)) return false;
      continue;
    }
    const IrStmt *st = n->items[i].u.stmt;
    if (strcmp(st->lhs->name, name)) continue;
    *any = true;
    IrDType outer = s->st;
    s->st = rw_ref_dtype(st->lhs);
    bool ok;
    if (st->self_ref) {
      if (!(ok = mod_running(s, st))) {
        if (!s->why) s->tensor = name;
        fail(s, "a reduction or recurrence");
      }
    } else {
      const char *before = s->why;
      if (!(ok = mod_expr(s, st->rhs)) && !before && !s->tensor) s->tensor = name;
    }
    s->st = outer;
    if (!ok) return false;
  }
  return true;
}

static bool mod_tensor(ModSearch *s, const char *name) {
  const IrTensor *t = ir_find_tensor(s->p, name);
  if (t && (t->role == ROLE_IN || t->role == ROLE_PARAM)) return true;
  for (int i = 0; i < s->depth; i++)
    if (!strcmp(s->stack[i], name)) {
      s->tensor = name;
      return fail(s, "a recurrence");
    }
  if (s->depth == MP_MAX_DEPTH) {
    s->tensor = name;
    return fail(s, "a definition too deep to analyse");
  }
  if (memo_has(&s->ok, name)) return true;
  s->stack[s->depth++] = name;
  bool any = false, ok = true;
  for (int k = 0; k < s->p->nnests && ok; k++) ok = mod_writes(s, s->p->nests[k], name, &any);
  s->depth--;
  if (ok && !any) {
    s->tensor = name;
    return fail(s, "no definition");
  }
  if (ok) memo_put(&s->ok, name, 1);
  return ok;
}

static const char *mod_phrase(PassCtx *pc, const ModSearch *s) {
  if (s->tensor) return pass_reason(pc, "'%s' is computed with %s", s->tensor, s->why);
  return pass_reason(pc, "it uses %s", s->why);
}

const char *mp_immoderate(PassCtx *pc, const IrProgram *p, const IrExpr *e, IrDType st) {
  ModSearch s = {.p = p, .st = st};
  return mod_expr(&s, e) ? NULL : mod_phrase(pc, &s);
}

const char *mp_immoderate_tensor(PassCtx *pc, const IrProgram *p, const char *name) {
  ModSearch s = {.p = p, .st = DT_F32};
  return mod_tensor(&s, name) ? NULL : mod_phrase(pc, &s);
}

/* ------------------------------------------------------------ the max/sum chain */

static const char *max_subscripts(PassCtx *pc, const IrNest *n, MpMax *o) {
  LeirCtx *ctx = pc->ctx;
  const IrRef *m = o->m, *x = o->x;
  if (!mp_simple_subscript(m))
    return pass_reason(pc, "the subscript of '%s' (%s) is not made of distinct loop indices and constants", m->name,
                       rw_sub_text(ctx, m));
  const char *msub = rw_sub_text(ctx, m);
  for (int i = 0; x->nsub == m->nsub + 1 && i < x->nsub; i++) {
    const IrExpr *it = x->sub[i];
    if (it->kind != E_INDEX || rw_loop_pos(n, it->u.index.name) < 0 || rw_ref_mentions(m, it->u.index.name)) continue;
    IrRef rest = *x;
    IrExpr *v[x->nsub];
    for (int j = 0, k = 0; j < x->nsub; j++)
      if (j != i) v[k++] = x->sub[j];
    rest.sub = v;
    rest.nsub = x->nsub - 1;
    if (strcmp(rw_sub_text(ctx, &rest), msub)) continue;
    o->r = it->u.index.name;
    o->ins = i;
    o->rloop = rw_loop_pos(n, o->r);
    o->n = n->loops[o->rloop]->extent;
    return NULL;
  }
  return pass_reason(pc, "the subscript of '%s' (%s) is not that of '%s' (%s) with one reduction index inserted", x->name,
                     rw_sub_text(ctx, x), m->name, msub);
}

/* Elements of the running tensor: M's extents times n. */
static bool running_size_ok(const IrNest *n, const MpMax *o) {
  int64_t e = o->n;
  for (int i = 0; i < o->m->nsub; i++) {
    const IrExpr *it = o->m->sub[i];
    int64_t d = it->kind == E_INT ? it->u.ilit.value + 1 : n->loops[rw_loop_pos(n, it->u.index.name)]->extent;
    if (__builtin_mul_overflow(e, d, &e) || e > IR_MAX_NUMEL) return false;
  }
  return true;
}

const char *mp_match_max(PassCtx *pc, const IrProgram *p, int k, bool strict, MpMax *out) {
  LeirCtx *ctx = pc->ctx;
  const char *why;
  memset(out, 0, sizeof *out);
  out->k = k;
  IrNest *n = rw_top_nest(pc, p, k, &why);
  if (!n) return why;
  IrStmt *s = rw_single_stmt(n);
  if (!s) return pass_reason(pc, "nest %d has %d items; the max nest must hold exactly one statement", k, n->nitems);
  out->s = s;
  out->m = s->lhs;
  const IrExpr *e = s->rhs;
  if (e->kind != E_CALL || e->u.call.func != F_MAX || e->u.call.nargs != 2 || e->u.call.args[0]->kind != E_REF ||
      e->u.call.args[1]->kind != E_REF || !mp_ref_same(ctx, e->u.call.args[0]->u.ref, s->lhs) ||
      !strcmp(e->u.call.args[1]->u.ref->name, s->lhs->name))
    return pass_reason(pc, "the statement of nest %d is not a max reduction 'M=max(M,X)' with X a tensor reference", k);
  out->x = e->u.call.args[1]->u.ref;
  if (s->init != INIT_REDUCE || s->redop != RED_MAX)
    return pass_reason(pc, "'%s' is written before nest %d, so the max has no implicit -inf initialisation (SPEC 9.5)",
                       s->lhs->name, k);
  if ((why = max_subscripts(pc, n, out))) return why;
  const IrLoop *rl = n->loops[out->rloop];
  if (rl->kind != LOOP_L && rl->kind != LOOP_U)
    return pass_reason(pc, "the reduction loop '%s' is a %c loop; a running (prefix) form reads the previous iteration, "
                       "so it must be a serial L or U loop", out->r, ir_loop_kind_char(rl->kind));
  if (s->nred != 1 || strcmp(s->red[0]->index, out->r))
    return pass_reason(pc, "the statement reduces over more than loop '%s'", out->r);
  for (int i = 0; strict && i < n->nloops; i++)
    if (n->loops[i]->extent > 1 && !rw_stmt_mentions(s, n->loops[i]->index))
      return pass_reason(pc, "loop '%s' of nest %d is not used by its statement (a repeated reduction)", n->loops[i]->index,
                         k);
  if (!running_size_ok(n, out))
    return pass_reason(pc, "the running tensor would have more than 2^40 elements");
  return NULL;
}

const char *mp_max_not_float(PassCtx *pc, const MpMax *mx) {
  /* in a u16 statement inf is 65535, negated in max's u32 arithmetic
     4294901761, which wins every max and stores as 1 (fuzz_passes: with
     the maximum at a = 0, 15 became 14) */
  IrDType mt = rw_ref_dtype(mx->m);
  if (ir_dtype_is_float(mt)) return NULL;
  return pass_reason(pc, "'%s' is %s: the prefix form's -inf (at %s = 0) is no identity in an integer type",
                     mx->m->name, ir_dtype_name(mt), mx->r);
}

static bool is_ref_like(LeirCtx *ctx, const IrExpr *e, const IrRef *want) {
  return e->kind == E_REF && mp_ref_same(ctx, e->u.ref, want);
}

/* exp(X-M) with the chain's X and M */
static bool is_exp_x_minus_m(LeirCtx *ctx, const IrExpr *e, const MpMax *mx) {
  if (e->kind != E_CALL || e->u.call.func != F_EXP || e->u.call.nargs != 1) return false;
  const IrExpr *d = e->u.call.args[0];
  return d->kind == E_BINARY && d->u.bin.op == OP_SUB && is_ref_like(ctx, d->u.bin.a, mx->x) &&
         is_ref_like(ctx, d->u.bin.b, mx->m);
}

const char *mp_match_softmax(PassCtx *pc, const IrProgram *p, int k, MpSoftmax *out) {
  LeirCtx *ctx = pc->ctx;
  memset(out, 0, sizeof *out);
  const char *why = mp_match_max(pc, p, k, true, &out->mx);
  if (why || (why = mp_max_not_float(pc, &out->mx))) return why;
  if (k + 1 >= p->nnests) return pass_reason(pc, "nest %d is the last nest: no exp-sum follows the max", k);
  IrNest *n2 = rw_top_nest(pc, p, k + 1, &why);
  if (!n2) return why;
  IrStmt *s = rw_single_stmt(n2);
  if (!s)
    return pass_reason(pc, "nest %d has %d items; the exp-sum nest must hold exactly one statement", k + 1, n2->nitems);
  if (!mp_same_header(p->nests[k], n2))
    return pass_reason(pc, "nests %d and %d have different loops (the fused nest needs identical headers)", k, k + 1);
  const IrExpr *e = s->rhs;
  if (e->kind != E_BINARY || e->u.bin.op != OP_ADD || !is_ref_like(ctx, e->u.bin.a, s->lhs) ||
      !is_exp_x_minus_m(ctx, e->u.bin.b, &out->mx) || !strcmp(s->lhs->name, out->mx.m->name) ||
      !strcmp(s->lhs->name, out->mx.x->name))
    return pass_reason(pc, "the statement of nest %d is not the exp-sum 'S=S+exp(%s-%s)' of the max in nest %d", k + 1,
                       out->mx.x->name, out->mx.m->name, k);
  if (s->init != INIT_REDUCE || s->redop != RED_ADD)
    return pass_reason(pc, "'%s' is written before nest %d, so the sum has no implicit initialisation (SPEC 9.5)",
                       s->lhs->name, k + 1);
  if (strcmp(rw_sub_text(ctx, s->lhs), rw_sub_text(ctx, out->mx.m)))
    return pass_reason(pc, "the sum '%s_{%s}' and the max '%s_{%s}' have different subscripts", s->lhs->name,
                       rw_sub_text(ctx, s->lhs), out->mx.m->name, rw_sub_text(ctx, out->mx.m));
  out->ssum = s;
  out->sref = s->lhs;
  return NULL;
}

bool mp_is_division(LeirCtx *ctx, const IrExpr *e, const MpSoftmax *sm) {
  return e->kind == E_BINARY && e->u.bin.op == OP_DIV && is_exp_x_minus_m(ctx, e->u.bin.a, &sm->mx) &&
         is_ref_like(ctx, e->u.bin.b, sm->sref);
}

static IrStmt *find_div_in(LeirCtx *ctx, const IrNest *n, const MpSoftmax *sm) {
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      IrStmt *s = find_div_in(ctx, n->items[i].u.nest, sm);
      if (s) return s;
    } else if (mp_is_division(ctx, n->items[i].u.stmt->rhs, sm)) {
      return n->items[i].u.stmt;
    }
  }
  return NULL;
}

int mp_find_division(LeirCtx *ctx, const IrProgram *p, int from, const MpSoftmax *sm, IrStmt **out) {
  for (int k = from; k < p->nnests; k++)
    if ((*out = find_div_in(ctx, p->nests[k], sm))) return k;
  *out = NULL;
  return -1;
}

IrRef *mp_running_ref(LeirCtx *ctx, const MpSoftmax *sm, const char *name, IrDType dt, IrScope sc) {
  IrRef *r = rw_ref(ctx, name, dt, sc, sm->mx.m->sub, sm->mx.m->nsub);
  IrExpr *ri = ir_index(ctx, sm->mx.r);
  mp_insert_item(ctx, r, sm->mx.ins, ri);
  return r;
}

IrNest *mp_fused_nest(LeirCtx *ctx, const IrNest *maxnest, const MpSoftmax *sm, const char *gname, IrScope msc,
                      IrScope gsc) {
  IrLoop **loops = arena_alloc(&ctx->arena, sizeof(IrLoop *) * (size_t)maxnest->nloops);
  for (int i = 0; i < maxnest->nloops; i++) loops[i] = rw_loop_clone(ctx, maxnest->loops[i]);
  IrNest *f = ir_nest_new(ctx, maxnest->nloops, loops);
  f->loc = maxnest->loc;
  const IrRef *m = sm->mx.m, *s = sm->sref;
  const char *r = sm->mx.r;
  if (msc == SC_NONE) msc = m->sc_tag;
  if (gsc == SC_NONE) gsc = s->sc_tag;
  /* the running tensors hold M's and S's values: their dtypes (rw_ref_dtype) */
  IrRef *mr = mp_running_ref(ctx, sm, m->name, rw_ref_dtype(m), msc);
  IrRef *gr = mp_running_ref(ctx, sm, gname, rw_ref_dtype(s), gsc);
  IrExpr *x = ir_refexpr(ctx, ir_ref_clone(ctx, sm->mx.x));
  IrStmt *ms = ir_stmt_new(ctx, ir_ref_clone(ctx, mr), mp_call2(ctx, F_MAX, mp_prev(ctx, mr, r, mp_inf(ctx, true)), x));
  /* G = G_prev*exp(M_prev-M) + exp(X-M) */
  IrExpr *rescale = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, mp_prev(ctx, mr, r, mp_inf(ctx, true)),
                                                   ir_refexpr(ctx, ir_ref_clone(ctx, mr))));
  IrExpr *term = mp_call1(ctx, F_EXP, ir_binary(ctx, OP_SUB, ir_refexpr(ctx, ir_ref_clone(ctx, sm->mx.x)),
                                                ir_refexpr(ctx, ir_ref_clone(ctx, mr))));
  IrExpr *g = ir_binary(ctx, OP_ADD, ir_binary(ctx, OP_MUL, mp_prev(ctx, gr, r, ir_int(ctx, 1)), rescale), term);
  IrStmt *gs = ir_stmt_new(ctx, ir_ref_clone(ctx, gr), g);
  ms->loc = sm->mx.s->loc;
  gs->loc = sm->ssum->loc;
  ir_nest_add_item(ctx, f, ITEM_STMT, ms);
  ir_nest_add_item(ctx, f, ITEM_STMT, gs);
  return f;
}

typedef struct Retarget {
  LeirCtx *ctx;
  const MpSoftmax *sm;
  const char *gname;
  IrDType gdt;
  IrScope gsc;
} Retarget;

static void retarget_ref(IrRef *r, void *u) {
  Retarget *t = u;
  bool is_m = !strcmp(r->name, t->sm->mx.m->name);
  bool is_s = t->gname && !strcmp(r->name, t->sm->sref->name);
  if (!is_m && !is_s) return;
  if (is_s) {
    r->name = t->gname;
    r->dt_tag = t->gdt;
    r->sc_tag = t->gsc;
  }
  r->tensor = NULL;
  IrExpr *last = ir_int(t->ctx, t->sm->mx.n - 1);
  mp_insert_item(t->ctx, r, t->sm->mx.ins, last);
}

void mp_retarget_later(LeirCtx *ctx, IrProgram *q, int from, const MpSoftmax *sm, const char *gname, IrDType gdt,
                       IrScope gsc) {
  Retarget t = {ctx, sm, gname, gdt, gsc};
  for (int k = from; k < q->nnests; k++) mp_for_refs(q->nests[k], retarget_ref, &t);
}

static const char *role_word(IrRole r) {
  return r == ROLE_OUT ? "output" : r == ROLE_IN ? "input" : r == ROLE_PARAM ? "parameter" : "intermediate";
}

static const char *check_changing(PassCtx *pc, const IrProgram *p, const char *name, int writer, const char *what) {
  const IrTensor *t = ir_find_tensor(p, name);
  if (t && t->role != ROLE_TMP) return pass_reason(pc, "'%s' is a program %s: %s", name, role_word(t->role), what);
  if (t && t->declared) return pass_reason(pc, "'%s' has a declared shape (%%tmp): %s", name, what);
  int w = mp_other_writer(p, name, writer);
  if (w >= 0) return pass_reason(pc, "'%s' is also written by nest %d", name, w);
  int u = mp_first_use(p, name, 0, writer, true, NULL, 0);
  if (u >= 0) return pass_reason(pc, "'%s' is used in nest %d, before its definition in nest %d", name, u, writer);
  return NULL;
}

const char *mp_check_chain_tensors(PassCtx *pc, const IrProgram *p, const MpSoftmax *sm, bool s_goes) {
  const char *why = check_changing(pc, p, sm->mx.m->name, sm->mx.k, "its rank would change");
  if (why) return why;
  if (s_goes && (why = check_changing(pc, p, sm->sref->name, sm->mx.k + 1, "the rewrite removes it"))) return why;
  const char *inf = mp_may_be_inf(pc, p, sm->mx.x->name);
  if (inf && !pc->ctx->unsafe_math)
    return pass_reason(pc, "'%s' may be -inf (%s): on a row that starts with -inf the running sum computes "
                       "exp(-inf+inf) = NaN (--unsafe-math accepts it)", sm->mx.x->name, inf);
  return NULL;
}

/* ------------------------------------------------------------ splits */

IrStmt *mp_cand_stmt(PassCtx *pc, const IrProgram *p, PassCand *c, const char **why) {
  IrNest *n = rw_cand_nest(pc, p, c, why);
  if (!n) return NULL;
  int64_t i;
  int r = pass_cand_get_int(c, "stmt", &i);
  if (r <= 0) {
    *why = r == 0 ? "missing parameter 'stmt'" : pass_reason(pc, "stmt=%s is not an integer", pass_cand_get(c, "stmt"));
    return NULL;
  }
  if (i < 0 || i >= n->nitems) {
    *why = pass_reason(pc, "nest %d has no statement %lld (it has %d, numbered from 0)", c->nest, (long long)i, n->nitems);
    return NULL;
  }
  if (n->nloops == 0) {
    *why = pass_reason(pc, "nest %d has no loops", c->nest);
    return NULL;
  }
  IrStmt *s = n->items[i].u.stmt;
  c->site = s->loc;
  return s;
}

static bool nest_excluded(LeirCtx *ctx, const IrNest *n, MpSplitKind kind, const char **what) {
  static const char *const ex[] = {"exp", "inf", "_{0}", "if_then_else", "erf", ",0)", "-"};
  SBuf b = {0};
  ir_print_nest(&b, n);
  int m = kind == MP_MUL ? 7 : 5;
  *what = NULL;
  for (int i = 0; i < m && !*what; i++)
    if (strstr(b.s, ex[i])) *what = ex[i];
  sbuf_free(&b);
  (void)ctx;
  return *what != NULL;
}

/* Does y use every index of the statement's left side (and, for a scalar
 * left side, not tx)? */
static const char *covers_output(PassCtx *pc, const IrStmt *s, const IrRef *y, const char *yname) {
  const char *names[64];
  int n = rw_names_in_ref(s->lhs, names, 64);
  for (int i = 0; i < n; i++)
    if (!rw_ref_mentions(y, names[i]))
      return pass_reason(pc, "%s does not use index '%s' of the left side '%s'", yname, names[i], s->lhs->name);
  if (s->lhs->nsub == 0 && rw_ref_mentions(y, "tx"))
    return pass_reason(pc, "%s uses 'tx' while the left side '%s' is a scalar", yname, s->lhs->name);
  return NULL;
}

/* A reason if y names an index the statement s does not mention while s
 * is an implicitly initialised reduction, else NULL. */
static const char *keeps_reduction_indices(PassCtx *pc, const IrStmt *s, const IrRef *y, const char *yname) {
  if (s->init != INIT_REDUCE) return NULL;
  const char *names[64];
  int n = rw_names_in_ref(y, names, 64);
  for (int i = 0; i < n; i++)
    if (!rw_stmt_mentions(s, names[i]))
      return pass_reason(pc, "%s uses index '%s', which the statement does not mention: it would become a reduction "
                         "index of '%s' (SPEC 9.5)", yname, names[i], s->lhs->name);
  return NULL;
}

/* The left sides of earlier nests with nest k's header: into refs[] /
 * from[] (nest index); the names written by excluded ones into bad[]. */
typedef struct YScan {
  const IrRef *refs[128];
  int from[128];
  int n;
  const char *bad[128];
  int badnest[128];
  const char *badwhat[128];
  int nbad;
} YScan;

static void scan_ys(PassCtx *pc, const IrProgram *p, int k, MpSplitKind kind, YScan *ys) {
  ys->n = ys->nbad = 0;
  for (int j = 0; j < k; j++) {
    const IrNest *n = p->nests[j];
    if (mp_has_nested(n) || !mp_same_header(n, p->nests[k])) continue;
    const char *what;
    bool ex = nest_excluded(pc->ctx, n, kind, &what);
    for (int i = 0; i < n->nitems; i++) {
      const IrRef *l = n->items[i].u.stmt->lhs;
      if (ex && ys->nbad < 128) {
        ys->badnest[ys->nbad] = j;
        ys->badwhat[ys->nbad] = what;
        ys->bad[ys->nbad++] = l->name;
      } else if (!ex && ys->n < 128) {
        ys->from[ys->n] = j;
        ys->refs[ys->n++] = l;
      }
    }
  }
}

static int bad_index(const YScan *ys, const char *name) {
  for (int i = 0; i < ys->nbad; i++)
    if (!strcmp(ys->bad[i], name)) return i;
  return -1;
}

/* if_then_else(k-1<0,identity,X_{..,k-1}) for the last item k of X (REF
 * subtracts 1 from the item's text, compound items too: d*3+g-1). */
static IrExpr *shift_y(LeirCtx *ctx, const IrRef *x, MpSplitKind kind) {
  const IrExpr *item = x->sub[x->nsub - 1];
  IrRef *prev = ir_ref_clone(ctx, x);
  prev->sub[prev->nsub - 1] = ir_binary(ctx, OP_SUB, ir_expr_clone(ctx, item), ir_int(ctx, 1));
  IrExpr *cond = mp_cmp(ctx, ir_binary(ctx, OP_SUB, ir_expr_clone(ctx, item), ir_int(ctx, 1)), OP_LT, ir_int(ctx, 0));
  return mp_ite(ctx, cond, ir_int(ctx, kind == MP_MUL ? 1 : 0), ir_refexpr(ctx, prev));
}

/* The last item of x as a shift axis: it uses a loop of n and reads no
 * tensor. */
static bool shiftable(const IrNest *n, const IrRef *x) {
  if (!x || !x->nsub) return false;
  const IrExpr *last = x->sub[x->nsub - 1];
  IrRef probe = *x;
  probe.sub = (IrExpr **)&last;
  probe.nsub = 1;
  if (rw_ref_has_nested_ref(&probe)) return false;
  const char *names[16];
  int k = rw_names_in_expr(last, names, 16);
  for (int i = 0; i < k; i++)
    if (rw_loop_pos(n, names[i]) >= 0) return true;
  return false;
}

/* exp(x-y)*exp(y) overflows, X+y-y cancels and X/y*y overflows when y is
 * huge. */
static const char *check_moderate(PassCtx *pc, const IrProgram *p, MpSplitKind kind, const char *spell, const char *name) {
  if (pc->ctx->unsafe_math) return NULL;
  const char *im = mp_immoderate_tensor(pc, p, name);
  if (!im) return NULL;
  return pass_reason(pc, "y=%s: %s, so y may be huge or NaN and %s (--unsafe-math accepts it)", spell, im,
                     kind == MP_EXP   ? "exp(x-y) or exp(y) may overflow"
                     : kind == MP_ADD ? "X+y-y may cancel X"
                                      : "X/y*y may overflow (inf/inf is NaN)");
}

static const char *check_shift(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x,
                               MpSplitKind kind) {
  if (!x) return "y=shift needs a tensor to shift";
  const IrNest *n = p->nests[k];
  if (!shiftable(n, x))
    return pass_reason(pc, "y=shift: the last subscript item of '%s' does not use a loop of nest %d", x->name, k);
  if (mp_writes(n, x->name))
    return pass_reason(pc, "y=shift: '%s' is written in nest %d, so its previous element may not be defined", x->name, k);
  const IrTensor *t = ir_find_tensor(p, x->name);
  if (t && t->dtype == DT_BOOL) return pass_reason(pc, "y=shift: '%s' is a bool tensor", x->name);
  const char *why = covers_output(pc, s, x, "y=shift");
  if (why) return why;
  const char *inf = mp_may_be_inf(pc, p, x->name);
  if (inf) return pass_reason(pc, "y=shift: '%s' may be infinite (%s), and inf-inf is NaN", x->name, inf);
  if (kind == MP_MUL && !pc->ctx->unsafe_math && !mp_positive_tensor(p, x->name))
    return pass_reason(pc, "y=shift: '%s' is not provably nonzero, so X/y*y may divide by zero (--unsafe-math accepts it)",
                       x->name);
  return check_moderate(pc, p, kind, "shift", x->name);
}

/* The distinct left-side refs named `name` in earlier nests with nest k's
 * loops (excluded ones too), in text order; their nests into from[]. */
static int named_refs(const IrProgram *p, int k, const char *name, const IrRef **refs, int *from, int max) {
  int n = 0;
  for (int j = 0; j < k; j++) {
    const IrNest *nj = p->nests[j];
    if (mp_has_nested(nj) || !mp_same_header(nj, p->nests[k])) continue;
    for (int i = 0; i < nj->nitems && n < max; i++) {
      const IrRef *l = nj->items[i].u.stmt->lhs;
      bool dup = strcmp(l->name, name) != 0;
      for (int m = 0; m < n && !dup; m++) dup = mp_ref_same(NULL, refs[m], l);
      if (!dup) {
        from[n] = j;
        refs[n++] = l;
      }
    }
  }
  return n;
}

/* "D" or "D.1" (the second distinct ref of D): the name and the index
 * (-1 without one). */
static const char *parse_named(PassCtx *pc, const char *spell, int *idx) {
  const char *dot = strchr(spell, '.');
  *idx = -1;
  if (!dot) return spell;
  char *end;
  long v = strtol(dot + 1, &end, 10);
  *idx = *end || end == dot + 1 || v < 0 || v > 100000 ? -2 : (int)v;
  return arena_strndup(&pc->ctx->arena, spell, (size_t)(dot - spell));
}

static const char *check_named(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, MpSplitKind kind,
                               const char *spell, const IrRef **out) {
  int idx;
  const char *name = parse_named(pc, spell, &idx);
  if (idx == -2) return pass_reason(pc, "y=%s: expected a tensor name, NAME.INDEX or shift", spell);
  const IrRef *refs[64];
  int from[64];
  int n = named_refs(p, k, name, refs, from, 64);
  if (n == 0) return pass_reason(pc, "y=%s: no earlier nest with the loops of nest %d writes '%s'", spell, k, name);
  if (idx == -1 && n > 1)
    return pass_reason(pc,
                       "y=%s is ambiguous: nests with the loops of nest %d write %d refs of '%s' (%s_{%s}, %s_{%s}, ...); "
                       "spell y=%s.0 to y=%s.%d", spell, k, n, name, name, rw_sub_text(pc->ctx, refs[0]), name,
                       rw_sub_text(pc->ctx, refs[1]), name, name, n - 1);
  if (idx >= n)
    return pass_reason(pc, "y=%s is out of range: those nests write %d distinct ref%s of '%s'", spell, n, n == 1 ? "" : "s",
                       name);
  const IrRef *y = refs[idx < 0 ? 0 : idx];
  YScan *ys = arena_alloc(&pc->ctx->arena, sizeof *ys);
  scan_ys(pc, p, k, kind, ys);
  int b = bad_index(ys, name);
  if (b >= 0)
    return pass_reason(pc, "y=%s: '%s' is written by nest %d, whose text contains '%s' (excluded as in the reference)",
                       spell, name, ys->badnest[b], ys->badwhat[b]);
  const char *yname = pass_reason(pc, "y=%s", spell);
  const char *why = covers_output(pc, s, y, yname);
  if (why) return why;
  /* an index y brings into an initialised reduction becomes one of its
     reduction indices (SPEC 9.5 rule 3): `D=D+E_{tx,2}` in a loop over a
     re-initialises D at every a; with y=E_{tx,a} it sums over a (fuzz) */
  if ((why = keeps_reduction_indices(pc, s, y, yname))) return why;
  const IrTensor *t = ir_find_tensor(p, name);
  if (t && t->dtype == DT_BOOL) return pass_reason(pc, "y=%s: '%s' is a bool tensor", spell, name);
  const char *inf = mp_may_be_inf(pc, p, name);
  if (inf) return pass_reason(pc, "y=%s: '%s' may be infinite (%s), and inf-inf is NaN", spell, name, inf);
  if (kind == MP_MUL && !pc->ctx->unsafe_math && !mp_positive_tensor(p, name))
    return pass_reason(pc, "y=%s: '%s' is not provably nonzero, so X/y*y may divide by zero (--unsafe-math accepts it)",
                       spell, name);
  if ((why = check_moderate(pc, p, kind, spell, name))) return why;
  *out = y;
  return NULL;
}

int mp_split_ys(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                const char **out, int max) {
  (void)s;
  int n = 0;
  if (x && n < max) out[n++] = "shift";
  YScan *ys = arena_alloc(&pc->ctx->arena, sizeof *ys);
  scan_ys(pc, p, k, kind, ys);
  for (int i = 0; i < ys->n && n < max; i++) {
    const char *name = ys->refs[i]->name;
    const IrRef *refs[64];
    int from[64];
    int nr = named_refs(p, k, name, refs, from, 64), which = 0;
    for (int m = 0; m < nr; m++)
      if (mp_ref_same(NULL, refs[m], ys->refs[i])) which = m;
    const char *sp = nr > 1 ? pass_reason(pc, "%s.%d", name, which) : name;
    bool dup = false;
    for (int j = 0; j < n; j++) dup |= !strcmp(out[j], sp);
    if (!dup) out[n++] = sp;
  }
  return n;
}

const char *mp_split_y(PassCtx *pc, const IrProgram *p, int k, const IrStmt *s, const IrRef *x, MpSplitKind kind,
                       const char *spell) {
  if (!strcmp(spell, "shift")) return check_shift(pc, p, k, s, x, kind);
  const IrRef *r = NULL;
  return check_named(pc, p, k, s, kind, spell, &r);
}

const IrTensor *mp_split_y_tensor(PassCtx *pc, const IrProgram *p, const char *spell) {
  if (!strcmp(spell, "shift")) return NULL;
  int idx;
  return ir_find_tensor(p, parse_named(pc, spell, &idx));
}

IrExpr *mp_split_y_expr(PassCtx *pc, const IrProgram *p, int k, const IrRef *x, MpSplitKind kind, const char *spell) {
  LeirCtx *ctx = pc->ctx;
  if (!strcmp(spell, "shift")) {
    return x && x->nsub ? shift_y(ctx, x, kind) : NULL;
  }
  /* excluded nests included: the rewrite does not re-check */
  int idx;
  const char *name = parse_named(pc, spell, &idx);
  const IrRef *refs[64];
  int from[64];
  int n = named_refs(p, k, name, refs, from, 64);
  if (idx == -2 || idx >= n || n == 0) return NULL;
  return ir_refexpr(ctx, ir_ref_clone(ctx, refs[idx < 0 ? 0 : idx]));
}

void mp_neighbours(LeirCtx *ctx, IrExpr *root, IrExpr *target, char *before, char *after) {
  IrExpr saved = *target;
  target->kind = E_INDEX;
  target->u.index.name = "\x01";
  target->u.index.loop = NULL;
  SBuf b = {0};
  ir_print_expr(&b, root);
  *target = saved;
  const char *at = b.s ? strchr(b.s, '\x01') : NULL;
  *before = at && at > b.s ? at[-1] : 0;
  *after = at ? at[1] : 0;
  sbuf_free(&b);
  (void)ctx;
}
