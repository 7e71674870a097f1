/* alg_rules.c -- the rule sets of the twelve symbolic strategies
 * (STRATEGIES §4.0, "REC implementation").  Each function rewrites a
 * canonical expression and counts in A->changes the places where its rule
 * applied; the passes refuse when that count is 0.
 *
 * "Deep" rules apply at every node, inside function arguments too, children
 * first.  The rational-function rules (cancel, expand_cancel, together,
 * apart) work on the expression as a rational function of its leaves and
 * function terms, whose arguments they leave alone (as sympy's do). */
#include "passes/alg.h"

#include <stdio.h>
#include <string.h>

typedef AlgExpr *(*AlgMap)(AlgCtx *A, AlgExpr *x, void *u);

/* x with f applied to each child (a product's factors, a sum's terms, a
 * power's base, a function's arguments), re-canonicalised. */
static AlgExpr *rebuild(AlgCtx *A, AlgExpr *x, AlgMap f, void *u) {
  switch (x->k) {
  case AK_NUM:
  case AK_SYM: return x;
  case AK_POW: return alg_pow(A, f(A, x->base, u), x->exp);
  case AK_FN:
  case AK_ADD: {
    AlgExpr **c = alg_alloc(A, sizeof *c * (size_t)x->n);
    for (int i = 0; i < x->n; i++) c[i] = f(A, x->a[i], u);
    return x->k == AK_FN ? alg_fn(A, x->fn, x->n, c) : alg_add(A, x->n, c);
  }
  case AK_MUL: {
    AlgExpr **c = alg_alloc(A, sizeof *c * (size_t)(x->n + 1));
    c[0] = alg_num(A, x->num);
    for (int i = 0; i < x->n; i++) c[i + 1] = f(A, x->a[i], u);
    return alg_mul(A, x->n + 1, c);
  }
  }
  return x;
}

/* The factors of x seen as a product (coefficient apart). */
static int as_product(AlgExpr *x, AlgExpr **one, AlgExpr ***f, AlgNum *coef) {
  *coef = alg_term_coef(x);
  if (x->k == AK_ADD) {
    *one = x;
    *f = one;
    return 1;
  }
  return alg_term_factors(x, one, f);
}

static AlgExpr *product(AlgCtx *A, AlgNum coef, int n, AlgExpr **f) {
  AlgExpr **c = alg_alloc(A, sizeof *c * (size_t)(n + 1));
  c[0] = alg_num(A, coef);
  if (n) memcpy(c + 1, f, sizeof *c * (size_t)n);
  return alg_mul(A, n + 1, c);
}

/* ------------------------------------------------------------ expand */

/* x * every term of sum s. */
static AlgExpr *distribute(AlgCtx *A, AlgExpr *x, AlgExpr *s) {
  AlgExpr **t = alg_alloc(A, sizeof *t * (size_t)s->n);
  for (int i = 0; i < s->n; i++) t[i] = alg_mul2(A, x, s->a[i]);
  return alg_add(A, s->n, t);
}

/* a*b with every sum multiplied out. */
static AlgExpr *mul_expand(AlgCtx *A, AlgExpr *a, AlgExpr *b) {
  if (a->k == AK_ADD) {
    AlgExpr **t = alg_alloc(A, sizeof *t * (size_t)a->n);
    for (int i = 0; i < a->n; i++) t[i] = mul_expand(A, a->a[i], b);
    return alg_add(A, a->n, t);
  }
  return b->k == AK_ADD ? distribute(A, a, b) : alg_mul2(A, a, b);
}

/* s**n multiplied out (s a sum, 1 <= n <= 4). */
static AlgExpr *multiply_out(AlgCtx *A, AlgExpr *s, int64_t n) {
  AlgExpr *r = s;
  for (int64_t i = 1; i < n; i++) r = mul_expand(A, s, r);
  return r;
}

static bool expandable_power(const AlgExpr *f) {
  int64_t e = alg_factor_exp(f);
  return f->k == AK_POW && f->base->k == AK_ADD && e != 0 && e >= -4 && e <= 4;
}

