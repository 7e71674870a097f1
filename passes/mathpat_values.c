/* mathpat_values.c -- the value questions of the non-symbolic math
 * strategies (mathpat.h): may a tensor or expression be infinite, may a
 * divisor be, is a value positive, does a split reach a divisor, is a value
 * of moderate magnitude.  Moved out of mathpat.c (issue 39) unchanged. */
#include "passes/mathpat.h"

#include "passes/alg.h"
#include "passes/rewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
