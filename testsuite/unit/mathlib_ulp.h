/* mathlib_ulp.h -- the error of an f32 routine of ir/mathlib.c against the
 * correctly rounded result, over a strided set of f32 bit patterns (all of
 * them with stride 1).  Shared by testsuite/unit/mathlib_test.c (a strided
 * subset, in make check) and bench/mathlib_exhaustive.c (every input,
 * `make mathlib-exhaustive`).
 *
 * The reference: leirc's f64 routine of the same function (within 1 ulp of
 * f64, mathlib_test checks it), rounded to f32.  That rounding is the
 * correctly rounded f32 result unless the f64 value lies within 2^-50 (about
 * 8 f64 ulps) of an f32 rounding boundary; there the long double libm
 * function (64-bit significand) decides, and a case still within 2^-60 of the
 * boundary is counted as unresolved (none is expected).  The error in f32
 * ulps is |r - ref| / 2^(max(e - 24, -149)), ref = m 2^e with m in [0.5, 1),
 * taken against the more precise of the two references (an f32 result and an
 * f64 reference differ by a few f32 ulps at most, exactly in f64).  A NaN input must
 * come back bit for bit; other NaN results must be NaN where the reference
 * is.  Inputs whose correctly rounded result is known in closed form (see
 * ml_known_exp) are compared with it instead of the reference. */
#ifndef LEIR_TESTSUITE_MATHLIB_ULP_H
#define LEIR_TESTSUITE_MATHLIB_ULP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  double max_ulp;     /* the largest error, in f32 ulps */
  float at;           /* where */
  uint64_t n;         /* inputs checked */
  uint64_t wrong;     /* results other than the correctly rounded one */
  uint64_t unresolved;/* too close to a boundary for the long double reference */
  uint64_t bad_nan;   /* NaN handling differs */
  double max_norm;    /* the largest error where the correctly rounded result is */
  float at_norm;      /* not subnormal (|result| >= 2^-126 or +-0), and where */
} MlUlp;

static inline double ml_ulp32(double ref) { /* ref finite, nonzero or not */
  uint64_t u;
  memcpy(&u, &ref, 8);
  int e = (int)((u >> 52) & 0x7ff) - 1023; /* ref = 1.m 2^e (ref is a normal double here) */
  e = e - 23 < -149 ? -149 : e - 23;
  u = (uint64_t)(e + 1023) << 52;
  double q;
  memcpy(&q, &u, 8);
  return q;
}

/* exp's correctly rounded f32 result where it is known in closed form (1
   when |x| < 2^-25: e^x lies strictly between the midpoints 1 - 2^-25 and
   1 + 2^-24 around 1; +inf when x >= 89 > 128 ln 2; 0 when x <= -104 <
   -150 ln 2, e^x < 2^-150 being under half the least subnormal): those
   inputs, more than half of all, need no reference. */
static inline int ml_known_exp(float x, float *r) {
  if (fabsf(x) < 0x1p-25f) *r = 1.0f;
  else if (x >= 89.0f) *r = INFINITY;
  else if (x <= -104.0f) *r = 0.0f;
  else return 0;
  return 1;
}

/* log's where known: 0 at 1, -inf at +-0, +inf at +inf, the quiet NaN
   0x7fc00000 (bit for bit) below 0 */
static inline int ml_known_log(float x, float *r) {
  uint32_t qnan = 0x7fc00000u;
  if (x == 1.0f) *r = 0.0f;
  else if (x == 0.0f) *r = -INFINITY;
  else if (x == INFINITY) *r = INFINITY;
  else if (x < 0.0f) memcpy(r, &qnan, 4);
  else return 0;
  return 1;
}

/* erf's where known: +-1 for |x| >= 4 (erfc(4) < 2^-25, under half an ulp
   below 1), x itself at +-0 */
