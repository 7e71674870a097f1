/* mathlib_test.c -- leirc's own math routines (ir/mathlib.c, SPEC §13.3):
 * special values (C99 Annex F), accuracy in ulps against the C library
 * (long double for the f64 routines, double for the f32 ones, and the plain
 * libm functions of the same precision), exact small integer powers, and
 * the f16/bf16 conversions against an independent nearest-value search.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ir/mathlib.h"
#include "testsuite/unit/mathlib_ulp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static uint64_t next_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double uni(uint64_t *s, double lo, double hi) {
  return lo + (hi - lo) * ((double)(next_rand(s) >> 11) * 0x1p-53);
}

static uint64_t bits64(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static uint32_t bits32(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static float f32_of(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* error of r in units of the last place of the exact value ref */
static double ulp_err(long double r, long double ref, int prec, int emin) {
  if (isnan(ref) || isnan(r))
    return isnan(r) && isnan(ref) ? 0.0 : INFINITY;
  if (isinf(r) || isinf(ref))
    return r == ref ? 0.0 : INFINITY;
  if (ref == 0)
    return (double)(fabsl(r) / ldexpl(1.0L, emin));
  int e;
  frexpl(ref, &e);
  int q = e - prec < emin ? emin : e - prec;
  return (double)(fabsl(r - ref) / ldexpl(1.0L, q));
}

static double err64(double r, long double ref) {
  if (fabsl(ref) >= 0x1p1024L - 0x1p970L) /* rounds to inf */
    return isinf(r) && (r > 0) == (ref > 0) ? 0.0 : INFINITY;
  if (r == 0 && fabsl(ref) < 0x1p-1075L)
    return 0.0;
  return ulp_err(r, ref, 53, -1074);
}

static double err32(float r, double ref) {
  if (fabs(ref) >= 0x1p128 - 0x1p103) /* rounds to inf */
    return isinf(r) && (r > 0) == (ref > 0) ? 0.0 : INFINITY;
  if (r == 0 && fabs(ref) < 0x1p-150)
    return 0.0;
  return ulp_err(r, ref, 24, -149);
}

static int64_t ordered64(double x) {
  int64_t i = (int64_t)bits64(x);
  return i < 0 ? INT64_MIN - i : i;
}

static int32_t ordered32(float x) {
  int32_t i = (int32_t)bits32(x);
  return i < 0 ? INT32_MIN - i : i;
}

static int64_t ulps64(double a, double b) { /* distance in representable steps */
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b) ? 0 : INT64_MAX;
  int64_t d = ordered64(a) - ordered64(b);
  return d < 0 ? -d : d;
}

static int64_t ulps32(float a, float b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b) ? 0 : INT64_MAX;
  int64_t d = (int64_t)ordered32(a) - ordered32(b);
  return d < 0 ? -d : d;
}

static int same64(double a, double b) {
  return (isnan(a) && isnan(b)) || bits64(a) == bits64(b);
}

static int same32(float a, float b) {
  return (isnan(a) && isnan(b)) || bits32(a) == bits32(b);
}

/* worst case of one accuracy run */
typedef struct {
  double ulp;      /* against the higher precision reference */
  int64_t steps;   /* against libm of the same precision */
  double at_x, at_y;
} Worst;

static void note(Worst *w, double ulp, int64_t steps, double x, double y) {
  if (ulp > w->ulp) {
    w->ulp = ulp;
    w->at_x = x;
    w->at_y = y;
  }
  if (steps > w->steps)
    w->steps = steps;
}

static void report(const char *name, const Worst *w, double max_ulp, int64_t max_steps) {
  printf("  %-5s max %.3f ulp (at %a, %a), %lld step(s) from libm\n", name, w->ulp, w->at_x,
         w->at_y, (long long)w->steps);
  assert_true(w->ulp <= max_ulp);
  assert_true(w->steps <= max_steps);
}

#define N_ACC 150000

/* ---------------------------------------------------------- specials */