static AlgExpr *expand_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, expand_rec, u);
  if (x->k == AK_POW && expandable_power(x)) {
    A->changes++;
    AlgExpr *p = multiply_out(A, x->base, x->exp < 0 ? -x->exp : x->exp);
    return x->exp < 0 ? alg_pow(A, p, -1) : p;
  }
  if (x->k != AK_MUL) return x;
  /* powers of sums first, then distribute over the sums of the numerator */
  AlgExpr *rest = alg_num(A, x->num);
  AlgExpr **sums = alg_alloc(A, sizeof *sums * (size_t)x->n);
  int ns = 0;
  for (int i = 0; i < x->n; i++) {
    AlgExpr *f = x->a[i];
    if (expandable_power(f)) {
      A->changes++;
      AlgExpr *p = multiply_out(A, f->base, f->exp < 0 ? -f->exp : f->exp);
      f = f->exp < 0 ? alg_pow(A, p, -1) : p;
    }
    if (f->k == AK_ADD) sums[ns++] = f;
    else rest = alg_mul2(A, rest, f);
  }
  if (ns == 0) return rest;
  A->changes++;
  AlgExpr *r = rest;
  for (int i = 0; i < ns; i++) r = mul_expand(A, r, sums[i]);
  return r;
}

AlgExpr *alg_expand(AlgCtx *A, AlgExpr *x) { return expand_rec(A, x, NULL); }

/* ------------------------------------------------------------ factor (common factors) */

/* The numeric content of a sum's coefficients: their rational gcd when all
 * are exact integers-literal rationals, the common value when all are equal
 * in magnitude, else 1; negative when every coefficient is. */
static AlgNum num_content(AlgCtx *A, AlgExpr *s) {
  bool all_rat = true, all_neg = true, all_same = true;
  AlgNum c0 = alg_num_abs(alg_term_coef(s->a[0]));
  for (int i = 0; i < s->n; i++) {
    AlgNum c = alg_term_coef(s->a[i]);
    all_rat &= c.k == AN_RAT;
    all_neg &= alg_num_sign(c) < 0;
    all_same &= alg_num_eq(alg_num_abs(c), c0);
  }
  AlgNum g = alg_int(1);
  if (all_rat) {
    g = c0;
    for (int i = 1; i < s->n; i++) g = alg_num_gcd(A, g, alg_term_coef(s->a[i]));
  } else if (all_same) {
    g = c0;
  }
  return all_neg ? alg_num_neg(g) : g;
}

/* The common power of base b over the terms of s (0 if none): the smallest
 * exponent when all are positive, the largest when all are negative. */
static int64_t common_exp(AlgExpr *s, AlgExpr *b) {
  int64_t m = 0;
  for (int i = 0; i < s->n; i++) {
    AlgExpr *one, **f;
    int n = alg_term_factors(s->a[i], &one, &f);
    int64_t e = 0;
    for (int j = 0; j < n; j++)
      if (alg_eq(alg_factor_base(f[j]), b)) e = alg_factor_exp(f[j]);
    if (e == 0 || (i > 0 && (e > 0) != (m > 0))) return 0;
    if (i == 0 || (e > 0 ? e < m : e > m)) m = e;
  }
  return m;
}

static AlgExpr *common_factor(AlgCtx *A, AlgExpr *s) {
  AlgNum c = num_content(A, s);
  AlgExpr *one, **f;
  int n = alg_term_factors(s->a[0], &one, &f);
  AlgExpr **g = alg_alloc(A, sizeof *g * (size_t)(n + 1));
  int ng = 0;
  g[ng++] = alg_num(A, c);
  for (int j = 0; j < n; j++) {
    int64_t e = common_exp(s, alg_factor_base(f[j]));
    if (e) g[ng++] = alg_pow(A, alg_factor_base(f[j]), e);
  }
  if (ng == 1 && alg_num_is_one(c)) return s;
  AlgExpr *gx = alg_mul(A, ng, g), *inv = alg_pow(A, gx, -1);
  AlgExpr **t = alg_alloc(A, sizeof *t * (size_t)s->n);
  for (int i = 0; i < s->n; i++) t[i] = alg_mul2(A, s->a[i], inv);
  A->changes++;
  return alg_mul2(A, gx, alg_add(A, s->n, t));
}

