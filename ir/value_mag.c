/* value_mag.c -- the value analysis (see value.h): magnitude relative to the
 * inputs.  An interval alone cannot say that a value is "of the order of
 * the inputs": an input's hull is the whole of its type, yet X+Y, max(X,Y)
 * and 3*X are no bigger than the inputs make them, X*Y and exp(X) may be
 * far bigger, and 1/X or exp(X*Y) may be infinite.  The strategies need
 * exactly this: a split X+y-y cancels X where y is huge, exp(x-y)*exp(y)
 * overflows where y is, and the algebra's common denominators make
 * inf/inf = NaN of a divisor that may be infinite.
 *
 * Each side of a value (how far above 0, how far below 0) has a class,
 * IR_MAG_CONST < ... < IR_MAG_ANY by looseness (value.h), for ordinary
 * inputs: finite, of moderate size, generic.  The classes are joined with
 * what the interval proves (a hull within 10^4 is CONST whatever the
 * operations: exp(-|x|), x/(1+|x|) divided out by the interval...), so they
 * are never looser than the interval says.  The rules (sides swap under a
 * negation; "loosest" is the loosest side of an operand):
 *   a+b, a-b   each side: the looser of the operands' sides (CONST+CONST
 *              is LINEAR); NaN where +inf meets -inf
 *   a*b        a CONST factor keeps the other's loosest class (CONST*CONST:
 *              LINEAR); else FINITE at least; NaN where inf may meet 0
 *   a/b // %   a divisor bounded away from 0 (a nonzero constant, or
 *              |b| >= 10^-4) keeps a's loosest class; else ANY (NaN: 0/0)
 *   a**k       k = 0: CONST; k = 1: a; a constant 0 < k <= 8: FINITE at
 *              least (a's ANY stays); else ANY; NaN for a non-integer k
 *              of a base that may be negative
 *   exp(a)     above: FINITE when a's upper side is LINEAR or tighter, else
 *              ANY; below: CONST (>= 0)
 *   log(a)     above: CONST (<= 710) unless a's upper side is ANY; below:
 *              CONST when a is positive as computed (>= -745), else ANY;
 *              NaN where a may be negative
 *   sqrt(a)    above: a's upper class; below CONST; NaN where a may be < 0
 *   abs(a)     above: a's loosest; below CONST.  erf(a): CONST
 *   max(a,b)   above: the looser; below: the tighter (NaN operands ignored:
 *              the looser when one may be NaN).  min: mirrored
 *   conversions: to an integer type saturate (ANY becomes FINITE, no NaN);
 *              otherwise the classes stay.
 * mag_scaled (not far below the inputs' scale): inputs, constants, integers,
 * and +, -, *, max, min, abs, sqrt, erf, small powers of such; a quotient
 * of such by a divisor no bigger than LINEAR; not exp or log (exp(-10),
 * log(1.0001)), unless the interval proves |v| >= 10^-4.
 * Literals, index values (LINEAR at worst), comparisons, inputs (LINEAR)
 * are set where they are built (value.c, value_expr.c); a recurrence that
 * may grow with its trip count is capped at FINITE by the fixed point
 * (value_program.c). */
#include "ir/value_mag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int looser(int a, int b) { return a < b ? a : b; }
static int tighter(int a, int b) { return a > b ? a : b; }

/* The class the interval proves for the side above 0 (up) or below. */
static int side_of_interval(IrValue v, bool up) {
  double b = up ? v.hi : -v.lo;
  if (b <= IR_MAG_CONST_BOUND) return IR_MAG_CONST;
  if (b < INFINITY || !v.may_inf) return IR_MAG_FINITE;
  return IR_MAG_ANY;
}

/* Does the interval prove v not far below the inputs' scale: an integer
   (a nonzero one is >= 1), one constant, or |v| >= 10^-4 (0 aside: a zero is
   exact)? */
static bool scaled_by_interval(IrValue v) {
  if (v.integral || v.lo == v.hi || v.lo > v.hi) return true;
  double m = v.lo > 0 ? v.lo : v.hi < 0 ? -v.hi : 0;
  return m >= 1 / IR_MAG_CONST_BOUND;
}

IrValue ir_value_mag_reset(IrValue v) {
  if (v.bottom) return v;
  v.mag_hi = (uint8_t)side_of_interval(v, true);
  v.mag_lo = (uint8_t)side_of_interval(v, false);
  v.mag_num = !v.may_nan;
  v.mag_scaled = scaled_by_interval(v);
  return v;
}

IrValue ir_value_mag_fit(IrValue v) {
  if (v.bottom) return v;
  v.mag_hi = (uint8_t)tighter(v.mag_hi, side_of_interval(v, true));
  v.mag_lo = (uint8_t)tighter(v.mag_lo, side_of_interval(v, false));
  v.mag_num = v.mag_num || !v.may_nan;
  v.mag_scaled = v.mag_scaled || scaled_by_interval(v);
  return v;
}

