/* value.h -- the value analysis (issue 39): one abstract value per
 * expression -- an integer or real interval, sign, may-be-zero,
 * may-be-NaN, may-be-infinite and whether the arithmetic of the type was
 * exact on the way (no integer wrap, no float overflow) -- with a transfer
 * function for every operator, function and conversion of SPEC §5, the
 * literal typing of §5.4, the guards of if_then_else, and a least fixed
 * point over the program's writes (reductions included).
 *
 * The domain.  `lo`..`hi` is the hull of the values other than NaN, in the
 * extended reals; an infinite bound means "unbounded" unless may_inf says
 * that an infinity itself can occur.  An integral value (`integral`) whose
 * hull fits int64 also has exact int64 bounds (`iok`, ilo..ihi; then lo and
 * hi are those bounds converted to double, which keeps their signs).
 * may_zero is false only when 0 is proven absent (it may be inside the
 * hull: x*x for x != 0).  `inexact` is set when some operation on the way
 * may have wrapped (integer) or overflowed to infinity (float); the value
 * is still a sound description of what the program computes.
 *
 * No global state; nothing printed; every function total. */
#ifndef LEIR_IR_VALUE_H
#define LEIR_IR_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct IrValue {
  bool bottom;     /* no value at all (unreachable, or not computed yet) */
  bool integral;   /* every value is an integer */
  bool iok;        /* ilo..ihi hold (integral only) */
  int64_t ilo, ihi;
  double lo, hi;   /* hull of the non-NaN values */
  bool may_zero, may_nan, may_inf;
  bool inexact;    /* an integer op may have wrapped / a float op overflowed */
  /* Magnitude relative to the inputs (value_mag.c): how far above 0
   * (mag_hi) and below 0 (mag_lo) the value may go when the inputs are
   * ordinary (finite, of moderate size, generic), one of IR_MAG_*, the
   * tighter the larger; mag_num: no NaN for ordinary inputs.  A value
   * whose fields are all 0 is the loosest (anything, NaN included). */
  uint8_t mag_hi, mag_lo;
  bool mag_num;
  /* mag_scaled: not far below the inputs' scale either (nonzero values
   * generically >= 10^-4 of it: inputs, constants, integers, sums and
   * products of such; not exp, log, a quotient by what may be larger than
   * the inputs).  X+y-y keeps X only to an ulp of y, X/y*y likewise. */
  bool mag_scaled;
} IrValue;

/* Magnitude classes, loosest first.  ANY: may be infinite (inf, a division
 * by what may be 0, exp of what is not moderate, a power above 8).
 * FINITE: finite for ordinary inputs, but may be far beyond them (products
 * of non-constants, exp of a moderate value, reductions, literals above
 * 10^4).  LINEAR: of the order of the inputs (|x| <= a*|inputs| + b: the
 * inputs, index values, sums and max/min of such, products and quotients
 * by constants).  CONST: |x| <= IR_MAG_CONST_BOUND whatever the inputs. */
enum { IR_MAG_ANY = 0, IR_MAG_FINITE = 1, IR_MAG_LINEAR = 2, IR_MAG_CONST = 3 };
#define IR_MAG_CONST_BOUND 10000.0

/* ---- constructors and queries (a constructed value's magnitude is what
 * its interval proves: IR_MAG_CONST within IR_MAG_CONST_BOUND, FINITE when
 * no infinity can occur) */
IrValue ir_value_bottom(void);
IrValue ir_value_top(void);                        /* any real, NaN, ±inf */
IrValue ir_value_int(int64_t lo, int64_t hi);      /* lo <= hi */
IrValue ir_value_real(double lo, double hi);       /* finite non-NaN reals */
IrValue ir_value_const(double v);                  /* one value (NaN, ±inf included) */
/* Every value of dtype t: an integer type's range, bool 0..1, a float type
 * anything (finite: only finite values, no NaN -- an input's assumption). */
IrValue ir_value_of_dtype(IrDType t, bool finite);
/* An input or parameter of dtype t: every finite value of it, of the
 * magnitude of the inputs (IR_MAG_LINEAR, no NaN). */