static void test_exp_special(void **state) {
  (void)state;
  assert_true(isnan(leir_exp(NAN)) && isnan(leir_expf(NAN)));
  assert_true(leir_exp(INFINITY) == INFINITY && leir_expf(INFINITY) == INFINITY);
  assert_true(same64(leir_exp(-INFINITY), 0.0) && same32(leir_expf(-INFINITY), 0.0f));
  assert_true(leir_exp(0.0) == 1.0 && leir_exp(-0.0) == 1.0 && leir_expf(0.0f) == 1.0f);
  assert_true(leir_exp(1e-300) == 1.0 && leir_expf(-1e-30f) == 1.0f);
  assert_true(leir_exp(1.0) == 0x1.5bf0a8b145769p+1);
  assert_true(leir_expf(1.0f) == 0x1.5bf0a8p+1f);
  assert_true(leir_exp(709.78) < INFINITY && leir_exp(709.79) == INFINITY);
  assert_true(leir_exp(1e308) == INFINITY && leir_expf(89.0f) == INFINITY);
  assert_true(leir_exp(-745.0) == 0x1p-1074);              /* subnormal */
  assert_true(leir_exp(-708.5) == exp(-708.5));            /* near DBL_MIN */
  assert_true(same64(leir_exp(-746.0), 0.0) && same64(leir_exp(-1e308), 0.0));
  assert_true(leir_expf(-103.0f) == expf(-103.0f) && leir_expf(-103.0f) > 0);
  assert_true(same32(leir_expf(-104.0f), 0.0f));
  assert_true(leir_expf(88.72f) == expf(88.72f));
  for (int k = -1074; k <= 1023; k += 7) { /* exp(k ln 2) hits every scaling */
    double x = k * 0x1.62e42fefa39efp-1;
    assert_true(err64(leir_exp(x), expl(x)) < 1.0);
  }
}

static void test_log_special(void **state) {
  (void)state;
  assert_true(leir_log(0.0) == -INFINITY && leir_log(-0.0) == -INFINITY);
  assert_true(leir_logf(0.0f) == -INFINITY && leir_logf(-0.0f) == -INFINITY);
  assert_true(isnan(leir_log(-1.0)) && isnan(leir_logf(-1e-30f)) && isnan(leir_log(-INFINITY)));
  assert_true(isnan(leir_log(NAN)) && isnan(leir_logf(NAN)));
  assert_true(leir_log(INFINITY) == INFINITY && leir_logf(INFINITY) == INFINITY);
  assert_true(same64(leir_log(1.0), 0.0) && same32(leir_logf(1.0f), 0.0f));
  assert_true(leir_log(2.0) == 0x1.62e42fefa39efp-1 && leir_logf(2.0f) == 0x1.62e43p-1f);
  assert_true(leir_log(DBL_TRUE_MIN) == log(DBL_TRUE_MIN));
  assert_true(leir_log(DBL_MAX) == log(DBL_MAX));
  assert_true(leir_logf(FLT_TRUE_MIN) == logf(FLT_TRUE_MIN));
  assert_true(leir_log(0x1.0000000000001p0) == 0x1.fffffffffffffp-53);
  for (int k = -1074; k <= 1023; k++)
    assert_true(ulp_err(leir_log(ldexp(1.0, k)), logl(ldexpl(1.0L, k)), 53, -1074) < 0.5);
}

static void test_erf_special(void **state) {
  (void)state;
  assert_true(leir_erf(INFINITY) == 1.0 && leir_erf(-INFINITY) == -1.0);
  assert_true(leir_erff(INFINITY) == 1.0f && leir_erff(-INFINITY) == -1.0f);
  assert_true(same64(leir_erf(0.0), 0.0) && same64(leir_erf(-0.0), -0.0));
  assert_true(same32(leir_erff(-0.0f), -0.0f));
  assert_true(isnan(leir_erf(NAN)) && isnan(leir_erff(-NAN)));
  assert_true(leir_erf(6.0) == 1.0 && leir_erf(-30.0) == -1.0 && leir_erff(4.0f) == 1.0f);
  assert_true(leir_erf(DBL_TRUE_MIN) == erf(DBL_TRUE_MIN));
  assert_true(ulps64(leir_erf(1e-300), erf(1e-300)) <= 1);
  assert_true(ulps64(leir_erf(5.9), erf(5.9)) <= 1);
  assert_true(ulps64(leir_erf(-1.0), erf(-1.0)) <= 1);
  for (double x = -7.0; x <= 7.0; x += 1.0 / 64) /* odd */
    assert_true(same64(leir_erf(-x), -leir_erf(x)));
}

typedef struct {
  double x, y, r;
} PowCase;

