/* alg_poly.c -- multivariate polynomials over Q for the algebra (alg.h):
 * arithmetic, conversion from and to canonical expressions, exact division,
 * a bounded gcd (primitive polynomial remainder sequences, recursive in the
 * variables) and partial fractions in one variable with linear denominators.
 *
 * The generators are the SYM and FN bases of an expression (sums are
 * expanded).  All sizes are bounded (ALG_MAXGEN generators, ALG_MAXTERMS
 * terms, ALG_GCD_VARS/ALG_GCD_DEG for the gcd); beyond them the operations
 * fail or refuse, never loop. */
#include "passes/alg.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ basics */

int alg_gen_index(AlgCtx *A, AlgGens *G, AlgExpr *g) {
  for (int i = 0; i < G->n; i++)
    if (alg_eq(G->g[i], g)) return i;
  if (G->n == ALG_MAXGEN) alg_fail(A, "the expression has more than %d distinct leaves", ALG_MAXGEN);
  G->g[G->n] = g;
  return G->n++;
}

static int mono_cmp(const AlgMono *a, const AlgMono *b) {
  for (int i = 0; i < ALG_MAXGEN; i++)
    if (a->e[i] != b->e[i]) return a->e[i] > b->e[i] ? -1 : 1;
  return 0;
}

static int mono_qcmp(const void *a, const void *b) { return mono_cmp(a, b); }

/* Sorts, combines and drops zero terms of t[0..n) (reusing the array). */
static AlgPoly normalize(AlgCtx *A, AlgMono *t, int n) {
  if (n > 1) qsort(t, (size_t)n, sizeof *t, mono_qcmp);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && mono_cmp(&t[k - 1], &t[i]) == 0) t[k - 1].c = alg_num_add(A, t[k - 1].c, t[i].c);
    else t[k++] = t[i];
  }
  int z = 0;
  for (int i = 0; i < k; i++)
    if (!alg_num_is_zero(t[i].c)) t[z++] = t[i];
  if (z > ALG_MAXTERMS) alg_fail(A, "a polynomial would have more than %d terms", ALG_MAXTERMS);
  return (AlgPoly){z, t};
}

static AlgMono *terms(AlgCtx *A, int n) { return alg_alloc(A, sizeof(AlgMono) * (size_t)(n ? n : 1)); }

AlgPoly alg_poly_const(AlgCtx *A, AlgNum c) {
  AlgMono *t = terms(A, 1);
  t[0].c = c;
  return normalize(A, t, 1);
}

static AlgPoly poly_gen(AlgCtx *A, int i) {
  AlgMono *t = terms(A, 1);
  t[0].c = alg_int(1);
  t[0].e[i] = 1;
  return (AlgPoly){1, t};
}

AlgPoly alg_poly_add(AlgCtx *A, AlgPoly x, AlgPoly y) {
  AlgMono *t = terms(A, x.n + y.n);
  if (x.n) memcpy(t, x.t, sizeof *t * (size_t)x.n);
  if (y.n) memcpy(t + x.n, y.t, sizeof *t * (size_t)y.n);
  return normalize(A, t, x.n + y.n);
}

AlgPoly alg_poly_scale(AlgCtx *A, AlgPoly x, AlgNum c) {
  AlgMono *t = terms(A, x.n);
  for (int i = 0; i < x.n; i++) {
    t[i] = x.t[i];
    t[i].c = alg_num_mul(A, x.t[i].c, c);
  }
  return normalize(A, t, x.n);
}

AlgPoly alg_poly_sub(AlgCtx *A, AlgPoly x, AlgPoly y) {
  return alg_poly_add(A, x, alg_poly_scale(A, y, alg_int(-1)));
}

AlgPoly alg_poly_mul(AlgCtx *A, AlgPoly x, AlgPoly y) {
  if ((int64_t)x.n * y.n > 16 * ALG_MAXTERMS)
    alg_fail(A, "a polynomial would have more than %d terms", ALG_MAXTERMS);
  AlgMono *t = terms(A, x.n * y.n);
  int k = 0;
  for (int i = 0; i < x.n; i++)
    for (int j = 0; j < y.n; j++) {
      t[k].c = alg_num_mul(A, x.t[i].c, y.t[j].c);
      for (int v = 0; v < ALG_MAXGEN; v++) {
        int e = x.t[i].e[v] + y.t[j].e[v];
        if (e > 64) alg_fail(A, "an exponent is out of range");
        t[k].e[v] = (uint8_t)e;
      }
      k++;
    }
  return normalize(A, t, k);
}

