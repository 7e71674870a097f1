/* alg_num.c -- the numbers of the algebra (alg.h): exact rationals with
 * int64 parts (overflow is an error, never a silent wrap), exact rationals
 * spelt as floats, and inexact doubles. */
#include "passes/alg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Exact parts stay below 2^62 so that negation and one addition never
 * overflow before the checks below see them. */
#define ALG_NUM_LIMIT ((int64_t)1 << 62)

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static double ratio(int64_t p, int64_t q) { return (double)p / (double)q; }

AlgNum alg_int(int64_t v) { return (AlgNum){AN_RAT, v, 1, (double)v}; }

/* p/q in lowest terms with q > 0; false if a part is out of range. */
static bool make_exact(AlgNumKind k, int64_t p, int64_t q, AlgNum *out) {
  if (q == 0) return false;
  if (q < 0) {
    p = -p;
    q = -q;
  }
  int64_t g = gcd64(p, q);
  if (g > 1) {
    p /= g;
    q /= g;
  }
  if (p >= ALG_NUM_LIMIT || p <= -ALG_NUM_LIMIT || q >= ALG_NUM_LIMIT) return false;
  *out = (AlgNum){k, p, q, ratio(p, q)};
  return true;
}

static AlgNum real(double f) { return (AlgNum){AN_REAL, 0, 1, f}; }

AlgNum alg_rat(AlgCtx *A, int64_t p, int64_t q) {
  AlgNum r;
  if (!make_exact(AN_RAT, p, q, &r)) alg_fail(A, "a coefficient is out of range");
  return r;
}

AlgNum alg_from_double(double v) {
  if (isfinite(v)) {
    double s = v;
    for (int k = 0; k <= 30; k++, s *= 2) {
      if (s == floor(s) && fabs(s) < 9007199254740992.0) {
        AlgNum r;
        if (make_exact(AN_FRAT, (int64_t)s, (int64_t)1 << k, &r)) return r;
        break;
      }
    }
  }
  return real(v);
}

static AlgNumKind join(AlgNum a, AlgNum b) { return a.k > b.k ? a.k : b.k; }

/* An exact result that does not fit: an error for integer-literal
 * arithmetic, a downgrade to double when a float literal is involved (it
 * prints as a float anyway). */
static AlgNum overflow(AlgCtx *A, AlgNumKind k, double f) {
  if (k == AN_RAT) alg_fail(A, "a coefficient is out of range");
  return real(f);
}

AlgNum alg_num_add(AlgCtx *A, AlgNum a, AlgNum b) {
  AlgNumKind k = join(a, b);
  if (k == AN_REAL) return real(a.f + b.f);
  int64_t x, y, q;
  AlgNum r;
  if (__builtin_mul_overflow(a.p, b.q, &x) || __builtin_mul_overflow(b.p, a.q, &y) ||
      __builtin_add_overflow(x, y, &x) || __builtin_mul_overflow(a.q, b.q, &q) || !make_exact(k, x, q, &r))
    return overflow(A, k, a.f + b.f);
  return r;
}

AlgNum alg_num_mul(AlgCtx *A, AlgNum a, AlgNum b) {
  AlgNumKind k = join(a, b);
  if (k == AN_REAL) return real(a.f * b.f);
  /* cross-reduce first to keep the parts small */
  int64_t g1 = gcd64(a.p, b.q), g2 = gcd64(b.p, a.q);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  int64_t p, q;
  AlgNum r;
  if (__builtin_mul_overflow(a.p / g1, b.p / g2, &p) || __builtin_mul_overflow(a.q / g2, b.q / g1, &q) ||
      !make_exact(k, p, q, &r))
    return overflow(A, k, a.f * b.f);
  return r;
}

AlgNum alg_num_neg(AlgNum a) {
  a.p = -a.p;
  a.f = -a.f;
  return a;
}

AlgNum alg_num_inv(AlgCtx *A, AlgNum a) {
  if (alg_num_is_zero(a)) alg_fail(A, "division by zero");
  if (a.k == AN_REAL) return real(1.0 / a.f);
  AlgNum r;
  if (!make_exact(a.k, a.q, a.p, &r)) return overflow(A, a.k, 1.0 / a.f);
  return r;
}

AlgNum alg_num_div(AlgCtx *A, AlgNum a, AlgNum b) { return alg_num_mul(A, a, alg_num_inv(A, b)); }

AlgNum alg_num_pow(AlgCtx *A, AlgNum a, int64_t n) {
  if (n < 0) return alg_num_pow(A, alg_num_inv(A, a), -n);
  if (n > 256) alg_fail(A, "an exponent is out of range");
  AlgNum r = alg_int(1);
  if (a.k != AN_RAT) r.k = a.k == AN_FRAT ? AN_FRAT : AN_REAL;
  if (a.k == AN_REAL) return real(pow(a.f, (double)n));
  for (int64_t i = 0; i < n; i++) r = alg_num_mul(A, r, a);
  return r;
}

AlgNum alg_num_abs(AlgNum a) { return alg_num_sign(a) < 0 ? alg_num_neg(a) : a; }

bool alg_num_is_zero(AlgNum a) { return a.k == AN_REAL ? a.f == 0 : a.p == 0; }
bool alg_num_is_one(AlgNum a) { return a.k == AN_REAL ? a.f == 1 : a.p == 1 && a.q == 1; }
bool alg_num_is_int(AlgNum a) { return a.k != AN_REAL && a.q == 1; }
bool alg_num_exact(AlgNum a) { return a.k != AN_REAL; }

int alg_num_sign(AlgNum a) {
  if (a.k == AN_REAL) return a.f > 0 ? 1 : a.f < 0 ? -1 : 0;
  return a.p > 0 ? 1 : a.p < 0 ? -1 : 0;
}

bool alg_num_eq(AlgNum a, AlgNum b) {
  if (a.k != AN_REAL && b.k != AN_REAL) return a.p == b.p && a.q == b.q;
  return a.f == b.f;
}

AlgNum alg_num_gcd(AlgCtx *A, AlgNum a, AlgNum b) {
  int64_t p = gcd64(a.p, b.p), g = gcd64(a.q, b.q), q;
  if (p == 0) p = 1;
  if (__builtin_mul_overflow(a.q / g, b.q, &q)) alg_fail(A, "a coefficient is out of range");
  AlgNum r;
  if (!make_exact(join(a, b), p, q, &r)) alg_fail(A, "a coefficient is out of range");
  return r;
}

void alg_num_key(char *buf, size_t n, AlgNum a) {
  if (a.k == AN_REAL) snprintf(buf, n, "%a", a.f);
  else snprintf(buf, n, "%lld/%lld", (long long)a.p, (long long)a.q);
}
