/* alg.h -- a small exact algebra over LEIR expressions, for the twelve
 * symbolic strategies of STRATEGIES §4.0-§4.12 (REC implementation: no
 * computer-algebra dependency, deterministic output order).
 *
 * CANONICAL FORM.  An expression is converted (alg_from_ir) into a tree whose
 * every node is in canonical form ("automatic simplification"):
 *   NUM   a number: an exact rational (from integer literals), an exact
 *         rational spelt as a float (a float literal with at most 30 binary
 *         fraction digits: 0.5, 2.0), or an inexact double (1e-05);
 *   SYM   a leaf: a tensor reference (compared by its full text, tags and
 *         subscript included), an index used as a value, or an OPAQUE term
 *         the algebra does not look into (//, %, comparisons, & |, powers
 *         with a non-integer exponent), compared by its text;
 *   FN    exp/log/sqrt/abs/max/min(...) with canonical arguments (opaque to
 *         the rules except where a rule names exp or log);
 *   POW   base**n, n an integer not 0 or 1, base a SYM, FN or ADD;
 *   MUL   coefficient * factors (each a base or a POW), like bases merged by
 *         adding exponents (A*A -> A**2, the only merge), sorted;
 *   ADD   terms (never ADD, at most one NUM, last), like terms combined
 *         (2*A+A -> 3*A), sorted.
 * Numbers: RAT op RAT is exact (int64 with overflow checks), anything with a
 * float literal is printed as a float, anything with an inexact one is
 * computed in double.  `1.0*x` is x (REF's normalisation).
 *
 * ORDER (deterministic, independent of addresses): bases by kind (tensor
 * refs, indices, functions, opaque terms, sums) then by key text; the terms
 * of a sum by their factor lists (smaller base first, then higher exponent
 * first, a longer list first), so that constants come last:
 * `A**2+2*A*C+C**2`, `exp(A)+1`.
 *
 * PRINTING (alg_to_ir): new IR nodes without parenthesis nodes (the printer
 * adds minimal parentheses): a product prints as `c*num/(den)` with its
 * negative powers in the denominator, a rational coefficient p/q as `p*x/q`
 * (a constant as `p/q`), a float coefficient as a Python-repr literal in
 * front (ir_float), a negative term as a subtraction or a leading unary
 * minus on its first factor.  Literals are built with ir_int/ir_float.
 *
 * ERRORS.  Every function may fail (unsupported input, coefficient overflow,
 * a size limit, a rule that does not apply in a way worth a reason): it
 * longjmps to A->fail after setting A->err.  Callers wrap a computation in
 * `if (setjmp(A->fail)) ...`.  Algebra nodes live in A's scratch arena,
 * freed by alg_free; only alg_to_ir writes into the LeirCtx arena.
 */
#ifndef LEIR_PASSES_ALG_H
#define LEIR_PASSES_ALG_H

#include <setjmp.h>

#include "ir/ir.h"

/* ------------------------------------------------------------ numbers (alg_num.c) */

typedef enum AlgNumKind {
  AN_RAT,  /* exact rational p/q (q > 0, lowest terms) */
  AN_FRAT, /* exact rational that came from a float literal: printed as float */
  AN_REAL  /* inexact: the double f */
} AlgNumKind;

typedef struct AlgNum {
  AlgNumKind k;
  int64_t p, q; /* AN_RAT, AN_FRAT */
  double f;     /* always the value (p/q rounded for the exact kinds) */
} AlgNum;

typedef struct AlgCtx AlgCtx;

AlgNum alg_int(int64_t v);
AlgNum alg_rat(AlgCtx *A, int64_t p, int64_t q);
/* The number of a float literal's value: exact (AN_FRAT) when it has at most
 * 30 binary fraction digits and fits, else AN_REAL. */