IrValue ir_value_input(IrDType t);
IrValue ir_value_join(IrValue a, IrValue b);
bool ir_value_eq(IrValue a, IrValue b);
/* Signs: -1 (< 0), 0 (unknown), ... as predicates. */
bool ir_value_nonneg(IrValue v);   /* every value >= 0 (NaN excluded) */
bool ir_value_pos(IrValue v);      /* every value > 0 */
bool ir_value_nonpos(IrValue v);
bool ir_value_neg(IrValue v);
/* Every value finite (no NaN, no inf)? */
bool ir_value_finite(IrValue v);
/* Every value finite with |x| <= bound? */
bool ir_value_bounded(IrValue v, double bound);
/* Proved int64 bounds [ilo, ihi], exact (no int64 overflow on the way),
 * finite, no NaN, not bottom: what an index range may be read from. */
bool ir_value_int_exact(IrValue v);

/* ---- transfer functions.  `t` is the dtype the operation is done in
 * (SPEC §5.4, §9.4): an integer type wraps (two's complement), a float type
 * rounds and overflows to ±inf; DT_NONE is exact arithmetic (integers in
 * int64, the index arithmetic of subscripts: a result outside int64 is
 * unknown and inexact). */
IrValue ir_value_neg_(IrValue a, IrDType t);
IrValue ir_value_add(IrValue a, IrValue b, IrDType t);
IrValue ir_value_sub(IrValue a, IrValue b, IrDType t);
IrValue ir_value_mul(IrValue a, IrValue b, IrDType t);
IrValue ir_value_square(IrValue a, IrDType t);     /* a*a, the same value twice */
IrValue ir_value_div(IrValue a, IrValue b, IrDType t);      /* `/`: integers truncate (C) */
IrValue ir_value_floordiv(IrValue a, IrValue b, IrDType t); /* `//` */
IrValue ir_value_mod(IrValue a, IrValue b, IrDType t);      /* `%`, floor modulo */
IrValue ir_value_pow(IrValue a, IrValue b, IrDType t);      /* `**` */
IrValue ir_value_cmp(IrOp op, IrValue a, IrValue b);        /* 0/1 */
IrValue ir_value_and(IrValue a, IrValue b);                 /* `&`: 0/1 */
IrValue ir_value_or(IrValue a, IrValue b);                  /* `|`: 0/1 */
IrValue ir_value_exp(IrValue a, IrDType t);
IrValue ir_value_log(IrValue a, IrDType t);
IrValue ir_value_sqrt(IrValue a, IrDType t);
IrValue ir_value_abs(IrValue a, IrDType t);
IrValue ir_value_erf(IrValue a, IrDType t);
IrValue ir_value_max(IrValue a, IrValue b);
IrValue ir_value_min(IrValue a, IrValue b);
/* if_then_else(c, a, b): a when c is proven nonzero, b when proven zero,
 * else their join (a or b bottom when its guard makes it unreachable). */
IrValue ir_value_select(IrValue c, IrValue a, IrValue b);
/* Conversion of a value to dtype `to` (SPEC §5.4, §9.4): float -> integer
 * saturates (NaN -> 0), integer -> narrower integer wraps, to a float type
 * rounds (overflow -> ±inf), to bool: nonzero -> 1. */
IrValue ir_value_convert(IrValue a, IrDType to);
/* A literal v in a statement of dtype st (§5.4: converted to st). */
IrValue ir_value_literal(double v, IrDType st);

/* ---- expressions */
enum { IR_VALUE_MAX_GUARDS = 64 };
/* A bound on the nodes being evaluated at once (the recursion through
 * tensor callbacks included): beyond it a value is unknown and `capped` is
 * set. */
typedef struct IrValueBudget {
  int depth, max;
  bool capped;
} IrValueBudget;
/* Loop ranges narrowed by enclosing if_then_else guards: a stack (a loop
 * may have several entries: they intersect).  Narrow with ir_value_guard;
 * restore by setting n back. */
typedef struct IrValueGuards {
  int n;
  const IrLoop *loop[IR_VALUE_MAX_GUARDS];
  int64_t lo[IR_VALUE_MAX_GUARDS], hi[IR_VALUE_MAX_GUARDS];
} IrValueGuards;