IrValue ir_value_mag_cap(IrValue v, int c) {
  if (v.bottom) return v;
  v.mag_hi = (uint8_t)looser(v.mag_hi, c);
  v.mag_lo = (uint8_t)looser(v.mag_lo, c);
  return ir_value_mag_fit(v);
}

bool ir_value_moderate(IrValue v) {
  return v.bottom || (v.mag_hi >= IR_MAG_LINEAR && v.mag_lo >= IR_MAG_LINEAR && v.mag_num && v.mag_scaled);
}

bool ir_value_may_inf_ordinary(IrValue v) { return !v.bottom && (v.mag_hi == IR_MAG_ANY || v.mag_lo == IR_MAG_ANY); }

/* r with sides hi, lo, num and scaled, then what its interval proves. */
static IrValue set(IrValue r, int hi, int lo, bool num, bool scaled) {
  if (r.bottom) return r;
  r.mag_hi = (uint8_t)hi;
  r.mag_lo = (uint8_t)lo;
  r.mag_num = num;
  r.mag_scaled = scaled;
  return ir_value_mag_fit(r);
}

static bool both(IrValue a, IrValue b) { return a.mag_scaled && b.mag_scaled; }

static int loosest(IrValue a) { return looser(a.mag_hi, a.mag_lo); }

IrValue vm_neg(IrValue r, IrValue a) { return set(r, a.mag_lo, a.mag_hi, a.mag_num, a.mag_scaled); }

/* One side of a sum. */
static int sum_side(int a, int b) {
  int c = looser(a, b);
  return c == IR_MAG_CONST ? IR_MAG_LINEAR : c;
}

IrValue vm_add(IrValue r, IrValue a, IrValue b, bool sub) {
  int bhi = sub ? b.mag_lo : b.mag_hi, blo = sub ? b.mag_hi : b.mag_lo;
  bool num = a.mag_num && b.mag_num && !(a.mag_hi == IR_MAG_ANY && blo == IR_MAG_ANY) &&
             !(a.mag_lo == IR_MAG_ANY && bhi == IR_MAG_ANY);
  return set(r, sum_side(a.mag_hi, bhi), sum_side(a.mag_lo, blo), num, both(a, b));
}

IrValue vm_mul(IrValue r, IrValue a, IrValue b) {
  int ma = loosest(a), mb = loosest(b), c;
  if (ma == IR_MAG_CONST && mb == IR_MAG_CONST) c = IR_MAG_LINEAR;
  else if (ma == IR_MAG_CONST) c = mb;
  else if (mb == IR_MAG_CONST) c = ma;
  else c = looser(IR_MAG_FINITE, looser(ma, mb));
  bool num = a.mag_num && b.mag_num && ma != IR_MAG_ANY && mb != IR_MAG_ANY;
  return set(r, c, c, num, both(a, b));
}

/* Bounded away from 0: a nonzero constant, or |b| >= 10^-4 (NaN aside: a
   NaN divisor makes a NaN, not an infinity). */
static bool away_from_zero(IrValue b) {
  if (b.bottom || b.may_zero) return false;
  if (b.lo == b.hi) return isfinite(b.lo) && b.lo != 0;
  double m = b.lo > 0 ? b.lo : b.hi < 0 ? -b.hi : 0;
  return m >= 1 / IR_MAG_CONST_BOUND;
}

IrValue vm_div(IrValue r, IrValue a, IrValue b) {
  bool away = away_from_zero(b);
  int c = away ? loosest(a) : IR_MAG_ANY;
  bool num = a.mag_num && b.mag_num && (away || !a.may_zero) && !(loosest(a) == IR_MAG_ANY && loosest(b) == IR_MAG_ANY);
  /* a divisor that may be larger than the inputs makes the quotient small */
  return set(r, c, c, num, both(a, b) && loosest(b) >= IR_MAG_LINEAR);
}

IrValue vm_pow(IrValue r, IrValue a, IrValue b) {
  bool kconst = !b.bottom && !b.may_nan && !b.may_inf && b.lo == b.hi;
  double k = b.lo;
  bool integer = kconst && k == floor(k);
  bool num = a.mag_num && b.mag_num && (integer || a.lo >= 0);
  if (kconst && k == 0) return set(r, IR_MAG_CONST, IR_MAG_CONST, true, true);
  if (kconst && k == 1) return set(r, a.mag_hi, a.mag_lo, a.mag_num, a.mag_scaled);
  int c = IR_MAG_ANY;
  if (kconst && k > 0 && k <= 8) c = looser(IR_MAG_FINITE, loosest(a));
  return set(r, c, c, num, kconst && k > 0 && k <= 8 && a.mag_scaled);
}