AlgPoly alg_poly_pow(AlgCtx *A, AlgPoly x, int64_t n) {
  AlgPoly r = alg_poly_const(A, alg_int(1));
  for (int64_t i = 0; i < n; i++) r = alg_poly_mul(A, r, x);
  return r;
}

bool alg_poly_is_zero(AlgPoly x) { return x.n == 0; }

static bool is_const_mono(const AlgMono *m) {
  for (int v = 0; v < ALG_MAXGEN; v++)
    if (m->e[v]) return false;
  return true;
}

bool alg_poly_is_const(AlgPoly x) { return x.n == 0 || (x.n == 1 && is_const_mono(&x.t[0])); }

bool alg_poly_eq(AlgPoly x, AlgPoly y) {
  if (x.n != y.n) return false;
  for (int i = 0; i < x.n; i++)
    if (mono_cmp(&x.t[i], &y.t[i]) || !alg_num_eq(x.t[i].c, y.t[i].c)) return false;
  return true;
}

bool alg_poly_exact(AlgPoly x) {
  for (int i = 0; i < x.n; i++)
    if (!alg_num_exact(x.t[i].c)) return false;
  return true;
}

int alg_poly_deg(AlgPoly x, int var) {
  int d = 0;
  for (int i = 0; i < x.n; i++)
    if (x.t[i].e[var] > d) d = x.t[i].e[var];
  return d;
}

/* The coefficient of var**k: the terms with that exponent, var removed. */
static AlgPoly coeff(AlgCtx *A, AlgPoly x, int var, int k) {
  AlgMono *t = terms(A, x.n);
  int n = 0;
  for (int i = 0; i < x.n; i++)
    if (x.t[i].e[var] == k) {
      t[n] = x.t[i];
      t[n++].e[var] = 0;
    }
  return normalize(A, t, n);
}

/* x * var**k */
static AlgPoly shift(AlgCtx *A, AlgPoly x, int var, int k) {
  AlgMono *t = terms(A, x.n);
  for (int i = 0; i < x.n; i++) {
    t[i] = x.t[i];
    if (t[i].e[var] + k > 64) alg_fail(A, "an exponent is out of range");
    t[i].e[var] = (uint8_t)(t[i].e[var] + k);
  }
  return (AlgPoly){x.n, t};
}

/* ------------------------------------------------------------ expressions */

AlgExpr *alg_poly_to_expr(AlgCtx *A, const AlgGens *G, AlgPoly x) {
  AlgExpr **ts = alg_alloc(A, sizeof *ts * (size_t)(x.n ? x.n : 1));
  for (int i = 0; i < x.n; i++) {
    AlgExpr *f[ALG_MAXGEN + 1];
    int n = 0;
    f[n++] = alg_num(A, x.t[i].c);
    for (int v = 0; v < G->n; v++)
      if (x.t[i].e[v]) f[n++] = alg_pow(A, G->g[v], x.t[i].e[v]);
    ts[i] = alg_mul(A, n, f);
  }
  return alg_add(A, x.n, ts);
}

/* num/den += p/q, over the least common multiple when the gcd is cheap. */
static void add_fraction(AlgCtx *A, AlgPoly *num, AlgPoly *den, AlgPoly p, AlgPoly q) {
  if (alg_poly_eq(*den, q)) {
    *num = alg_poly_add(A, *num, p);
    return;
  }
  AlgPoly g, a = q, b = *den;
  const char *why;
  if (alg_poly_gcd(A, *den, q, &g, &why) && !alg_poly_is_const(g)) {
    bool ok = alg_poly_div_exact(A, q, g, &a) && alg_poly_div_exact(A, *den, g, &b);
    if (!ok) a = q, b = *den;
  }
  *num = alg_poly_add(A, alg_poly_mul(A, *num, a), alg_poly_mul(A, p, b));
  *den = alg_poly_mul(A, *den, a);
}