typedef struct IrValueEnv {
  /* The value of a read of tensor t; NULL: every value of its dtype
   * (finite floats when inputs_finite). */
  IrValue (*tensor)(void *user, const IrTensor *t);
  void *user;
  bool inputs_finite;
  /* DT_NONE: index arithmetic (exact int64, index variables as they are);
   * else the statement type (literals and index variables converted to it). */
  IrDType st;
  IrValueBudget *budget; /* NULL: none */
  /* A guard that leaves a loop no value: the branch is unreachable (its
   * values bottom), or, with empty_as_point, the loop takes the narrowed
   * lower bound alone (sema's convention: the branch is still checked). */
  bool empty_as_point;
  /* The enclosing guards' narrowed loop ranges; NULL: none. */
  IrValueGuards *guards;
  /* When set, the value of every read, bound or not (a reference built
   * outside the program is looked up by name); `tensor` is then unused. */
  IrValue (*ref)(void *user, const IrRef *r);
} IrValueEnv;

/* The value of e (bound by sema) under env. */
IrValue ir_value_expr(const IrValueEnv *env, const IrExpr *e);
/* Index arithmetic: e under an environment with st = DT_NONE, no tensor
 * information and no guards. */
IrValue ir_value_index(const IrExpr *e);
/* Narrows env's loop ranges (env->guards, which must not be NULL) by `cond`
 * being true (truth) or false; false when that is impossible (the branch is
 * unreachable). */
bool ir_value_guard(IrValueEnv *env, const IrExpr *cond, bool truth);

/* ---- the program: the values every tensor can hold, the least fixed point
 * over its writing statements (reductions: the identity joined with the
 * right side over the current value, widened to unbounded after a few
 * rounds).  `tensors[t->id]`.  Arrays malloc'd; ir_value_program_free. */
typedef struct IrValueProgram {
  int n;
  IrValue *tensors;
  bool inputs_finite;
} IrValueProgram;
bool ir_value_program(const IrProgram *p, bool inputs_finite, IrValueProgram *out);
void ir_value_program_free(IrValueProgram *vp);
/* The value of e in statement type st under vp's tensor values. */
IrValue ir_value_in_program(const IrValueProgram *vp, const IrExpr *e, IrDType st);

/* ---- queries (ir/value_query.c): the analysis one node at a time, for a
 * caller that walks an expression itself, bottom up, with its operands'
 * values; and exact constants. */
/* max |x| over v: 0 when bottom, +inf unless finite (no NaN, no inf). */
double ir_value_mag(IrValue v);
/* a ** b where b may be a range of exponents: ir_value_pow, except that a
 * finite base to a range of finite exponents >= 0 (integers, or any with a
 * base >= 0) is bounded by max(|a|, 1) ** b.hi (21**c over c < 30: 21**29). */
IrValue ir_value_pow_range(IrValue a, IrValue b, IrDType t);
/* The transfer function of a binary operator (arithmetic, `&`, `|`, one
 * comparison; `**` is ir_value_pow_range) and of a call of f over its n
 * argument values (if_then_else: ir_value_select, no guards); top for an
 * arity the operator does not have. */
IrValue ir_value_binop(IrOp op, IrValue a, IrValue b, IrDType t);
IrValue ir_value_call(IrFunc f, const IrValue *k, int n, IrDType t);
/* Exact constant folding in f64 with leirc's mathlib (ir/mathlib.h): `/`
 * is real division, `//` floor(a/b), `%` a - b*floor(a/b), `**` leir_pow,
 * a comparison 0 or 1, max/min of any number of values, if_then_else the
 * chosen value; false for `&`, `|` and an arity the operator does not
 * have.  NaN and infinities are values like any other. */
bool ir_value_fold_binop(IrOp op, double a, double b, double *r);
bool ir_value_fold_call(IrFunc f, const double *k, int n, double *r);

/* l's range (0..extent-1) narrowed by the guards g: false when they leave
 * it no value (then *lo is the narrowed lower bound and *hi = *lo - 1). */