static AlgExpr *factor_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, factor_rec, u);
  return x->k == AK_ADD ? common_factor(A, x) : x;
}

AlgExpr *alg_factor(AlgCtx *A, AlgExpr *x) { return factor_rec(A, x, NULL); }

/* ------------------------------------------------------------ sigmoid forms */

/* s = exp(u)+1 ? */
static AlgExpr *exp_plus_one(AlgExpr *s) {
  if (s->k != AK_ADD || s->n != 2 || !alg_is_num(s->a[1], 1)) return NULL;
  AlgExpr *e = s->a[0];
  return e->k == AK_FN && e->fn == F_EXP ? e->a[0] : NULL;
}

/* Every term of u has a negative coefficient (u = -x with x "positive"). */
static bool negative(AlgExpr *u) {
  if (u->k != AK_ADD) return alg_num_sign(alg_term_coef(u)) < 0;
  for (int i = 0; i < u->n; i++)
    if (alg_num_sign(alg_term_coef(u->a[i])) >= 0) return false;
  return true;
}

static AlgExpr *exp_plus_one_of(AlgCtx *A, AlgExpr *x) {
  return alg_add2(A, alg_fn(A, F_EXP, 1, &x), alg_num(A, alg_int(1)));
}

static AlgExpr *sigmoid_exp_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, sigmoid_exp_rec, u);
  if (x->k != AK_MUL && x->k != AK_POW) return x;
  AlgNum coef;
  AlgExpr *one, **f;
  int n = as_product(x, &one, &f, &coef);
  AlgExpr **g = alg_alloc(A, sizeof *g * (size_t)(2 * n));
  int ng = 0, hits = 0;
  for (int i = 0; i < n; i++) {
    AlgExpr *arg = alg_factor_exp(f[i]) == -1 ? exp_plus_one(alg_factor_base(f[i])) : NULL;
    if (arg && negative(arg)) {
      /* 1/(1+exp(-y)) -> exp(y)/(exp(y)+1) */
      AlgExpr *y = alg_neg(A, arg);
      g[ng++] = alg_fn(A, F_EXP, 1, &y);
      g[ng++] = alg_pow(A, exp_plus_one_of(A, y), -1);
      hits++;
    } else {
      g[ng++] = f[i];
    }
  }
  if (!hits) return x;
  A->changes += hits;
  return product(A, coef, ng, g);
}

AlgExpr *alg_sigmoid_exp(AlgCtx *A, AlgExpr *x) { return sigmoid_exp_rec(A, x, NULL); }

static AlgExpr *sigmoid_neg_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, sigmoid_neg_rec, u);
  if (x->k != AK_MUL) return x;
  AlgExpr **g = alg_alloc(A, sizeof *g * (size_t)x->n);
  bool *used = alg_alloc(A, sizeof *used * (size_t)x->n);
  int ng = 0, hits = 0;
  for (int i = 0; i < x->n; i++) {
    AlgExpr *arg = alg_factor_exp(x->a[i]) == -1 ? exp_plus_one(alg_factor_base(x->a[i])) : NULL;
    if (!arg) continue;
    for (int j = 0; j < x->n; j++) {
      AlgExpr *e = x->a[j];
      if (used[j] || e->k != AK_FN || e->fn != F_EXP || !alg_eq(e->a[0], arg)) continue;
      /* exp(y)/(exp(y)+1) -> 1/(1+exp(-y)) */
      used[i] = used[j] = true;
      g[ng++] = alg_pow(A, exp_plus_one_of(A, alg_neg(A, arg)), -1);
      hits++;
      break;
    }
  }
  if (!hits) return x;
  for (int i = 0; i < x->n; i++)
    if (!used[i]) g[ng++] = x->a[i];
  A->changes += hits;
  return product(A, x->num, ng, g);
}