void alg_poly_from_expr(AlgCtx *A, AlgGens *G, AlgExpr *x, AlgPoly *num, AlgPoly *den) {
  AlgPoly one = alg_poly_const(A, alg_int(1));
  switch (x->k) {
  case AK_NUM:
    *num = alg_poly_const(A, x->num);
    *den = one;
    return;
  case AK_SYM:
  case AK_FN:
    *num = poly_gen(A, alg_gen_index(A, G, x));
    *den = one;
    return;
  case AK_POW: {
    AlgPoly p, q;
    alg_poly_from_expr(A, G, x->base, &p, &q);
    if (x->exp < 0) {
      if (alg_poly_is_zero(p)) alg_fail(A, "division by zero");
      AlgPoly t = p;
      p = q;
      q = t;
    }
    int64_t n = x->exp < 0 ? -x->exp : x->exp;
    *num = alg_poly_pow(A, p, n);
    *den = alg_poly_pow(A, q, n);
    return;
  }
  case AK_MUL: {
    *num = alg_poly_const(A, x->num);
    *den = one;
    for (int i = 0; i < x->n; i++) {
      AlgPoly p, q;
      alg_poly_from_expr(A, G, x->a[i], &p, &q);
      *num = alg_poly_mul(A, *num, p);
      *den = alg_poly_mul(A, *den, q);
    }
    return;
  }
  case AK_ADD: {
    *num = alg_poly_const(A, alg_int(0));
    *den = one;
    for (int i = 0; i < x->n; i++) {
      AlgPoly p, q;
      alg_poly_from_expr(A, G, x->a[i], &p, &q);
      add_fraction(A, num, den, p, q);
    }
    return;
  }
  }
}

/* ------------------------------------------------------------ division and gcd */

static bool divides_mono(const AlgMono *d, const AlgMono *m) {
  for (int v = 0; v < ALG_MAXGEN; v++)
    if (d->e[v] > m->e[v]) return false;
  return true;
}

bool alg_poly_div_exact(AlgCtx *A, AlgPoly x, AlgPoly d, AlgPoly *q) {
  if (d.n == 0) return false;
  if (d.n == 1) { /* term by term, exact even with inexact coefficients */
    AlgMono *t = terms(A, x.n);
    for (int i = 0; i < x.n; i++) {
      if (!divides_mono(&d.t[0], &x.t[i])) return false;
      t[i].c = alg_num_div(A, x.t[i].c, d.t[0].c);
      for (int v = 0; v < ALG_MAXGEN; v++) t[i].e[v] = (uint8_t)(x.t[i].e[v] - d.t[0].e[v]);
    }
    *q = normalize(A, t, x.n);
    return true;
  }
  if (!alg_poly_exact(x) || !alg_poly_exact(d)) return false;
  AlgPoly r = x, acc = alg_poly_const(A, alg_int(0));
  for (int guard = 0; r.n > 0; guard++) {
    if (guard > 4 * ALG_MAXTERMS || !divides_mono(&d.t[0], &r.t[0])) return false;
    AlgMono *m = terms(A, 1);
    m->c = alg_num_div(A, r.t[0].c, d.t[0].c);
    for (int v = 0; v < ALG_MAXGEN; v++) m->e[v] = (uint8_t)(r.t[0].e[v] - d.t[0].e[v]);
    AlgPoly mp = {1, m};
    acc = alg_poly_add(A, acc, mp);
    r = alg_poly_sub(A, r, alg_poly_mul(A, mp, d));
  }
  *q = acc;
  return true;
}

AlgNum alg_poly_content(AlgCtx *A, AlgPoly x) {
  if (x.n == 0) return alg_int(1);
  int sign = alg_num_sign(x.t[0].c);
  if (!alg_poly_exact(x)) return alg_int(sign < 0 ? -1 : 1);
  AlgNum g = alg_num_abs(x.t[0].c);
  for (int i = 1; i < x.n; i++) g = alg_num_gcd(A, g, x.t[i].c);
  return sign < 0 ? alg_num_neg(g) : g;
}

static AlgPoly primitive(AlgCtx *A, AlgPoly x) {
  if (x.n == 0) return x;
  return alg_poly_scale(A, x, alg_num_inv(A, alg_poly_content(A, x)));
}

/* The monomial gcd of the terms of x (coefficient 1). */
static AlgMono mono_content(AlgPoly x) {
  AlgMono m = {0};
  m.c = alg_int(1);
  for (int v = 0; v < ALG_MAXGEN; v++) {
    int e = 255;
    for (int i = 0; i < x.n; i++)
      if (x.t[i].e[v] < e) e = x.t[i].e[v];
    m.e[v] = (uint8_t)(x.n ? e : 0);
  }
  return m;
}