static void test_pow_special(void **state) {
  (void)state;
  const double inf = INFINITY;
  static const PowCase c[] = {
      {NAN, 0.0, 1.0},   {NAN, -0.0, 1.0},  {1.0, NAN, 1.0},   {1.0, inf, 1.0},
      {-1.0, inf, 1.0},  {-1.0, -inf, 1.0}, {0.0, -3.0, inf},  {-0.0, -3.0, -inf},
      {0.0, -2.0, inf},  {-0.0, -2.5, inf}, {-0.0, -inf, inf}, {0.0, 3.0, 0.0},
      {-0.0, 3.0, -0.0}, {-0.0, 2.0, 0.0},  {-0.0, 0.5, 0.0},  {0.5, -inf, inf},
      {-0.5, -inf, inf}, {2.0, -inf, 0.0},  {-2.0, -inf, 0.0}, {0.5, inf, 0.0},
      {-0.5, inf, 0.0},  {2.0, inf, inf},   {-2.0, inf, inf},  {-inf, -3.0, -0.0},
      {-inf, -2.0, 0.0}, {-inf, -0.5, 0.0}, {-inf, 3.0, -inf}, {-inf, 2.0, inf},
      {-inf, 0.5, inf},  {inf, -1.0, 0.0},  {inf, 0.5, inf},   {inf, -inf, 0.0},
      {3.0, 2.0, 9.0},   {-2.0, 3.0, -8.0}, {-2.0, 2.0, 4.0},  {2.0, -1.0, 0.5},
      {-2.0, -1.0, -0.5}, {10.0, 15.0, 1e15}, {-3.0, 5.0, -243.0}, {2.0, 2.5, 0x1.6a09e667f3bcdp+2},
      {2.0, 1024.0, inf}, {2.0, -1074.0, 0x1p-1074}, {2.0, -1080.0, 0.0},
      {-2.0, 1025.0, -inf}, {-2.0, -1075.0, -0.0}, {1e300, 2.0, inf},
      {1e-300, -2.0, inf}, {1e-300, 2.0, 0.0}, {-1e5, -64.0, 1e-320},
      {4.0, 0.5, 2.0},   {-8.0, 1.0 / 3, NAN}, {-1.5, 0.5, NAN}, {NAN, 1.0, NAN},
      {2.0, NAN, NAN},   {-1.0, NAN, NAN},  {-2.0, 0x1p60, inf}, {-2.0, 0x1p53 + 2, inf},
      {-1.0, 0x1p52 + 1, -1.0}, {-1.0, 0x1p53, 1.0},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    double r = leir_pow(c[i].x, c[i].y);
    if (!same64(r, c[i].r))
      print_error("pow(%a, %a) = %a, want %a\n", c[i].x, c[i].y, r, c[i].r);
    assert_true(same64(r, c[i].r));
    if (fabs(c[i].r) > FLT_MAX || fabs(c[i].r) < FLT_MIN || c[i].r != c[i].r ||
        (double)(float)c[i].x != c[i].x || (double)(float)c[i].y != c[i].y)
      continue; /* not an f32 case */
    float rf = leir_powf((float)c[i].x, (float)c[i].y);
    assert_true(same32(rf, (float)c[i].r));
  }
  assert_true(same32(leir_powf(-0.0f, -3.0f), -INFINITY));
  assert_true(same32(leir_powf(-0.0f, 3.0f), -0.0f));
  assert_true(same32(leir_powf(2.0f, 128.0f), INFINITY));
  assert_true(same32(leir_powf(2.0f, -149.0f), 0x1p-149f));
  assert_true(same32(leir_powf(2.0f, -151.0f), 0.0f));
  assert_true(isnan(leir_powf(-8.0f, 0.5f)) && isnan(leir_powf(NAN, 1.0f)));
  assert_true(leir_powf(NAN, 0.0f) == 1.0f && leir_powf(1.0f, NAN) == 1.0f);
}

/* NaN results are quiet NaNs with fixed bits unless a NaN came in */
static void test_nan_bits(void **state) {
  (void)state;
  assert_int_equal(bits64(leir_log(-1.0)), 0x7ff8000000000000ull);
  assert_int_equal(bits32(leir_logf(-1.0f)), 0x7fc00000u);
  assert_int_equal(bits32(leir_powf(-2.0f, 0.5f)), 0x7fc00000u);
  float n = f32_of(0x7fc12345u);
  assert_int_equal(bits32(leir_expf(n)), 0x7fc12345u);
  assert_int_equal(bits32(leir_powf(2.0f, n)), 0x7fc12345u);
  assert_int_equal(bits32(leir_erff(n)), 0x7fc12345u);
  double d;
  uint64_t u = 0xfff8000000abcdefull;
  memcpy(&d, &u, sizeof d);
  assert_int_equal(bits64(leir_log(d)), u);
  assert_int_equal(bits64(leir_pow(d, 3.0)), u);
}

/* --------------------------------------------------------- accuracy */

