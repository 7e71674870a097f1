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

uint64_t rng_next(LeirRng *r)
{
  uint64_t *s = r->s;
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

static double acklam_central(double q)
{
  static const double a[6] = {
    -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
    1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00,
  };
  static const double b[5] = {
    -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
    6.680131188771972e+01,  -1.328068155288572e+01,
  };
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