static AlgPoly mono_poly(AlgCtx *A, AlgMono m) {
  AlgMono *t = terms(A, 1);
  *t = m;
  return (AlgPoly){1, t};
}

static AlgPoly gcd_rec(AlgCtx *A, AlgPoly a, AlgPoly b, unsigned vars);

/* gcd of the coefficients of x in var (polynomials in the other vars). */
static AlgPoly content_in(AlgCtx *A, AlgPoly x, int var, unsigned vars) {
  AlgPoly g = {0, NULL};
  for (int k = alg_poly_deg(x, var); k >= 0; k--) {
    AlgPoly c = coeff(A, x, var, k);
    if (c.n) g = g.n ? gcd_rec(A, g, c, vars & ~(1u << var)) : primitive(A, c);
  }
  return g;
}

/* Pseudo-remainder of a by b in var, made primitive over Q. */
static AlgPoly prem(AlgCtx *A, AlgPoly a, AlgPoly b, int var) {
  int n = alg_poly_deg(b, var);
  AlgPoly lcb = coeff(A, b, var, n), r = a;
  for (int guard = 0; r.n > 0 && alg_poly_deg(r, var) >= n; guard++) {
    if (guard > 64) alg_fail(A, "the gcd does not converge");
    int d = alg_poly_deg(r, var);
    AlgPoly lcr = coeff(A, r, var, d);
    r = alg_poly_sub(A, alg_poly_mul(A, lcb, r), alg_poly_mul(A, shift(A, lcr, var, d - n), b));
    r = primitive(A, r);
  }
  return r;
}

static AlgPoly exact_quot(AlgCtx *A, AlgPoly x, AlgPoly d) {
  AlgPoly q;
  if (!alg_poly_div_exact(A, x, d, &q)) alg_fail(A, "internal: inexact division in gcd");
  return q;
}

static AlgPoly gcd_rec(AlgCtx *A, AlgPoly a, AlgPoly b, unsigned vars) {
  if (a.n == 0) return primitive(A, b);
  if (b.n == 0) return primitive(A, a);
  int var = -1;
  for (int v = ALG_MAXGEN - 1; v >= 0 && var < 0; v--)
    if ((vars & (1u << v)) && (alg_poly_deg(a, v) > 0 || alg_poly_deg(b, v) > 0)) var = v;
  if (var < 0) return alg_poly_const(A, alg_int(1)); /* two constants */
  unsigned rest = vars & ~(1u << var);
  AlgPoly ca = content_in(A, a, var, vars), cb = content_in(A, b, var, vars);
  AlgPoly c = gcd_rec(A, ca, cb, rest);
  if (alg_poly_deg(a, var) == 0 || alg_poly_deg(b, var) == 0) return c;
  AlgPoly pa = exact_quot(A, a, ca), pb = exact_quot(A, b, cb);
  if (alg_poly_deg(pa, var) < alg_poly_deg(pb, var)) {
    AlgPoly t = pa;
    pa = pb;
    pb = t;
  }
  for (int guard = 0;; guard++) {
    if (guard > 32) alg_fail(A, "the gcd does not converge");
    AlgPoly r = prem(A, pa, pb, var);
    if (r.n == 0) break;
    if (alg_poly_deg(r, var) == 0) {
      pb = alg_poly_const(A, alg_int(1));
      break;
    }
    pa = pb;
    pb = exact_quot(A, r, content_in(A, r, var, vars));
  }
  if (alg_poly_deg(pb, var) > 0) pb = exact_quot(A, pb, content_in(A, pb, var, vars));
  else pb = alg_poly_const(A, alg_int(1));
  return primitive(A, alg_poly_mul(A, c, pb));
}