AlgNum alg_from_double(double v);
AlgNum alg_num_add(AlgCtx *A, AlgNum a, AlgNum b);
AlgNum alg_num_mul(AlgCtx *A, AlgNum a, AlgNum b);
AlgNum alg_num_neg(AlgNum a);
AlgNum alg_num_inv(AlgCtx *A, AlgNum a); /* fails on 0 */
AlgNum alg_num_div(AlgCtx *A, AlgNum a, AlgNum b);
AlgNum alg_num_pow(AlgCtx *A, AlgNum a, int64_t n);
AlgNum alg_num_abs(AlgNum a);
bool alg_num_is_zero(AlgNum a);
bool alg_num_is_one(AlgNum a);
bool alg_num_is_int(AlgNum a);  /* an exact integer (RAT or FRAT) */
bool alg_num_exact(AlgNum a);   /* RAT or FRAT */
int alg_num_sign(AlgNum a);     /* -1, 0, 1 */
bool alg_num_eq(AlgNum a, AlgNum b); /* same value (kinds aside) */
/* gcd of two exact non-zero rationals (gcd of numerators / lcm of
 * denominators), positive; the result is FRAT if either is. */
AlgNum alg_num_gcd(AlgCtx *A, AlgNum a, AlgNum b);
/* Key text of a number (same value, same key). */
void alg_num_key(char *buf, size_t n, AlgNum a);

/* ------------------------------------------------------------ expressions (alg_expr.c) */

typedef enum AlgKind { AK_NUM, AK_SYM, AK_FN, AK_ADD, AK_MUL, AK_POW } AlgKind;
typedef enum AlgSymKind { AS_REF, AS_INDEX, AS_OPAQUE } AlgSymKind;

typedef struct AlgExpr AlgExpr;
struct AlgExpr {
  AlgKind k;
  const char *key;   /* canonical key: equal keys = equal expressions */
  AlgNum num;        /* NUM: the value; MUL: the coefficient */
  AlgSymKind sk;     /* SYM */
  const IrExpr *ir;  /* SYM: the occurrence printed back (cloned) */
  IrFunc fn;         /* FN */
  int n;             /* FN: arguments, ADD: terms, MUL: factors */
  AlgExpr **a;
  AlgExpr *base;     /* POW */
  int64_t exp;       /* POW */
};

struct AlgCtx {
  LeirCtx *ctx;     /* alg_to_ir builds in ctx->arena */
  Arena mem;        /* everything else */
  LeirCtx scratch;  /* IR built only to be printed (alg_text) */
  jmp_buf fail;
  const char *err;  /* the failure reason (in ctx->arena) */
  int64_t budget;   /* node allocations left */
  int merges;       /* like bases merged by alg_mul (A*A -> A**2) */
  int changes;      /* rule applications counted by the rules */
  int skipped;      /* rule sites left alone on purpose (exp(x-y), log(-x*y)) */
  const char *skip_why; /* the first skipped site's reason, if it has its own (ctx arena) */
  /* The sign of a base for the logarithm rules: 2 (> 0), 1 (>= 0) or 0
   * (unknown), as mp_sign_expr; NULL takes every base to be positive
   * (--unsafe-math, the unit tests).  sign_u is the hook's own data. */
  int (*sign)(AlgCtx *A, const AlgExpr *base);
  void *sign_u;
  /* Why a divisor may be infinite (NULL: it cannot), as mp_expr_may_be_inf;
   * NULL hook: no check (--unsafe-math, the unit tests).  Its data is
   * sign_u. */
  const char *(*divisor_inf)(AlgCtx *A, const IrExpr *divisor);
};