bool ir_value_loop_range(const IrValueGuards *g, const IrLoop *l, int64_t *lo, int64_t *hi);
/* Narrows l to lo..hi in g (a range known otherwise: a loop split in
 * pieces); false when g is full (nothing narrowed: still sound). */
bool ir_value_guard_push(IrValueGuards *g, const IrLoop *l, int64_t lo, int64_t hi);

/* Are a and b the same expression (parentheses aside)?  Index variables are
 * the same loop, or with by_name the same name (expressions of two nests,
 * whose loops are different objects); references the same tensor
 * (value_expr.c). */
bool ir_value_same_expr(const IrExpr *a, const IrExpr *b, bool by_name);

/* Is s the sum of a softmax, S = S + exp(Y - M) with M = max(M, Y) over the
 * same loops in an earlier nest (value_reduce.c)?  Then every value it
 * leaves in S is >= 1 (or NaN); the fixed point uses it. */
bool ir_value_sum_exp_over_max(const IrProgram *p, const IrStmt *s);

/* ---- magnitude relative to the inputs (value_mag.c) */
/* The classes v's interval proves, joined (tightest) with those v has. */
IrValue ir_value_mag_fit(IrValue v);
/* The classes of v set to those its interval proves, alone (a value built
 * field by field). */
IrValue ir_value_mag_reset(IrValue v);
/* Both sides at most class c (a recurrence that may grow with its trip
 * count: at most IR_MAG_FINITE), then what the interval proves. */
IrValue ir_value_mag_cap(IrValue v, int c);
/* Of the order of the inputs: both sides IR_MAG_LINEAR or tighter, no NaN
 * and not far below the inputs either (mag_scaled), for ordinary inputs
 * (bottom: vacuously). */
bool ir_value_moderate(IrValue v);
/* May be +-inf for ordinary inputs (a side IR_MAG_ANY)? */
bool ir_value_may_inf_ordinary(IrValue v);
/* The node of e (statement type st, under vp) where property ok is lost:
 * the first node, in post-order, whose value lacks ok while its operands'
 * values have it (a leaf lacking it: a literal, a read).  NULL when e's
 * value has ok. */
const IrExpr *ir_value_lost_at(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st,
                               bool (*ok)(IrValue v));
/* Does a statement writing tensor t feed back into t through other
 * statements' writes (t reads u, u reads t)?  in_cycle[t->id] (malloc'd,
 * p->ntensors entries; NULL when out of memory). */
bool *ir_value_cycles(const IrProgram *p);
/* Is s a running max/min: every read of its own left side reaches the
 * root through parentheses, max, min and if_then_else branches only (it
 * does not grow with its trip count)? */
bool ir_value_running_minmax(const IrStmt *s);

/* ---- signs and culprits (value_sign.c): the passes' questions */
/* The sign of a value, NaN left aside (as computed: a value that may
 * underflow to 0 is not positive): IR_SIGN_POS (every non-NaN value > 0),
 * IR_SIGN_NONNEG (>= 0) or IR_SIGN_UNKNOWN; a bottom value is positive. */
enum { IR_SIGN_UNKNOWN = 0, IR_SIGN_NONNEG = 1, IR_SIGN_POS = 2 };
int ir_value_sign(IrValue v);
/* The value of e (statement type st) under vp's values of p's tensors, a
 * read resolved by name when its reference is not bound to p. */
IrValue ir_value_in(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e, IrDType st);
/* p's tensor a reference reads (bound to p, else looked up by name), or
 * NULL. */
const IrTensor *ir_value_ref_tensor(const IrProgram *p, const IrRef *r);
/* The culprit of a property `ok` that e's value lacks: the first tensor e
 * reads whose value lacks it too, followed through its writers' right
 * sides to the deepest computed tensor lacking it (one whose writers read
 * no computed tensor lacking it: the definition that loses it); an input
 * only when e reads it itself; NULL when no read of e lacks it (e's own
 * operations are responsible).  *stmt (may be NULL): a statement writing
 * the culprit whose right side lacks the property, or NULL. */
const IrTensor *ir_value_culprit(const IrValueProgram *vp, const IrProgram *p, const IrExpr *e,
                                 bool (*ok)(IrValue v), const IrStmt **stmt);

#endif