IrValue vm_call(IrValue r, IrFunc f, IrValue a) {
  switch (f) {
  /* exp(-x) and log near 1 may be far below the inputs' scale: scaled only
     where the interval proves it */
  case F_EXP: return set(r, a.mag_hi >= IR_MAG_LINEAR ? IR_MAG_FINITE : IR_MAG_ANY, IR_MAG_CONST, a.mag_num, false);
  case F_LOG: {
    bool pos = a.lo >= 0 && !a.may_zero;
    return set(r, a.mag_hi == IR_MAG_ANY ? IR_MAG_ANY : IR_MAG_CONST, pos ? IR_MAG_CONST : IR_MAG_ANY,
               a.mag_num && a.lo >= 0, false);
  }
  case F_SQRT: return set(r, a.mag_hi, IR_MAG_CONST, a.mag_num && a.lo >= 0, a.mag_scaled);
  case F_ABS: return set(r, loosest(a), IR_MAG_CONST, a.mag_num, a.mag_scaled);
  case F_ERF: return set(r, IR_MAG_CONST, IR_MAG_CONST, a.mag_num, a.mag_scaled);
  default: return set(r, IR_MAG_ANY, IR_MAG_ANY, false, false);
  }
}

IrValue vm_minmax(IrValue r, IrValue a, IrValue b, bool max) {
  bool nums = a.mag_num && b.mag_num;
  int up, down;
  if (max) {
    up = looser(a.mag_hi, b.mag_hi);
    down = nums ? tighter(a.mag_lo, b.mag_lo) : looser(a.mag_lo, b.mag_lo);
  } else {
    down = looser(a.mag_lo, b.mag_lo);
    up = nums ? tighter(a.mag_hi, b.mag_hi) : looser(a.mag_hi, b.mag_hi);
  }
  return set(r, up, down, a.mag_num || b.mag_num, both(a, b));
}

IrValue vm_convert(IrValue r, IrValue a, IrDType to) {
  if (to == DT_NONE || ir_dtype_is_float(to)) return set(r, a.mag_hi, a.mag_lo, a.mag_num, a.mag_scaled);
  if (to == DT_BOOL) return set(r, IR_MAG_CONST, IR_MAG_CONST, true, true);
  /* an integer type: saturates (float -> integer) or wraps (the interval
     then says what it can); an integer is never a tiny nonzero */
  int hi = a.mag_hi == IR_MAG_ANY ? IR_MAG_FINITE : a.mag_hi, lo = a.mag_lo == IR_MAG_ANY ? IR_MAG_FINITE : a.mag_lo;
  if (a.integral && a.iok && r.inexact && !a.inexact) hi = lo = IR_MAG_FINITE; /* it wrapped */
  return set(r, hi, lo, true, true);
}

/* ------------------------------------------------------------ recurrences */

/* The reads of computed tensors by the statements writing each tensor: an
   edge writer -> read (a read of itself aside), counted, then stored. */
typedef struct Edges {
  const IrProgram *p;
  int from;
  int *count; /* by tensor: out-degree, then the fill position */
  int *to;    /* NULL while counting */
} Edges;

static void edge(IrExpr *e, void *u) {
  Edges *g = u;
  if (e->kind != E_REF) return;
  const IrTensor *t = ir_value_ref_tensor(g->p, e->u.ref);
  if (!t || t->id == g->from || t->id < 0 || t->id >= g->p->ntensors || t->role == ROLE_IN || t->role == ROLE_PARAM)
    return;
  if (g->to) g->to[g->count[g->from]++] = t->id;
  else g->count[g->from]++;
}

static void all_edges(const IrProgram *p, Edges *g) {
  for (int i = 0; i < p->nstmts; i++) {
    const IrTensor *t = p->stmts[i]->lhs->tensor;
    if (!t || t->id < 0 || t->id >= p->ntensors) continue;
    g->from = t->id;
    ir_walk_expr(p->stmts[i]->rhs, edge, g);
  }
}

/* Tarjan's strongly connected components, iteratively, in time linear in
   the reads: a tensor is on a cycle when its component has another. */