bool alg_poly_gcd(AlgCtx *A, AlgPoly x, AlgPoly y, AlgPoly *g, const char **why) {
  *why = NULL;
  if (x.n == 0 || y.n == 0) {
    *g = primitive(A, x.n ? x : y);
    return true;
  }
  AlgMono mx = mono_content(x), my = mono_content(y), mg = mx;
  for (int v = 0; v < ALG_MAXGEN; v++)
    if (my.e[v] < mg.e[v]) mg.e[v] = my.e[v];
  if (x.n == 1 || y.n == 1) {
    *g = mono_poly(A, mg);
    return true;
  }
  AlgPoly px = exact_quot(A, x, mono_poly(A, mx)), py = exact_quot(A, y, mono_poly(A, my));
  if (!alg_poly_exact(px) || !alg_poly_exact(py)) {
    *why = "the polynomials have inexact (floating-point) coefficients";
    return false;
  }
  unsigned vars = 0;
  int nv = 0;
  for (int v = 0; v < ALG_MAXGEN; v++) {
    int dx = alg_poly_deg(px, v), dy = alg_poly_deg(py, v);
    if (dx || dy) {
      vars |= 1u << v;
      nv++;
      if (dx > ALG_GCD_DEG || dy > ALG_GCD_DEG) {
        *why = "a variable has degree above 4";
        return false;
      }
    }
  }
  if (nv > ALG_GCD_VARS) {
    *why = "the polynomials have more than 4 variables";
    return false;
  }
  AlgPoly h = gcd_rec(A, px, py, vars);
  *g = alg_poly_mul(A, mono_poly(A, mg), h);
  return true;
}

/* ------------------------------------------------------------ partial fractions */

enum { PF_MAXDEG = 4 };

/* Exact univariate polynomial: c[0..n], c[n] != 0. */
typedef struct Uni {
  int n;
  AlgNum c[PF_MAXDEG + 1];
} Uni;

static AlgNum uni_eval(AlgCtx *A, const Uni *u, AlgNum x) {
  AlgNum r = alg_int(0);
  for (int k = u->n; k >= 0; k--) r = alg_num_add(A, alg_num_mul(A, r, x), u->c[k]);
  return r;
}

/* u / (v - r), exact (r a root). */
static Uni uni_deflate(AlgCtx *A, const Uni *u, AlgNum r) {
  Uni q = {u->n - 1, {{0}}};
  AlgNum b = alg_int(0);
  for (int k = u->n; k >= 1; k--) {
    b = alg_num_add(A, u->c[k], alg_num_mul(A, r, b));
    q.c[k - 1] = b;
  }
  return q;
}

static int64_t iabs64(int64_t v) { return v < 0 ? -v : v; }

typedef struct Root {
  AlgNum r;
  int mult;
} Root;

/* Rational roots of u (with multiplicities), in ascending order; fails
 * unless u splits into linear factors. */
static int uni_roots(AlgCtx *A, Uni u, Root *roots, const char *vname) {
  int nr = 0, z = 0;
  while (z <= u.n && alg_num_is_zero(u.c[z])) z++;
  if (z) {
    roots[nr++] = (Root){alg_int(0), z};
    for (int k = 0; k + z <= u.n; k++) u.c[k] = u.c[k + z];
    u.n -= z;
  }
  if (u.n == 0) return nr;
  /* integer coefficients */
  AlgNum l = alg_int(1);
  for (int k = 0; k <= u.n; k++) l = alg_num_mul(A, l, alg_int(u.c[k].q / alg_num_gcd(A, l, alg_int(u.c[k].q)).p));
  for (int k = 0; k <= u.n; k++) u.c[k] = alg_num_mul(A, u.c[k], l);
  int64_t a0 = iabs64(u.c[0].p), an = iabs64(u.c[u.n].p);
  if (a0 > 1000000 || an > 1000000)
    alg_fail(A, "the denominator's coefficients are too large to factor in '%s'", vname);
  /* candidates p/q, p | a0, q | an, ascending */
  AlgNum cand[512];
  int nc = 0;
  for (int64_t p = 1; p <= a0 && nc < 500; p++) {
    if (a0 % p) continue;
    for (int64_t q = 1; q <= an && nc < 500; q++) {
      if (an % q) continue;
      cand[nc++] = alg_rat(A, -p, q);
      cand[nc++] = alg_rat(A, p, q);
    }
  }
  for (int i = 1; i < nc; i++)
    for (int j = i; j > 0 && cand[j - 1].f > cand[j].f; j--) {
      AlgNum t = cand[j];
      cand[j] = cand[j - 1];
      cand[j - 1] = t;
    }
  for (int i = 0; i < nc && u.n > 0; i++) {
    if (i && alg_num_eq(cand[i], cand[i - 1])) continue;
    int m = 0;
    while (u.n > 0 && alg_num_is_zero(uni_eval(A, &u, cand[i]))) {
      u = uni_deflate(A, &u, cand[i]);
      m++;
    }
    if (m) {
      /* keep ascending order with the zero root in place */
      int j = nr++;
      while (j > 0 && roots[j - 1].r.f > cand[i].f) {
        roots[j] = roots[j - 1];
        j--;
      }
      roots[j] = (Root){cand[i], m};
    }
  }
  if (u.n > 0) alg_fail(A, "the denominator does not split into linear factors in '%s' over the rationals", vname);
  return nr;
}