AlgExpr *alg_sigmoid_neg(AlgCtx *A, AlgExpr *x) { return sigmoid_neg_rec(A, x, NULL); }

/* ------------------------------------------------------------ cancel */

/* x as num/den with the gcd removed and the numbers normalised: den with
 * coprime integer coefficients and a positive leading coefficient, num
 * with integer coefficients when exact. */
static void cancel_parts(AlgCtx *A, AlgGens *G, AlgExpr *x, AlgPoly *num, AlgPoly *den) {
  AlgPoly n, d, g;
  alg_poly_from_expr(A, G, x, &n, &d);
  const char *why;
  if (!alg_poly_gcd(A, n, d, &g, &why)) alg_fail(A, "cannot cancel: %s", why);
  if (!alg_poly_div_exact(A, n, g, &n) || !alg_poly_div_exact(A, d, g, &d))
    alg_fail(A, "internal: the gcd does not divide");
  AlgNum cd = alg_poly_content(A, d);
  n = alg_poly_scale(A, n, alg_num_inv(A, cd));
  d = alg_poly_scale(A, d, alg_num_inv(A, cd));
  if (alg_poly_exact(n) && n.n) {
    AlgNum cn = alg_poly_content(A, n);
    if (cn.q != 1) {
      n = alg_poly_scale(A, n, alg_int(cn.q));
      d = alg_poly_scale(A, d, alg_int(cn.q));
    }
  }
  *num = n;
  *den = d;
}

static AlgExpr *fraction(AlgCtx *A, const AlgGens *G, AlgPoly n, AlgPoly d) {
  AlgExpr *ne = alg_poly_to_expr(A, G, n);
  if (alg_poly_is_const(d) && d.n == 1 && alg_num_is_one(d.t[0].c)) return ne;
  return alg_mul2(A, ne, alg_pow(A, alg_poly_to_expr(A, G, d), -1));
}

AlgExpr *alg_cancel(AlgCtx *A, AlgExpr *x) {
  AlgGens G = {0};
  AlgPoly n, d;
  cancel_parts(A, &G, x, &n, &d);
  A->changes++;
  return fraction(A, &G, n, d);
}

/* Is p a polynomial in one generator only (returned), not a monomial? */
static int univariate(AlgPoly p) {
  int v = -1;
  if (p.n < 2) return -1;
  for (int i = 0; i < p.n; i++)
    for (int g = 0; g < ALG_MAXGEN; g++)
      if (p.t[i].e[g]) {
        if (v >= 0 && v != g) return -1;
        v = g;
      }
  return v;
}

/* Partial fractions of a/b in generator v, or NULL when b does not split
 * (the failure is not an error here). */
static AlgExpr *try_partial(AlgCtx *A, AlgGens *G, AlgPoly a, AlgPoly b, int v) {
  jmp_buf saved;
  memcpy(saved, A->fail, sizeof saved);
  AlgExpr *volatile r = NULL;
  if (setjmp(A->fail) == 0) r = alg_partial_fractions(A, G, a, b, v);
  memcpy(A->fail, saved, sizeof saved);
  return r;
}