bool *ir_value_cycles(const IrProgram *p) {
  size_t n = (size_t)(p->ntensors ? p->ntensors : 1);
  int *deg = calloc(n + 1, sizeof *deg), *start = calloc(n + 1, sizeof *start);
  bool *in = calloc(n, sizeof *in);
  if (!deg || !start || !in) {
    free(deg), free(start), free(in);
    return NULL;
  }
  Edges g = {p, 0, deg, NULL};
  all_edges(p, &g);
  for (size_t i = 0; i < n; i++) start[i + 1] = start[i] + deg[i];
  int *to = malloc(sizeof *to * (size_t)(start[n] ? start[n] : 1));
  int *index = malloc(n * sizeof *index), *low = malloc(n * sizeof *low), *stack = malloc(n * sizeof *stack);
  int *call = malloc(n * sizeof *call), *next = malloc(n * sizeof *next);
  bool *onstack = calloc(n, sizeof *onstack);
  if (!to || !index || !low || !stack || !call || !next || !onstack) {
    free(deg), free(start), free(in), free(to), free(index), free(low), free(stack), free(call), free(next), free(onstack);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) deg[i] = start[i];
  g.to = to;
  all_edges(p, &g);
  for (size_t i = 0; i < n; i++) index[i] = -1;
  int counter = 0, sp = 0;
  for (int root = 0; root < p->ntensors; root++) {
    if (index[root] >= 0) continue;
    int depth = 0;
    call[depth] = root;
    next[root] = start[root];
    index[root] = low[root] = counter++;
    stack[sp++] = root, onstack[root] = true;
    while (depth >= 0) {
      int v = call[depth];
      if (next[v] < start[v + 1]) {
        int w = to[next[v]++];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack[sp++] = w, onstack[w] = true;
          next[w] = start[w];
          call[++depth] = w;
        } else if (onstack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      if (low[v] == index[v]) { /* v roots a component: pop it */
        int size = 0, first = sp;
        do first--, size++; while (stack[first] != v);
        for (int k = first; k < sp; k++) {
          onstack[stack[k]] = false;
          in[stack[k]] = size > 1;
        }
        sp = first;
      }
      depth--;
      if (depth >= 0 && low[v] < low[call[depth]]) low[call[depth]] = low[v];
    }
  }
  free(deg), free(start), free(to), free(index), free(low), free(stack), free(call), free(next), free(onstack);
  return in;
}

typedef struct Mentions {
  const IrRef *self;
  bool found;
} Mentions;

static void mention(IrExpr *e, void *u) {
  Mentions *m = u;
  if (e->kind == E_REF && !strcmp(e->u.ref->name, m->self->name)) m->found = true;
}

static bool mentions(const IrExpr *e, const IrRef *self) {
  Mentions m = {self, false};
  ir_walk_expr((IrExpr *)e, mention, &m);
  return m.found;
}

/* Every read of self in e reaches e through parentheses, max, min and
   if_then_else branches only. */
static bool running(const IrExpr *e, const IrRef *self) {
  switch (e->kind) {
  case E_REF:
    if (strcmp(e->u.ref->name, self->name)) return true;
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (mentions(e->u.ref->sub[i], self)) return false;
    return true;
  case E_PAREN: return running(e->u.paren, self);
  case E_CALL:
    if (e->u.call.func == F_MAX || e->u.call.func == F_MIN) {
      for (int i = 0; i < e->u.call.nargs; i++)
        if (!running(e->u.call.args[i], self)) return false;
      return true;
    }
    if (e->u.call.func == F_ITE && e->u.call.nargs == 3)
      return !mentions(e->u.call.args[0], self) && running(e->u.call.args[1], self) && running(e->u.call.args[2], self);
    return !mentions(e, self);
  default: return !mentions(e, self);
  }
}

bool ir_value_running_minmax(const IrStmt *s) { return running(s->rhs, s->lhs); }

/* ------------------------------------------------------------ where a property is lost */

static bool has(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st, bool (*ok)(IrValue v)) {
  return ok(ir_value_in(vp, p, e, st));
}

/* From a node lacking ok, down through the first operand lacking it, to a
   node whose operands all have it (an operand that recovers the property,
   exp(-x) inside 1/(1+exp(-x)), is not where it is lost). */
const IrExpr *ir_value_lost_at(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st,
                               bool (*ok)(IrValue v)) {
  if (has(vp, p, e, st, ok)) return NULL;
  for (;;) {
    const IrExpr *next = NULL;
    switch (e->kind) {
    case E_PAREN: next = e->u.paren; break;
    case E_UNARY: next = e->u.unary.a; break;
    case E_BINARY:
      if (!has(vp, p, e->u.bin.a, st, ok)) next = e->u.bin.a;
      else if (!has(vp, p, e->u.bin.b, st, ok)) next = e->u.bin.b;
      break;
    case E_CALL:
      for (int i = e->u.call.func == F_ITE ? 1 : 0; i < e->u.call.nargs && !next; i++)
        if (!has(vp, p, e->u.call.args[i], st, ok)) next = e->u.call.args[i];
      break;
    default: break; /* leaves: literals, indices, reads, comparisons */
    }
    if (!next || (e->kind == E_UNARY && has(vp, p, next, st, ok))) return e;
    e = next;
  }
}
