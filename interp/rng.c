/* rng.c -- deterministic pseudo-random inputs (see rng.h). */

/* Bit-reproducibility: no fused multiply-adds, no excess precision. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "interp/rng.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#if defined(FLT_EVAL_METHOD) && (FLT_EVAL_METHOD == 1 || FLT_EVAL_METHOD == 2)
#error "rng.c needs FLT_EVAL_METHOD == 0 (x87 excess precision breaks reproducibility; use SSE2)"
#endif

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)

/* ------------------------------------------------------------ generator */

static uint64_t mix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t splitmix64_next(uint64_t *x)
{
  *x += GOLDEN_GAMMA;
  return mix64(*x);
}

static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

void rng_seed(LeirRng *r, uint64_t seed, uint64_t stream)
{
  uint64_t sm = mix64(mix64(seed + GOLDEN_GAMMA) ^ stream);
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64_next(&sm);
  if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
    r->s[0] = GOLDEN_GAMMA; /* the all-zero state is a fixed point */
}

/* xoshiro256** (static, so that the batched fill below inlines it: the
 * exported rng_next is not inlined into a shared library's own calls). */
static inline uint64_t xoshiro_next(uint64_t *s)
{
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t rng_next(LeirRng *r) { return xoshiro_next(r->s); }

double rng_uniform(LeirRng *r)
{
  return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_hash_string(const char *s)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    h ^= *p;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* ------------------------------------------------------------ log */

static double from_bits(uint64_t b)
{
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static uint64_t to_bits(double d)
{
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* log(m) for m in [sqrt(1/2), sqrt(2)): 2 * (s + s^3/3 + ... + s^23/23). */
static double log_near_one(double m)
{
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double sum = 0.0;
  for (int k = 23; k >= 3; k -= 2)
    sum = (sum + 1.0 / k) * s2;
  return 2.0 * (s + s * sum);
}

double rng_log(double x)
{
  static const double ln2_hi = 6.93147180369123816490e-01; /* 0x3fe62e42fee00000 */
  static const double ln2_lo = 1.90821492927058770002e-10;
  static const double sqrt2 = 1.41421356237309514547;
  if (x != x || x < 0.0)
    return NAN;
  if (x == 0.0)
    return -INFINITY;
  if (x == INFINITY)
    return INFINITY;
  int k = 0;
  if (x < DBL_MIN) { /* subnormal: scale by 2^54 exactly */
    x *= 0x1.0p54;
    k = -54;
  }
  uint64_t b = to_bits(x);
  k += (int)((b >> 52) & 0x7ff) - 1023;
  double m = from_bits((b & UINT64_C(0x000fffffffffffff)) |
                       UINT64_C(0x3ff0000000000000)); /* [1, 2) */
  if (m >= sqrt2) {
    m *= 0.5;
    k += 1;
  }
  double dk = (double)k;
  return dk * ln2_hi + (log_near_one(m) + dk * ln2_lo);
}

/* ------------------------------------------------------------ normal */

static double acklam_tail(double q)
{
  static const double c[6] = {
    -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
    -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00,
  };
  static const double d[4] = {
    7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
    3.754408661907416e+00,
  };
  double num = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5];
  double den = (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0;
  return num / den;
}

/* Acklam's central-region coefficients, shared by acklam_central and its
 * lane-by-lane copy vec_central (the same values, the same order). */
static const double acklam_a[6] = {
  -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
  1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00,
};
static const double acklam_b[5] = {
  -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
  6.680131188771972e+01,  -1.328068155288572e+01,
};

static double acklam_central(double q)
{
  const double *a = acklam_a, *b = acklam_b;
  double r = q * q;
  double num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q;
  double den = ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0;
  return num / den;
}

double rng_normal_quantile(double p)
{
  static const double p_low = 0.02425;
  if (p != p)
    return p;
  if (p <= 0.0)
    return -INFINITY;
  if (p >= 1.0)
    return INFINITY;
  if (p < p_low)
    return acklam_tail(sqrt(-2.0 * rng_log(p)));
  if (p <= 1.0 - p_low)
    return acklam_central(p - 0.5);
  return -acklam_tail(sqrt(-2.0 * rng_log(1.0 - p)));
}

double rng_normal(LeirRng *r)
{
  double p = ((double)(rng_next(r) >> 12) + 0.5) * 0x1.0p-52;
  return rng_normal_quantile(p);
}

/* ------------------------------------------------------------ in batches
 *
 * The same formulas as above, lane by lane on GCC/Clang vector types (2
 * doubles: one SSE2 or NEON register), so that the compiler emits packed
 * arithmetic.  Every lane computes exactly the scalar
 * expression, in the same order, with IEEE-754 +, -, *, / (correctly
 * rounded, no contraction): the bits are those of the scalar functions.
 * The batch first computes the central formula for every lane, then
 * redoes the lanes in the tails (about 4.9 % of them), whose logarithm is
 * again computed two at a time; lanes outside what the vector code
 * covers (p not in (0, 1), NaN, a tail argument below DBL_MIN) take the
 * scalar rng_normal_quantile. */

typedef double VecD __attribute__((vector_size(16)));
typedef int64_t VecL __attribute__((vector_size(16)));
typedef uint64_t VecU __attribute__((vector_size(16)));
enum { VEC_N = 2 };

static VecD vec_load(const double *p)
{
  VecD v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void vec_store(double *p, VecD v) { memcpy(p, &v, sizeof v); }

/* acklam_central, lane by lane. */
static VecD vec_central(VecD q)
{
  const double *a = acklam_a, *b = acklam_b;
  VecD r = q * q;
  VecD num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q;
  VecD den = ((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0;
  return num / den;
}

/* rng_log, lane by lane, for x normal, positive and finite. */
static VecD vec_log(VecD x)
{
  static const double ln2_hi = 6.93147180369123816490e-01;
  static const double ln2_lo = 1.90821492927058770002e-10;
  static const double sqrt2 = 1.41421356237309514547;
  VecU b = (VecU)x;
  /* the biased exponent e (1..2046) as a double, exactly: the bits of
     2^52 + e minus 2^52 */
  VecD e = (VecD)(((b >> 52) & 0x7ff) | UINT64_C(0x4330000000000000)) - 0x1.0p52;
  VecD m = (VecD)((b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000));
  VecL big = (VecL)(m >= sqrt2); /* all ones where m >= sqrt(2) */
  m = (VecD)(((VecL)(m * 0.5) & big) | ((VecL)m & ~big));
  VecD dk = (e - 1023.0) + (VecD)((VecL)((VecD){0} + 1.0) & big);
  VecD s = (m - 1.0) / (m + 1.0);
  VecD s2 = s * s;
  VecD sum = (VecD){0};
  for (int k = 23; k >= 3; k -= 2)
    sum = (sum + 1.0 / k) * s2;
  return dk * ln2_hi + (2.0 * (s + s * sum) + dk * ln2_lo);
}

void rng_normal_quantiles(const double *p, double *x, size_t n)
{
  static const double p_low = 0.02425;
  enum { BLOCK = 256 };
  double t[BLOCK + VEC_N], lg[BLOCK + VEC_N], other[BLOCK];
  size_t at[BLOCK], other_at[BLOCK];
  bool up[BLOCK];
  for (size_t i0 = 0; i0 < n; i0 += BLOCK) {
    size_t m = n - i0 < BLOCK ? n - i0 : BLOCK, i;
    const double *pb = p + i0;
    double *xb = x + i0;
    /* the lanes in the tails, before xb (which may be pb) is written:
       their arguments of rng_log gathered; the rest scalar */
    size_t nt = 0, no = 0;
    for (i = 0; i < m; i++) {
      double q = pb[i];
      if (q >= p_low && q <= 1.0 - p_low)
        continue;
      double a = q < p_low ? q : 1.0 - q;
      if (!(q > 0.0 && q < 1.0) || a < DBL_MIN) {
        other[no] = rng_normal_quantile(q);
        other_at[no++] = i;
        continue;
      }
      t[nt] = a;
      up[nt] = q >= p_low;
      at[nt++] = i;
    }
    for (i = 0; i + VEC_N <= m; i += VEC_N)
      vec_store(xb + i, vec_central(vec_load(pb + i) - 0.5));
    for (; i < m; i++)
      xb[i] = acklam_central(pb[i] - 0.5);
    for (size_t j = nt; j % VEC_N; j++)
      t[j] = 0.5; /* padding */
    for (size_t j = 0; j < nt; j += VEC_N)
      vec_store(lg + j, vec_log(vec_load(t + j)));
    for (size_t j = 0; j < nt; j++) {
      double y = acklam_tail(sqrt(-2.0 * lg[j]));
      xb[at[j]] = up[j] ? -y : y;
    }
    for (size_t j = 0; j < no; j++)
      xb[other_at[j]] = other[j];
  }
}

void rng_normal_fill(LeirRng *r, double *x, size_t n)
{
  /* p = (k + 0.5) 2^-52 for the top 52 bits k of each draw: k as a double
     is the bits of 2^52 + k minus 2^52, exactly */
  uint64_t s[4] = {r->s[0], r->s[1], r->s[2], r->s[3]};
  for (size_t i = 0; i < n; i++) {
    uint64_t k = xoshiro_next(s) >> 12;
    x[i] = ((from_bits(k | UINT64_C(0x4330000000000000)) - 0x1.0p52) + 0.5) * 0x1.0p-52;
  }
  memcpy(r->s, s, sizeof s);
  rng_normal_quantiles(x, x, n);
}