AlgExpr *alg_expand_cancel(AlgCtx *A, AlgExpr *x) {
  AlgGens G = {0};
  AlgPoly n, d;
  cancel_parts(A, &G, x, &n, &d);
  if (alg_poly_is_const(d)) alg_fail(A, "there is no denominator to split the numerator over");
  AlgExpr **parts = alg_alloc(A, sizeof *parts * (size_t)(n.n ? n.n : 1));
  int split = 0;
  for (int i = 0; i < n.n; i++) {
    AlgPoly ni = {1, &n.t[i]}, g, a, b;
    const char *why;
    if (!alg_poly_gcd(A, ni, d, &g, &why) || !alg_poly_div_exact(A, ni, g, &a) || !alg_poly_div_exact(A, d, g, &b))
      alg_fail(A, "internal: monomial gcd");
    int v = univariate(b);
    AlgExpr *part = v >= 0 && alg_poly_exact(b) ? try_partial(A, &G, a, b, v) : NULL;
    if (part && part->k == AK_ADD) split++;
    else part = fraction(A, &G, a, b);
    parts[i] = part;
  }
  if (n.n < 2 && !split)
    alg_fail(A, "the numerator is a single term and the denominator does not split into linear factors");
  A->changes++;
  return alg_add(A, n.n, parts);
}

/* ------------------------------------------------------------ together */

static AlgExpr *together_rec(AlgCtx *A, AlgExpr *x);

/* Sum of terms over their common denominator: the product of the distinct
 * denominator bases, each at its highest power, and the lcm of the
 * rational coefficients' denominators. */
static AlgExpr *combine(AlgCtx *A, AlgExpr *s) {
  AlgExpr **base = alg_alloc(A, sizeof *base * (size_t)(8 * s->n + 8));
  int64_t *pw = alg_alloc(A, sizeof *pw * (size_t)(8 * s->n + 8));
  int nb = 0;
  AlgNum l = alg_int(1);
  for (int i = 0; i < s->n; i++) {
    AlgNum c = alg_term_coef(s->a[i]);
    if (c.k == AN_RAT && c.q != 1) l = alg_num_mul(A, l, alg_rat(A, c.q, alg_num_gcd(A, l, alg_int(c.q)).p));
    AlgExpr *one, **f;
    int n = alg_term_factors(s->a[i], &one, &f);
    for (int j = 0; j < n; j++) {
      int64_t e = alg_factor_exp(f[j]);
      if (e >= 0) continue;
      AlgExpr *b = alg_factor_base(f[j]);
      int k = 0;
      while (k < nb && !alg_eq(base[k], b)) k++;
      if (k == nb) {
        if (nb == 8 * s->n + 8) alg_fail(A, "too many denominators");
        base[nb] = b;
        pw[nb++] = 0;
      }
      if (-e > pw[k]) pw[k] = -e;
    }
  }
  if (nb == 0 && alg_num_is_one(l)) return s;
  AlgExpr **g = alg_alloc(A, sizeof *g * (size_t)(nb + 1));
  g[0] = alg_num(A, l);
  for (int k = 0; k < nb; k++) g[k + 1] = alg_pow(A, base[k], pw[k]);
  AlgExpr *L = alg_mul(A, nb + 1, g);
  AlgExpr **t = alg_alloc(A, sizeof *t * (size_t)s->n);
  for (int i = 0; i < s->n; i++) t[i] = alg_mul2(A, s->a[i], L);
  A->changes++;
  return alg_mul2(A, alg_add(A, s->n, t), alg_pow(A, L, -1));
}

static AlgExpr *together_map(AlgCtx *A, AlgExpr *x, void *u) {
  (void)u;
  return together_rec(A, x);
}

static AlgExpr *together_rec(AlgCtx *A, AlgExpr *x) {
  if (x->k == AK_NUM || x->k == AK_SYM || x->k == AK_FN) return x;
  x = rebuild(A, x, together_map, NULL);
  return x->k == AK_ADD ? combine(A, x) : x;
}

AlgExpr *alg_together(AlgCtx *A, AlgExpr *x) { return together_rec(A, x); }

/* ------------------------------------------------------------ apart */