static void test_accuracy_f64(void **state) {
  (void)state;
  uint64_t s = 1;
  Worst we = {0}, wl = {0}, wr = {0}, wp = {0};
  for (int i = 0; i < N_ACC; i++) {
    double x = i % 3 ? uni(&s, -745.2, 709.8) : uni(&s, -2.0, 2.0);
    note(&we, err64(leir_exp(x), expl(x)), ulps64(leir_exp(x), exp(x)), x, 0);
    x = i % 3 ? fabs(ldexp(uni(&s, 1.0, 2.0), (int)(next_rand(&s) % 2098) - 1074))
              : uni(&s, 0.5, 2.0);
    note(&wl, err64(leir_log(x), logl(x)), ulps64(leir_log(x), log(x)), x, 0);
    x = i % 4 ? uni(&s, -6.5, 6.5) : ldexp(uni(&s, -1, 1), -(int)(next_rand(&s) % 40));
    note(&wr, err64(leir_erf(x), erfl(x)), ulps64(leir_erf(x), erf(x)), x, 0);
  }
  for (int i = 0; i < N_ACC; i++) {
    double x, y;
    switch (i % 4) {
    case 0: /* anything that neither overflows nor underflows badly */
      x = ldexp(uni(&s, 1.0, 2.0), (int)(next_rand(&s) % 200) - 100);
      y = uni(&s, -1100.0, 1100.0) / fabs(log2(x) + 0.5);
      break;
    case 1: /* base near 1, large exponents */
      x = uni(&s, 0.99, 1.01);
      y = uni(&s, -60000.0, 60000.0);
      break;
    case 2: /* small integer exponents, any sign of the base */
      x = uni(&s, -30.0, 30.0);
      y = (double)((int)(next_rand(&s) % 129) - 64);
      break;
    default:
      x = uni(&s, 0.0, 10.0);
      y = uni(&s, -40.0, 40.0);
      break;
    }
    double r = leir_pow(x, y);
    note(&wp, err64(r, powl(x, y)), ulps64(r, pow(x, y)), x, y);
  }
  printf("f64 vs long double libm (and steps from the double libm):\n");
  report("exp", &we, 1.0, 1);
  report("log", &wl, 1.0, 1);
  report("erf", &wr, 1.0, 2);
  report("pow", &wp, 1.0, 2);
}

static void test_accuracy_f32(void **state) {
  (void)state;
  uint64_t s = 2;
  Worst we = {0}, wc = {0}, wl = {0}, wr = {0}, wrc = {0}, wp = {0}, wpc = {0}, wp3 = {0};
  for (int i = 0; i < N_ACC; i++) {
    float x = (float)(i % 3 ? uni(&s, -104.0, 89.0) : uni(&s, -2.0, 2.0));
    note(&we, err32(leir_expf(x), exp(x)), ulps32(leir_expf(x), expf(x)), x, 0);
    note(&wc, err32(leir_expf_cr(x), exp(x)), ulps32(leir_expf_cr(x), expf(x)), x, 0);
    x = i % 3 ? f32_of((uint32_t)next_rand(&s) & 0x7f7fffffu) : (float)uni(&s, 0.5, 2.0);
    note(&wl, err32(leir_logf(x), log(x)), ulps32(leir_logf(x), logf(x)), x, 0);
    x = (float)(i % 4 ? uni(&s, -4.5, 4.5) : ldexp(uni(&s, -1, 1), -(int)(next_rand(&s) % 40)));
    note(&wr, err32(leir_erff(x), erf(x)), ulps32(leir_erff(x), erff(x)), x, 0);
    note(&wrc, err32(leir_erff_cr(x), erf(x)), ulps32(leir_erff_cr(x), erff(x)), x, 0);
  }
  for (int i = 0; i < N_ACC; i++) {
    float x, y;
    switch (i % 3) {
    case 0:
      x = (float)ldexp(uni(&s, 1.0, 2.0), (int)(next_rand(&s) % 60) - 30);
      y = (float)(uni(&s, -160.0, 160.0) / fabs(log2(x) + 0.5));
      break;
    case 1:
      x = (float)uni(&s, -30.0, 30.0);
      y = (float)((int)(next_rand(&s) % 129) - 64);
      break;
    default:
      x = (float)uni(&s, 0.0, 10.0);
      y = (float)uni(&s, -30.0, 30.0);
      break;
    }
    float r = leir_powf(x, y);
    note(y == 3.0f ? &wp3 : &wp, err32(r, pow(x, y)), ulps32(r, powf(x, y)), x, y);
    r = leir_powf_cr(x, y);
    note(&wpc, err32(r, pow(x, y)), ulps32(r, powf(x, y)), x, y);
  }
  printf("f32 vs double libm (and steps from the float libm):\n");
  report("expf", &we, 0.762, 1); /* f32 arithmetic, 0.762 ulp over every input */
  report("expf_cr", &wc, 0.501, 1);
  report("logf", &wl, 0.871, 1); /* f32 arithmetic, 0.87 ulp over every input */
  report("erff", &wr, 0.673, 1); /* f32 arithmetic, table-driven: see test_erff_strided */
  report("erff_cr", &wrc, 0.501, 1);
  report("powf", &wp, 0.501, 1);
  /* x**3 is x*(x*x) in f32 (issue 59): below 1.3 ulp over every f32
     input but one overflowing pair (test_cubef_strided) */
  report("powf3", &wp3, 1.3, 2);
  report("powf_cr", &wpc, 0.501, 1);
}