/* (v - r)**k as a univariate polynomial times `acc`. */
static Uni uni_mul_lin(AlgCtx *A, Uni acc, AlgNum r, int k) {
  for (int i = 0; i < k; i++) {
    Uni t = {acc.n + 1, {{0}}};
    for (int j = 0; j <= t.n; j++) t.c[j] = alg_int(0);
    for (int j = 0; j <= acc.n; j++) {
      t.c[j + 1] = alg_num_add(A, t.c[j + 1], acc.c[j]);
      t.c[j] = alg_num_add(A, t.c[j], alg_num_mul(A, alg_num_neg(r), acc.c[j]));
    }
    acc = t;
  }
  return acc;
}

/* q*v - p for the root r = p/q, raised to -j, times q**j: 1/(v - r)**j. */
static AlgExpr *inv_lin(AlgCtx *A, AlgExpr *v, AlgNum r, int j) {
  AlgExpr *lin = alg_add2(A, alg_scale(A, v, alg_int(r.q)), alg_num(A, alg_int(-r.p)));
  return alg_mul2(A, alg_num(A, alg_num_pow(A, alg_int(r.q), j)), alg_pow(A, lin, -j));
}

/* A polynomial part of the result, its common factors pulled out (for a
 * readable numerator), without counting as a rule application. */
static AlgExpr *part_expr(AlgCtx *A, const AlgGens *G, AlgPoly p) {
  int saved = A->changes;
  AlgExpr *x = alg_factor(A, alg_poly_to_expr(A, G, p));
  A->changes = saved;
  return x;
}

/* den = c*m * D(v): the numeric content and the monomial in the other
 * generators apart (*m), D as a univariate polynomial (*u). */
static AlgPoly split_denominator(AlgCtx *A, AlgGens *G, AlgPoly den, int v, const char *vname, AlgMono *m, Uni *u) {
  if (alg_poly_deg(den, v) == 0) alg_fail(A, "'%s' does not occur in the denominator", vname);
  if (!alg_poly_exact(den)) alg_fail(A, "the denominator has inexact (floating-point) coefficients");
  *m = mono_content(den);
  m->e[v] = 0;
  m->c = alg_poly_content(A, den);
  AlgPoly D = exact_quot(A, den, mono_poly(A, *m));
  for (int i = 0; i < D.n; i++)
    for (int g = 0; g < ALG_MAXGEN; g++)
      if (g != v && D.t[i].e[g])
        alg_fail(A, "the denominator is not a polynomial in '%s' alone (it contains %s)", vname, alg_bare(A, G->g[g]));
  u->n = alg_poly_deg(D, v);
  if (u->n > PF_MAXDEG) alg_fail(A, "the denominator has degree %d in '%s' (at most %d)", u->n, vname, PF_MAXDEG);
  for (int k = 0; k <= u->n; k++) u->c[k] = alg_int(0);
  for (int i = 0; i < D.n; i++) u->c[D.t[i].e[v]] = D.t[i].c;
  return D;
}

/* num = quot*D + rem in v, D with a numeric leading coefficient lc. */
static AlgPoly divide_in(AlgCtx *A, AlgPoly num, AlgPoly D, int v, int n, AlgNum lc, AlgPoly *quot) {
  AlgPoly rem = num;
  *quot = alg_poly_const(A, alg_int(0));
  for (int guard = 0; rem.n && alg_poly_deg(rem, v) >= n; guard++) {
    if (guard > 64) alg_fail(A, "the division does not converge");
    int d = alg_poly_deg(rem, v);
    AlgPoly t = alg_poly_scale(A, shift(A, coeff(A, rem, v, d), v, d - n), alg_num_inv(A, lc));
    *quot = alg_poly_add(A, *quot, t);
    rem = alg_poly_sub(A, rem, alg_poly_mul(A, t, D));
    /* the leading terms cancel exactly in exact arithmetic; drop what
     * rounding leaves of them with float coefficients */
    AlgMono *kept = terms(A, rem.n);
    int nk = 0;
    for (int i = 0; i < rem.n; i++)
      if (rem.t[i].e[v] != d) kept[nk++] = rem.t[i];
    rem = (AlgPoly){nk, kept};
  }
  return rem;
}