AlgExpr *alg_apart(AlgCtx *A, AlgExpr *x, AlgExpr *v) {
  AlgGens G = {0};
  int vi = alg_gen_index(A, &G, v);
  AlgPoly n, d, g, q;
  alg_poly_from_expr(A, &G, x, &n, &d);
  if (alg_poly_is_const(d)) alg_fail(A, "the expression has no denominator");
  const char *why;
  if (alg_poly_gcd(A, n, d, &g, &why) && !alg_poly_is_const(g) && alg_poly_div_exact(A, n, g, &q)) {
    n = q;
    if (!alg_poly_div_exact(A, d, g, &d)) alg_fail(A, "internal: the gcd does not divide");
  }
  AlgExpr *r = alg_partial_fractions(A, &G, n, d, vi);
  A->changes++;
  return r;
}

/* ------------------------------------------------------------ powsimp */

static AlgExpr *exp_arg_times(AlgCtx *A, AlgExpr *arg, int64_t k) { return alg_scale(A, arg, alg_int(k)); }

static AlgExpr *powsimp_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, powsimp_rec, u);
  if (x->k == AK_POW && x->base->k == AK_FN && x->base->fn == F_EXP) {
    /* exp(a)**n -> exp(n*a) */
    A->changes++;
    AlgExpr *a = exp_arg_times(A, x->base->a[0], x->exp);
    return alg_fn(A, F_EXP, 1, &a);
  }
  if (x->k != AK_MUL) return x;
  AlgExpr **g = alg_alloc(A, sizeof *g * (size_t)(x->n + 1));
  AlgExpr **args = alg_alloc(A, sizeof *args * (size_t)x->n);
  int ng = 0, na = 0;
  bool power = false;
  for (int i = 0; i < x->n; i++) {
    AlgExpr *b = alg_factor_base(x->a[i]);
    if (b->k == AK_FN && b->fn == F_EXP) {
      int64_t e = alg_factor_exp(x->a[i]);
      power |= e != 1;
      args[na++] = exp_arg_times(A, b->a[0], e);
    } else {
      g[ng++] = x->a[i];
    }
  }
  if (na < 2 && !power) return x;
  /* exp(a)*exp(b) -> exp(a+b) */
  A->changes++;
  AlgExpr *sum = alg_add(A, na, args);
  g[ng++] = alg_fn(A, F_EXP, 1, &sum);
  return product(A, x->num, ng, g);
}

AlgExpr *alg_powsimp(AlgCtx *A, AlgExpr *x) { return powsimp_rec(A, x, NULL); }

static AlgExpr *expand_powsimp_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, expand_powsimp_rec, u);
  if (x->k != AK_FN || x->fn != F_EXP || x->a[0]->k != AK_ADD) return x;
  AlgExpr *s = x->a[0];
  /* A subtracted term is the shift that keeps the exponent in range
   * (softmax's exp(A-max)): exp(A) alone overflows where exp(A-D) does not,
   * giving inf*0.  Such exponentials are not split. */
  for (int i = 0; i < s->n; i++)
    if (alg_num_sign(alg_term_coef(s->a[i])) < 0) {
      A->skipped++;
      return x;
    }
  /* exp(a+b) -> exp(a)*exp(b) */
  AlgExpr **f = alg_alloc(A, sizeof *f * (size_t)s->n);
  for (int i = 0; i < s->n; i++) f[i] = alg_fn(A, F_EXP, 1, &s->a[i]);
  A->changes++;
  return alg_mul(A, s->n, f);
}

AlgExpr *alg_expand_powsimp(AlgCtx *A, AlgExpr *x) { return expand_powsimp_rec(A, x, NULL); }

/* ------------------------------------------------------------ logarithms */

/* t = k*log(a) with k an integer: a, and *k. */
static AlgExpr *int_log(AlgExpr *t, int64_t *k) {
  AlgNum c = alg_term_coef(t);
  AlgExpr *m = t->k == AK_MUL ? (t->n == 1 ? t->a[0] : NULL) : t;
  if (!m || m->k != AK_FN || m->fn != F_LOG || !alg_num_is_int(c)) return NULL;
  *k = c.p;
  return m->a[0];
}

static AlgExpr *log_of(AlgCtx *A, AlgExpr *a) { return alg_fn(A, F_LOG, 1, &a); }