/* The f32 routines of their own against the correctly rounded result on
   every 257th f32 pattern (16.7 million inputs; `make mathlib-exhaustive`
   checks all 2^32), every NaN input returned as it is.  expf and erff
   and logf compute in f32 (max 0.761636, 0.716720 and 0.870726 ulp over
   all inputs, see ir/mathlib.c): their exact figures on this subset are
   asserted (expf's for normal results too: 0.565483 over all inputs); the f64-inside routines (expf_cr, erff_cr) within 0.5 + 2^-15 (erff_cr
   2^-12) ulp and almost always correctly rounded. */
static void test_expf_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, leir_expf, leir_exp, expl, ml_known_exp, 0, UINT64_C(1) << 32, 257);
  printf("  expf: %llu inputs, max %.6f ulp (at %a), normal results %.6f (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, s.max_norm, (double)s.at_norm,
         (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp > 0.74738 && s.max_ulp < 0.74739);
  assert_true(s.max_norm > 0.55147 && s.max_norm < 0.55148);
  assert_int_equal(s.wrong, 12198);
  assert_int_equal(s.unresolved, 0);
  assert_int_equal(s.bad_nan, 0);
}

static void test_expf_cr_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, leir_expf_cr, leir_exp, expl, ml_known_exp, 0, UINT64_C(1) << 32, 257);
  printf("  expf_cr: %llu inputs, max %.6f ulp (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp < 0.5 + 0x1p-15);
  assert_true(s.wrong <= 10);
  assert_int_equal(s.unresolved, 0);
  assert_int_equal(s.bad_nan, 0);
}

static void test_logf_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, leir_logf, leir_log, logl, ml_known_log, 0, UINT64_C(1) << 32, 257);
  printf("  logf: %llu inputs, max %.9f ulp (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp > 0.7762446 && s.max_ulp < 0.7762447);
  assert_int_equal(s.wrong, 8594);
  assert_int_equal(s.unresolved, 0);
  assert_int_equal(s.bad_nan, 0);
}

static void test_erff_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, leir_erff, leir_erf, erfl, ml_known_erf, 0, UINT64_C(1) << 32, 257);
  printf("  erff: %llu inputs, max %.6f ulp (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp > 0.702974 && s.max_ulp < 0.702976);
  assert_int_equal(s.wrong, 120336);
  assert_int_equal(s.unresolved, 0);
  assert_int_equal(s.bad_nan, 0);
}

static void test_erff_cr_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, leir_erff_cr, leir_erf, erfl, ml_known_erf, 0, UINT64_C(1) << 32, 257);
  printf("  erff_cr: %llu inputs, max %.6f ulp (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp < 0.5 + 0x1p-12);
  assert_true(s.wrong <= 100);
  assert_int_equal(s.unresolved, 0);
  assert_int_equal(s.bad_nan, 0);
}

/* ------------------------------------------------------ integer powers */

static void test_int_powers(void **state) {
  (void)state;
  assert_true(leir_pow(3.0, 2.0) == 9.0 && leir_powf(3.0f, 2.0f) == 9.0f);
  assert_true(leir_pow(-2.0, 3.0) == -8.0 && leir_powf(-2.0f, 3.0f) == -8.0f);
  assert_true(leir_pow(-2.0, 2.0) == 4.0 && leir_powf(-2.0f, 2.0f) == 4.0f);
  assert_true(leir_pow(7.0, 18.0) == 1628413597910449.0);
  assert_true(leir_pow(-3.0, 33.0) == -5559060566555523.0);
  assert_true(leir_pow(0.1, 64.0) == powl(0.1, 64) || ulps64(leir_pow(0.1, 64.0),
                                                             (double)powl(0.1, 64)) <= 1);
  uint64_t s = 3;
  for (int i = 0; i < 100000; i++) {
    double x = ldexp(uni(&s, -2.0, 2.0), (int)(next_rand(&s) % 400) - 200);
    assert_true(same64(leir_pow(x, 2.0), x * x));
    assert_true(same64(leir_pow(x, 1.0), x));
    assert_true(same64(leir_pow(x, -1.0), 1.0 / x));
    float f = (float)ldexp(uni(&s, -2.0, 2.0), (int)(next_rand(&s) % 80) - 40);
    assert_true(same32(leir_powf(f, 2.0f), f * f));
    volatile float vf = f; /* f32 products at run time, not folded */
    assert_true(same32(leir_powf(f, 3.0f), vf * (vf * vf)));
    assert_true(same32(leir_powf(f, -1.0f), 1.0f / f));
    int n = (int)(next_rand(&s) % 41) - 20; /* (-x)^n = +-x^n */
    double p = leir_pow(-x, n), q = leir_pow(x, n);
    assert_true(same64(p, n % 2 ? -q : q));
  }
  /* exactly representable results come out exactly */
  for (int b = 2; b <= 12; b++)
    for (int n = 0; n <= 64; n++) {
      double e = pow((double)b, n); /* exact while < 2^53 */
      if (e < 0x1p53)
        assert_true(leir_pow(b, n) == e && leir_pow(b, -n) == 1.0 / e);
      if (e < 0x1p24)
        assert_true(leir_powf((float)b, (float)n) == (float)e);
    }
}