static inline int ml_known_erf(float x, float *r) {
  if (fabsf(x) >= 4.0f) *r = copysignf(1.0f, x);
  else if (x == 0.0f) *r = x;
  else return 0;
  return 1;
}

/* x^3 (leir_powf(x, 3) = x*(x*x) in f32, issue 59): the references are
   x*x*x in f64 (x*x exact, one rounding to 53 bits) and in long double (one
   rounding to 64 bits); no closed forms needed */
static inline double ml_cube64(double x) { return x * x * x; }
static inline long double ml_cubel(long double x) { return x * x * x; }

/* f32 patterns u = first, first + stride, ... < end (end <= 2^32); known,
   when not NULL, gives the correctly rounded result of the inputs it knows */
static inline void ml_ulp_check(MlUlp *s, float (*f)(float), double (*ref64)(double),
                                long double (*refl)(long double), int (*known)(float, float *),
                                uint64_t first, uint64_t end, uint64_t stride) {
  for (uint64_t u = first; u < end; u += stride) {
    uint32_t b = (uint32_t)u, rb;
    float x, r;
    memcpy(&x, &b, 4);
    r = f(x);
    memcpy(&rb, &r, 4);
    s->n++;
    if (x != x) {
      s->bad_nan += rb != b;
      continue;
    }
    float kr;
    if (known && known(x, &kr)) {
      uint32_t kb;
      memcpy(&kb, &kr, 4);
      if (kb != rb) { /* (when equal, the error is below 0.5 ulp) */
        s->wrong++;
        double err = isinf(r) || isinf(kr) || r != r ? INFINITY : fabs((double)r - kr) / ml_ulp32(kr);
        if (err > s->max_ulp) {
          s->max_ulp = err;
          s->at = x;
        }
        if ((kr == 0.0f || fabsf(kr) >= 0x1p-126f) && err > s->max_norm) {
          s->max_norm = err;
          s->at_norm = x;
        }
      }
      continue;
    }
    double ref = ref64((double)x);
    if (ref != ref) {
      s->bad_nan += r == r;
      continue;
    }
    float fr = (float)ref;
    long double best = ref;
    int amb = 0;
    if (isfinite(ref)) { /* the boundary between fr and its neighbour on ref's side */
      float fa = nextafterf(fr, (double)fr <= ref ? INFINITY : -INFINITY);
      double m = isinf(fr) || isinf(fa) ? copysign(0x1.ffffffp127, ref) : ((double)fr + (double)fa) / 2;
      if (fabs(ref - m) <= 0x1p-50 * fabs(ref)) {
        best = refl((long double)x);
        amb = 1;
        fr = (float)best;
        if (fabsl(best - m) <= 0x1p-60L * fabsl(best)) s->unresolved++;
      }
    }
    uint32_t cb;
    memcpy(&cb, &fr, 4);
    if (cb != rb) s->wrong++;
    double err;
    if (isinf(r) || isinf(fr) || r != r) err = r == fr ? 0 : INFINITY;
    else if (amb) err = (double)(fabsl((long double)r - best) / ml_ulp32((double)best));
    else err = fabs((double)r - ref) / ml_ulp32(ref);
    if (err > s->max_ulp) {
      s->max_ulp = err;
      s->at = x;
    }
    if ((fr == 0.0f || fabsf(fr) >= 0x1p-126f) && err > s->max_norm) {
      s->max_norm = err;
      s->at_norm = x;
    }
  }
}

static inline void ml_ulp_merge(MlUlp *a, const MlUlp *b) {
  if (b->max_ulp > a->max_ulp) {
    a->max_ulp = b->max_ulp;
    a->at = b->at;
  }
  if (b->max_norm > a->max_norm) {
    a->max_norm = b->max_norm;
    a->at_norm = b->at_norm;
  }
  a->n += b->n;
  a->wrong += b->wrong;
  a->unresolved += b->unresolved;
  a->bad_nan += b->bad_nan;
}

#endif