/* Whether log(prod b_i**k_i) = sum k_i*log(b_i) holds for the n bases b
 * with exponents k whatever the values: every base >= 0, or a single base
 * of unknown sign with an odd exponent and every other base > 0 (a negative
 * product is NaN on both sides).  Otherwise -- e.g. log(A*A) or
 * log(A*B) with A, B < 0 -- one side is finite and the other NaN.  On
 * failure, records the reason in A->skip_why and counts the site. */
static bool log_split_safe(AlgCtx *A, int n, AlgExpr **b, const int64_t *k, const char *what) {
  if (!A->sign) return true;
  int unknown = 0, first = -1, nonneg = 0; /* first: the first base of unknown sign */
  for (int i = 0; i < n; i++) {
    int s = A->sign(A, b[i]);
    if (s == 1) nonneg++;
    if (s > 0) continue;
    if (!unknown++) first = i;
  }
  if (!unknown || (unknown == 1 && (k[first] & 1) && !nonneg)) return true;
  if (!A->skip_why) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "'%s' is not provably nonnegative, so %s may turn a NaN into a number or a number into NaN "
             "(--unsafe-math accepts it)",
             alg_text(A, b[first]), what);
    A->skip_why = arena_strdup(&A->ctx->arena, buf);
  }
  A->skipped++;
  return false;
}

static AlgExpr *logcombine_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, logcombine_rec, u);
  int64_t k;
  if (x->k == AK_MUL) {
    /* k*log(a) -> log(a**k) */
    AlgExpr *a = int_log(x, &k);
    if (!a || k == 1 || !log_split_safe(A, 1, &a, &k, "turning k*log(a) into log(a**k)")) return x;
    A->changes++;
    return log_of(A, alg_pow(A, a, k));
  }
  if (x->k != AK_ADD) return x;
  AlgExpr **keep = alg_alloc(A, sizeof *keep * (size_t)(x->n + 1));
  AlgExpr **arg = alg_alloc(A, sizeof *arg * (size_t)x->n);
  int nk = 0, na = 0;
  bool power = false;
  for (int i = 0; i < x->n; i++) {
    AlgExpr *a = int_log(x->a[i], &k);
    if (a) {
      power |= k != 1;
      arg[na++] = alg_pow(A, a, k);
    } else {
      keep[nk++] = x->a[i];
    }
  }
  if (na < 2 && !power) return x;
  {
    AlgExpr **b = alg_alloc(A, sizeof *b * (size_t)x->n);
    int64_t *ks = alg_alloc(A, sizeof *ks * (size_t)x->n);
    int nb = 0;
    for (int i = 0; i < x->n; i++)
      if ((b[nb] = int_log(x->a[i], &ks[nb]))) nb++;
    if (!log_split_safe(A, nb, b, ks, "combining the logarithms")) return x;
  }
  /* log(a)+log(b) -> log(a*b) */
  A->changes++;
  keep[nk++] = log_of(A, alg_mul(A, na, arg));
  return alg_add(A, nk, keep);
}

AlgExpr *alg_logcombine(AlgCtx *A, AlgExpr *x) { return logcombine_rec(A, x, NULL); }

static AlgExpr *logexpand_rec(AlgCtx *A, AlgExpr *x, void *u) {
  x = rebuild(A, x, logexpand_rec, u);
  if (x->k != AK_FN || x->fn != F_LOG) return x;
  AlgExpr *a = x->a[0];
  if (a->k != AK_MUL && a->k != AK_POW) return x;
  AlgNum c = alg_term_coef(a);
  if (alg_num_sign(c) < 0) { /* log(-y): no real split */
    A->skipped++;
    return x;
  }
  AlgExpr *one, **f;
  int n = alg_term_factors(a, &one, &f);
  AlgExpr **b = alg_alloc(A, sizeof *b * (size_t)(n ? n : 1));
  int64_t *ks = alg_alloc(A, sizeof *ks * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    b[i] = alg_factor_base(f[i]);
    ks[i] = alg_factor_exp(f[i]);
  }
  if (!log_split_safe(A, n, b, ks, "splitting the logarithm")) return x;
  AlgExpr **t = alg_alloc(A, sizeof *t * (size_t)(n + 1));
  int nt = 0;
  if (!alg_num_is_one(c)) t[nt++] = log_of(A, alg_num(A, c));
  /* log(a*b) -> log(a)+log(b), log(a**k) -> k*log(a) */
  for (int i = 0; i < n; i++)
    t[nt++] = alg_scale(A, log_of(A, alg_factor_base(f[i])), alg_int(alg_factor_exp(f[i])));
  A->changes++;
  return alg_add(A, nt, t);
}