/* The numerators c_col of rem/D = sum c_col/(v-r)**j (col = the pairs
 * (root, j)), by matching the coefficients of v**0..v**(n-1): an exact
 * numeric matrix with polynomial right-hand sides (Gaussian elimination). */
static void solve_residues(AlgCtx *A, AlgPoly rem, int v, AlgNum lc, const Root *roots, int nr, int n, AlgPoly *rhs,
                           int *col_root, int *col_pow) {
  AlgNum M[PF_MAXDEG][PF_MAXDEG];
  int col = 0;
  for (int i = 0; i < nr; i++)
    for (int j = 1; j <= roots[i].mult; j++) {
      Uni b = {0, {alg_int(1)}};
      for (int l = 0; l < nr; l++) b = uni_mul_lin(A, b, roots[l].r, roots[l].mult - (l == i ? j : 0));
      for (int m2 = 0; m2 < n; m2++) M[m2][col] = m2 <= b.n ? b.c[m2] : alg_int(0);
      col_root[col] = i;
      col_pow[col] = j;
      col++;
    }
  for (int m2 = 0; m2 < n; m2++) rhs[m2] = alg_poly_scale(A, coeff(A, rem, v, m2), alg_num_inv(A, lc));
  for (int c = 0; c < n; c++) {
    int p = c;
    while (p < n && alg_num_is_zero(M[p][c])) p++;
    if (p == n) alg_fail(A, "internal: singular partial-fraction system");
    for (int k = 0; k < n; k++) {
      AlgNum t = M[c][k];
      M[c][k] = M[p][k];
      M[p][k] = t;
    }
    AlgPoly t = rhs[c];
    rhs[c] = rhs[p];
    rhs[p] = t;
    AlgNum inv = alg_num_inv(A, M[c][c]);
    for (int k = 0; k < n; k++) M[c][k] = alg_num_mul(A, M[c][k], inv);
    rhs[c] = alg_poly_scale(A, rhs[c], inv);
    for (int r = 0; r < n; r++) {
      if (r == c || alg_num_is_zero(M[r][c])) continue;
      AlgNum f = M[r][c];
      for (int k = 0; k < n; k++) M[r][k] = alg_num_add(A, M[r][k], alg_num_neg(alg_num_mul(A, f, M[c][k])));
      rhs[r] = alg_poly_sub(A, rhs[r], alg_poly_scale(A, rhs[c], f));
    }
  }
}

AlgExpr *alg_partial_fractions(AlgCtx *A, AlgGens *G, AlgPoly num, AlgPoly den, int v) {
  const char *vname = alg_bare(A, G->g[v]);
  AlgMono m;
  Uni u;
  AlgPoly D = split_denominator(A, G, den, v, vname, &m, &u), quot;
  AlgNum lc = u.c[u.n];
  AlgPoly rem = divide_in(A, num, D, v, u.n, lc, &quot);
  Root roots[PF_MAXDEG];
  int nr = uni_roots(A, u, roots, vname), n = u.n;
  AlgPoly rhs[PF_MAXDEG];
  int col_root[PF_MAXDEG], col_pow[PF_MAXDEG];
  solve_residues(A, rem, v, lc, roots, nr, n, rhs, col_root, col_pow);
  /* quot + sum rhs[c]/(v-r)**j, every part divided by c*m */
  AlgExpr *inv_m = alg_pow(A, alg_poly_to_expr(A, G, mono_poly(A, m)), -1);
  AlgExpr **parts = alg_alloc(A, sizeof *parts * (size_t)(n + 1));
  int np = 0;
  if (quot.n) parts[np++] = alg_mul2(A, part_expr(A, G, quot), inv_m);
  for (int c = 0; c < n; c++) {
    if (!rhs[c].n) continue;
    AlgExpr *f[3] = {part_expr(A, G, rhs[c]), inv_lin(A, G->g[v], roots[col_root[c]].r, col_pow[c]), inv_m};
    parts[np++] = alg_mul(A, 3, f);
  }
  return alg_add(A, np, parts);
}