/* --------------------------------------------------------- f16, bf16 */

static double dec_f16(unsigned c) { /* value of a non-negative finite code */
  unsigned e = (c >> 10) & 31, m = c & 1023;
  return e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24);
}

static double dec_bf16(unsigned c) {
  unsigned e = (c >> 7) & 255, m = c & 127;
  return e ? ldexp(128 + m, (int)e - 134) : ldexp(m, -133);
}

/* nearest code to finite x, ties to even; inf is the code after the largest
   finite one, worth 2^(emax+1) for the decision */
static uint16_t nearest(float x, int bf) {
  double ax = fabs((double)x);
  unsigned inf = bf ? 0x7f80u : 0x7c00u;
  double top = bf ? 0x1p128 : 0x1p16;
  unsigned lo = 0, hi = inf; /* dec(lo) <= ax < dec(hi) */
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) / 2;
    if ((bf ? dec_bf16(mid) : dec_f16(mid)) <= ax)
      lo = mid;
    else
      hi = mid;
  }
  if (ax >= top)
    lo = inf;
  else if (lo != inf) {
    double vl = bf ? dec_bf16(lo) : dec_f16(lo);
    double vh = hi == inf ? top : (bf ? dec_bf16(hi) : dec_f16(hi));
    if (ax - vl > vh - ax || (ax - vl == vh - ax && (lo & 1)))
      lo = hi;
  }
  return (uint16_t)(lo | (signbit(x) ? 0x8000u : 0));
}

static void test_f16_values(void **state) {
  (void)state;
  static const struct {
    float x;
    uint16_t h;
  } c[] = {
      {0.0f, 0x0000},           {-0.0f, 0x8000},         {1.0f, 0x3c00},
      {-2.0f, 0xc000},          {65504.0f, 0x7bff},      {65519.99f, 0x7bff},
      {65520.0f, 0x7c00},       {1e10f, 0x7c00},         {-INFINITY, 0xfc00},
      {0x1p-14f, 0x0400},       {0x1p-24f, 0x0001},      {0x1p-25f, 0x0000},
      {0x1.8p-25f, 0x0001},     {0x1.000002p-25f, 0x0001}, {-0x1p-26f, 0x8000},
      {0x1.ffcp-15f, 0x0400},   {0x1.ff4p-15f, 0x03fe},   {0x1.ff6p-15f, 0x03ff},  {1.0f + 0x1p-11f, 0x3c00},
      {1.0f + 0x3p-11f, 0x3c02}, {0x1p-149f, 0x0000},    {NAN, 0x7e00},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    uint16_t h = leir_f32_to_f16(c[i].x);
    if (h != c[i].h)
      print_error("f16(%a) = %#x, want %#x\n", c[i].x, h, c[i].h);
    assert_int_equal(h, c[i].h);
  }
  assert_int_equal(leir_f32_to_f16(f32_of(0xffc12345u)), 0xfe09u); /* payload top */
  assert_int_equal(leir_f32_to_f16(f32_of(0x7f800001u)), 0x7e00u); /* sNaN -> qNaN */
  /* every half survives the round trip; NaNs stay NaNs */
  for (unsigned u = 0; u < 65536; u++) {
    float f = leir_f16_to_f32((uint16_t)u);
    if ((u & 0x7c00) == 0x7c00 && (u & 0x3ff))
      assert_int_equal(leir_f32_to_f16(f), u | 0x200);
    else {
      assert_int_equal(leir_f32_to_f16(f), u);
      assert_true(fabs((double)f) == dec_f16(u & 0x7fff) || (u & 0x7fff) == 0x7c00);
    }
  }
  uint64_t s = 4;
  for (int i = 0; i < 300000; i++) {
    uint32_t u = (uint32_t)next_rand(&s);
    if (i % 2) /* concentrate on the f16 exponent range */
      u = (u & 0x807fffffu) | ((uint32_t)(100 + next_rand(&s) % 48) << 23);
    float x = f32_of(u);
    if (isnan(x))
      continue;
    assert_int_equal(leir_f32_to_f16(x), nearest(x, 0));
    assert_true(same32(leir_round_f16(x), leir_f16_to_f32(nearest(x, 0))));
#ifdef __FLT16_MAX__
    _Float16 hf = (_Float16)x;
    uint16_t hb;
    memcpy(&hb, &hf, sizeof hb);
    assert_int_equal(leir_f32_to_f16(x), hb);
#endif
  }
}