void alg_init(AlgCtx *A, LeirCtx *ctx);
void alg_free(AlgCtx *A);
_Noreturn void alg_fail(AlgCtx *A, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *alg_alloc(AlgCtx *A, size_t n);

/* Constructors (all return canonical nodes). */
AlgExpr *alg_num(AlgCtx *A, AlgNum v);
AlgExpr *alg_fn(AlgCtx *A, IrFunc f, int n, AlgExpr **args);
AlgExpr *alg_add(AlgCtx *A, int n, AlgExpr **terms);
AlgExpr *alg_add2(AlgCtx *A, AlgExpr *x, AlgExpr *y);
AlgExpr *alg_mul(AlgCtx *A, int n, AlgExpr **factors);
AlgExpr *alg_mul2(AlgCtx *A, AlgExpr *x, AlgExpr *y);
AlgExpr *alg_pow(AlgCtx *A, AlgExpr *x, int64_t n);
AlgExpr *alg_neg(AlgCtx *A, AlgExpr *x);
AlgExpr *alg_scale(AlgCtx *A, AlgExpr *x, AlgNum c);

/* Views.  A term is coefficient * monomial (the monomial NULL for a
 * constant); a factor is base ** exponent. */
AlgNum alg_term_coef(const AlgExpr *t);
AlgExpr *alg_term_mono(AlgCtx *A, AlgExpr *t); /* NULL for a number */
AlgExpr *alg_factor_base(AlgExpr *f);
int64_t alg_factor_exp(const AlgExpr *f);
/* The factors of a term: a product's factor list, or the term itself
 * (stored in *one) for a lone base or power, none for a number. */
int alg_term_factors(AlgExpr *t, AlgExpr **one, AlgExpr ***out);
bool alg_is_num(const AlgExpr *x, int64_t v);
bool alg_eq(const AlgExpr *x, const AlgExpr *y);
int alg_base_cmp(const AlgExpr *x, const AlgExpr *y);

/* An integer exponent as the algebra takes it: a literal (`2`, `-1`,
 * `(-1)`) or + - * of such (`(1-2)`), at most 64 (ALG_MAXEXP) in magnitude;
 * false otherwise (the power stays an opaque leaf). */
bool alg_int_exponent(const IrExpr *e, int64_t *n);

/* From IR.  Refuses (alg_fail) `inf`, if_then_else, erf, and references to
 * tensors that are not floating point. */
AlgExpr *alg_from_ir(AlgCtx *A, const IrExpr *e);
/* To IR (in A->ctx's arena, or ctx's). */
IrExpr *alg_to_ir(AlgCtx *A, const AlgExpr *x);
IrExpr *alg_to_ir_in(AlgCtx *A, LeirCtx *ctx, const AlgExpr *x);
/* `head+t1-t2...`: the terms of x appended to head with their signs (the
 * `X=X+rest` form keeps its `X+` in front). */
IrExpr *alg_sum_after(AlgCtx *A, LeirCtx *ctx, IrExpr *head, const AlgExpr *x);
/* Canonical text of x as it prints (in A's arena). */
const char *alg_text(AlgCtx *A, const AlgExpr *x);
/* The "bare" spelling of x: its text with every superscript ^{...} and
 * subscript _{...} removed (REF's simplified names: C, exp(A-D)). */
const char *alg_bare(AlgCtx *A, const AlgExpr *x);
/* The distinct SYM (refs and indices) and FN nodes of x, at every depth, in
 * canonical order. */
void alg_generators(AlgCtx *A, AlgExpr *x, PtrVec *out);

/* ------------------------------------------------------------ polynomials (alg_poly.c) */

enum { ALG_MAXGEN = 24, ALG_MAXTERMS = 256, ALG_GCD_VARS = 4, ALG_GCD_DEG = 4 };

/* The generators (variables) of a set of polynomials: SYM and FN nodes. */
typedef struct AlgGens {
  int n;
  AlgExpr *g[ALG_MAXGEN];
} AlgGens;

typedef struct AlgMono {
  AlgNum c;
  uint8_t e[ALG_MAXGEN];
} AlgMono;

/* A polynomial: terms sorted (lex, generator 0 most significant, higher
 * exponents first), combined, no zero coefficient. */
typedef struct AlgPoly {
  int n;
  AlgMono *t;
} AlgPoly;

int alg_gen_index(AlgCtx *A, AlgGens *G, AlgExpr *g); /* adds g if new */
AlgPoly alg_poly_const(AlgCtx *A, AlgNum c);
AlgPoly alg_poly_add(AlgCtx *A, AlgPoly x, AlgPoly y);
AlgPoly alg_poly_sub(AlgCtx *A, AlgPoly x, AlgPoly y);
AlgPoly alg_poly_mul(AlgCtx *A, AlgPoly x, AlgPoly y);
AlgPoly alg_poly_scale(AlgCtx *A, AlgPoly x, AlgNum c);
AlgPoly alg_poly_pow(AlgCtx *A, AlgPoly x, int64_t n);
bool alg_poly_is_zero(AlgPoly x);
bool alg_poly_is_const(AlgPoly x);
bool alg_poly_eq(AlgPoly x, AlgPoly y);
bool alg_poly_exact(AlgPoly x); /* every coefficient exact */
int alg_poly_deg(AlgPoly x, int var);
/* x as a sum of terms, canonical. */
AlgExpr *alg_poly_to_expr(AlgCtx *A, const AlgGens *G, AlgPoly x);
/* x as num/den: sums expanded, generators = the SYM/FN bases of x. */
void alg_poly_from_expr(AlgCtx *A, AlgGens *G, AlgExpr *x, AlgPoly *num, AlgPoly *den);
/* Exact division: true and *q if d divides x, else false. */
bool alg_poly_div_exact(AlgCtx *A, AlgPoly x, AlgPoly d, AlgPoly *q);
/* gcd, normalised (integer coefficients with gcd 1, leading coefficient
 * positive).  A monomial operand gives the monomial gcd; otherwise the
 * polynomials must be exact and use at most ALG_GCD_VARS variables, each of
 * degree at most ALG_GCD_DEG, else false (*why says which bound). */
bool alg_poly_gcd(AlgCtx *A, AlgPoly x, AlgPoly y, AlgPoly *g, const char **why);
/* The positive rational c with x = c * y, y with coprime integer
 * coefficients and a positive leading coefficient (exact x; else c = 1 or -1
 * by the leading sign). */
AlgNum alg_poly_content(AlgCtx *A, AlgPoly x);

/* Partial fractions of num/den in generator v (alg_poly.c): den must be a
 * monomial in the other generators times a polynomial in v alone with exact
 * coefficients that splits into linear factors over Q (degree <= 4).
 * Returns the sum polynomial part + sum of c/(a*v+b)**j, canonical; fails
 * with a reason otherwise. */
AlgExpr *alg_partial_fractions(AlgCtx *A, AlgGens *G, AlgPoly num, AlgPoly den, int v);

/* ------------------------------------------------------------ the rule sets (alg_rules.c) */

/* Each returns the rewritten canonical expression and counts in A->changes
 * the places where its rule applied (0: the rule does not apply). */
AlgExpr *alg_expand(AlgCtx *A, AlgExpr *x);          /* expand_factorization */
AlgExpr *alg_factor(AlgCtx *A, AlgExpr *x);          /* factorization, rule=common */
AlgExpr *alg_sigmoid_exp(AlgCtx *A, AlgExpr *x);     /* 1/(1+exp(-x)) -> exp(x)/(exp(x)+1) */
AlgExpr *alg_sigmoid_neg(AlgCtx *A, AlgExpr *x);     /* exp(x)/(exp(x)+1) -> 1/(1+exp(-x)) */
AlgExpr *alg_cancel(AlgCtx *A, AlgExpr *x);          /* cancellation */
AlgExpr *alg_expand_cancel(AlgCtx *A, AlgExpr *x);   /* expand_cancellation */
AlgExpr *alg_together(AlgCtx *A, AlgExpr *x);        /* together */
AlgExpr *alg_apart(AlgCtx *A, AlgExpr *x, AlgExpr *v); /* apart */
AlgExpr *alg_powsimp(AlgCtx *A, AlgExpr *x);         /* powsimp */
AlgExpr *alg_expand_powsimp(AlgCtx *A, AlgExpr *x);  /* expand_powsimp */
AlgExpr *alg_logcombine(AlgCtx *A, AlgExpr *x);      /* logsimp (REC meaning) */
AlgExpr *alg_logexpand(AlgCtx *A, AlgExpr *x);       /* expand_log (REC meaning) */
AlgExpr *alg_collect(AlgCtx *A, AlgExpr *x, AlgExpr *v);        /* collect */
AlgExpr *alg_expand_collect(AlgCtx *A, AlgExpr *x, AlgExpr *v); /* expand_collect */

#endif /* LEIR_PASSES_ALG_H */