AlgExpr *alg_logexpand(AlgCtx *A, AlgExpr *x) { return logexpand_rec(A, x, NULL); }

/* ------------------------------------------------------------ collect */

/* The exponent of v as a factor of term t (0 if none). */
static int64_t exp_of(AlgExpr *t, AlgExpr *v) {
  AlgExpr *one, **f;
  int n = alg_term_factors(t, &one, &f);
  for (int j = 0; j < n; j++)
    if (alg_eq(alg_factor_base(f[j]), v)) return alg_factor_exp(f[j]);
  return 0;
}

static AlgExpr *collect_rec(AlgCtx *A, AlgExpr *x, void *u) {
  AlgExpr *v = u;
  x = rebuild(A, x, collect_rec, u);
  if (x->k != AK_ADD) return x;
  AlgExpr **out = alg_alloc(A, sizeof *out * (size_t)x->n);
  AlgExpr **grp = alg_alloc(A, sizeof *grp * (size_t)x->n);
  bool *done = alg_alloc(A, sizeof *done * (size_t)x->n);
  int no = 0;
  bool hit = false;
  for (int i = 0; i < x->n; i++) {
    if (done[i]) continue;
    int64_t k = exp_of(x->a[i], v);
    int ng = 0;
    if (k)
      for (int j = i; j < x->n; j++)
        if (!done[j] && exp_of(x->a[j], v) == k) grp[ng++] = x->a[j];
    if (ng < 2) {
      out[no++] = x->a[i];
      continue;
    }
    /* v**k*b + v**k*c -> v**k*(b+c) */
    AlgExpr *inv = alg_pow(A, v, -k);
    for (int j = i; j < x->n; j++)
      if (!done[j] && exp_of(x->a[j], v) == k) done[j] = true;
    for (int j = 0; j < ng; j++) grp[j] = alg_mul2(A, grp[j], inv);
    out[no++] = alg_mul2(A, alg_pow(A, v, k), alg_add(A, ng, grp));
    hit = true;
  }
  if (!hit) return x;
  A->changes++;
  return alg_add(A, no, out);
}

AlgExpr *alg_collect(AlgCtx *A, AlgExpr *x, AlgExpr *v) { return collect_rec(A, x, v); }

static AlgExpr *expand_collect_rec(AlgCtx *A, AlgExpr *x, void *u) {
  AlgExpr *v = u;
  x = rebuild(A, x, expand_collect_rec, u);
  if (x->k != AK_MUL || !exp_of(x, v)) return x;
  AlgExpr *rest = alg_num(A, x->num);
  AlgExpr **sums = alg_alloc(A, sizeof *sums * (size_t)x->n);
  int ns = 0;
  for (int i = 0; i < x->n; i++) {
    if (x->a[i]->k == AK_ADD) sums[ns++] = x->a[i];
    else rest = alg_mul2(A, rest, x->a[i]);
  }
  if (!ns) return x;
  /* v*(b+c) -> v*b+v*c */
  A->changes++;
  AlgExpr *r = rest;
  for (int i = 0; i < ns; i++) r = mul_expand(A, r, sums[i]);
  return r;
}

AlgExpr *alg_expand_collect(AlgCtx *A, AlgExpr *x, AlgExpr *v) { return expand_collect_rec(A, x, v); }