static void test_bf16_values(void **state) {
  (void)state;
  static const struct {
    float x;
    uint16_t h;
  } c[] = {
      {0.0f, 0x0000},           {-0.0f, 0x8000},          {1.0f, 0x3f80},
      {1.0f + 0x1p-8f, 0x3f80}, {1.0f + 0x3p-8f, 0x3f82}, {1.0f + 0x1.2p-8f, 0x3f81},
      {FLT_MAX, 0x7f80},        {-INFINITY, 0xff80},      {0x1p-133f, 0x0001},
      {0x1p-134f, 0x0000},      {0x1p-149f, 0x0000},      {0x1.fep127f, 0x7f7f},
      {0x1.fefffep127f, 0x7f7f}, {0x1.ffp127f, 0x7f80},    {0x1.fdp127f, 0x7f7e},
      {NAN, 0x7fc0},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    uint16_t h = leir_f32_to_bf16(c[i].x);
    if (h != c[i].h)
      print_error("bf16(%a) = %#x, want %#x\n", c[i].x, h, c[i].h);
    assert_int_equal(h, c[i].h);
  }
  assert_int_equal(leir_f32_to_bf16(f32_of(0x7f800001u)), 0x7fc0u); /* sNaN -> qNaN */
  assert_int_equal(leir_f32_to_bf16(f32_of(0xff812345u)), 0xffc1u);
  for (unsigned u = 0; u < 65536; u++) {
    float f = leir_bf16_to_f32((uint16_t)u);
    if ((u & 0x7f80) == 0x7f80 && (u & 0x7f))
      assert_int_equal(leir_f32_to_bf16(f), u | 0x40);
    else
      assert_int_equal(leir_f32_to_bf16(f), u);
  }
  uint64_t s = 5;
  for (int i = 0; i < 300000; i++) {
    float x = f32_of((uint32_t)next_rand(&s));
    if (isnan(x))
      continue;
    assert_int_equal(leir_f32_to_bf16(x), nearest(x, 1));
    assert_true(same32(leir_round_bf16(x), leir_bf16_to_f32(nearest(x, 1))));
  }
}

/* ir/strength.h: x ** 2 in f32 (and f16/bf16, which round the same f32
 * value) is x * x, bit for bit, for every f32 that is not a signalling NaN:
 * every exponent and both signs, each with random and extreme significands,
 * plus the specials. */
static void check_square(float x) {
  volatile float vx = x; /* a multiply at run time, not folded */
  float p = leir_powf(x, 2.0f), m = vx * vx;
  if (bits32(p) != bits32(m) && !(p != p && m != m)) {
    char msg[160];
    snprintf(msg, sizeof msg, "powf(%a, 2) = %a, x*x = %a", (double)x, (double)p, (double)m);
    fail_msg("%s", msg);
  }
  if (p != p) assert_true(m != m); /* quiet NaNs: both NaN */
}

static void test_pow2_is_square(void **state) {
  (void)state;
  uint64_t s = 41;
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MIN, FLT_TRUE_MIN,
                            -FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0x1p64f, 0x1.fffffep63f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) check_square(specials[i]);
  for (uint32_t e = 0; e < 255; e++)
    for (uint32_t sign = 0; sign < 2; sign++) {
      const uint32_t fixed[] = {0, 1, 0x7fffff, 0x400000, 0x3504f3, 0x3504f4};
      for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        check_square(f32_of(sign << 31 | e << 23 | fixed[k]));
      for (int k = 0; k < 2000; k++)
        check_square(f32_of(sign << 31 | e << 23 | (uint32_t)(next_rand(&s) & 0x7fffff)));
    }
}

/* leir_powf(x, n) for n = -1, 1, 2, 3 is the f32 operation the host JIT
   and the PTX back end emit for a constant n (codegen/mathlib_emit.c,
   cg_math_get_powi_f32): 1/x, x, x*x, x*(x*x), a NaN x returned bit for
   bit; leir_powf(x, 0.5) is sqrtf(x) for x >= +0.  Every 257th f32 pattern
   (16.7 million) and the specials. */
static void check_powi_product(float x) {
  volatile float v = x; /* operations at run time, not folded */
  const int ns[4] = {-1, 1, 2, 3};
  const float want[4] = {1.0f / v, v, v * v, v * (v * v)};
  for (int k = 0; k < 4; k++) {
    float got = leir_powf(x, (float)ns[k]);
    float w = x != x ? x : want[k];
    if (bits32(got) != bits32(w))
      fail_msg("powf(%a, %d) = %a, product %a", (double)x, ns[k], (double)got, (double)w);
  }
  /* x**0.5: the square root, pow's specials below 0 (+0 at -0, +inf at
     -inf, the quiet NaN 0x7fc00000 elsewhere) */
  float sq = x != x ? x : x == -INFINITY ? INFINITY : x == 0.0f ? 0.0f : x < 0.0f ? f32_of(0x7fc00000u) : sqrtf(v);
  float got = leir_powf(x, 0.5f);
  if (bits32(got) != bits32(sq))
    fail_msg("powf(%a, 0.5) = %a, want %a", (double)x, (double)got, (double)sq);
}

static void test_powi_product(void **state) {
  (void)state;
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MIN, FLT_TRUE_MIN,
                            -FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0x1.fffffep63f,
                            0x1p64f, 0x1.428a2ep42f, 0x1.428a3p42f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) check_powi_product(specials[i]);
  check_powi_product(f32_of(0x7fa00001u)); /* a signalling NaN comes back as it is */
  for (uint64_t u = 0; u < (UINT64_C(1) << 32); u += 257) check_powi_product(f32_of((uint32_t)u));
}

/* x**3 = x*(x*x) in f32 (issue 59: PyTorch's product, two roundings)
   against the correctly rounded x^3 on every 257th f32 pattern; its exact
   figures asserted.  `make mathlib-exhaustive` (all 2^32 inputs): the same
   max 1.287357 ulp (at 0x1.94ffp-42), 365239376 results not correctly
   rounded, and one pair, +-0x1.965feap+42, whose product overflows to
   +-inf where x^3 rounds to +-FLT_MAX (so it prints "max inf"). */
static float cubef(float x) { return leir_powf(x, 3.0f); }

static void test_cubef_strided(void **state) {
  (void)state;
  MlUlp s = {.n = 0};
  ml_ulp_check(&s, cubef, ml_cube64, ml_cubel, NULL, 0, UINT64_C(1) << 32, 257);
  printf("  cubef: %llu inputs, max %.6f ulp (at %a), %llu not correctly rounded\n",
         (unsigned long long)s.n, s.max_ulp, (double)s.at, (unsigned long long)s.wrong);
  assert_int_equal(s.n, 16711936);
  assert_true(s.max_ulp > 1.28735 && s.max_ulp < 1.28736);
  assert_int_equal(s.wrong, 1421962);
  /* -0x1.5p-46: x^3 = -9261 2^-150 is exactly a midpoint between two
     subnormals, exact in long double too, so the reference's rounding
     (to even) is right there */
  assert_int_equal(s.unresolved, 1);
  assert_int_equal(s.bad_nan, 0);
}

/* leir_math_fingerprint: the same value on every machine and build
   (sanitizers included: the routines' bits are fixed by their operation
   sequences), and another value as soon as any of the routines gives other
   bits: then the steps cache's older entries are misses (driver/steps.c), as
   they must be.  A change of the routines' bits changes this value in the
   same commit. */
static void test_fingerprint(void **state) {
  (void)state;
  assert_int_equal(leir_math_fingerprint(), 0x768c04041a7c54d8ull);
  assert_int_equal(leir_math_fingerprint(), leir_math_fingerprint());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exp_special),   cmocka_unit_test(test_log_special),
      cmocka_unit_test(test_erf_special),   cmocka_unit_test(test_pow_special),
      cmocka_unit_test(test_nan_bits),      cmocka_unit_test(test_accuracy_f64),
      cmocka_unit_test(test_accuracy_f32),  cmocka_unit_test(test_int_powers),
      cmocka_unit_test(test_f16_values),    cmocka_unit_test(test_bf16_values),
      cmocka_unit_test(test_pow2_is_square),cmocka_unit_test(test_expf_strided),
      cmocka_unit_test(test_expf_cr_strided),
      cmocka_unit_test(test_logf_strided), cmocka_unit_test(test_erff_strided),
      cmocka_unit_test(test_erff_cr_strided),
      cmocka_unit_test(test_powi_product), cmocka_unit_test(test_cubef_strided),
      cmocka_unit_test(test_fingerprint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
