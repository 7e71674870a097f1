/* rng_test.c -- unit tests for interp/rng.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "interp/rng.h"

static uint64_t bits_of(double d)
{
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static void assert_same_double(double got, double want)
{
  if (bits_of(got) != bits_of(want))
    fail_msg("got %a (%.17g), want %a (%.17g)", got, got, want, want);
}

/* The cross-machine determinism check: these values were computed once and
 * must come out bit-identical everywhere. */
static void test_fixed_values(void **state)
{
  (void)state;
  static const uint64_t next[4] = {
    UINT64_C(0xda78ecc6d29dfdc5), UINT64_C(0x999d9ccfcba94ae9),
    UINT64_C(0x9814432fd4ac489b), UINT64_C(0xa75ffd9c93e1e936),
  };
  static const double uniform[4] = {
    0x1.b4f1d98da53bfp-1, 0x1.333b399f97529p-1, 0x1.3028865fa9589p-1,
    0x1.4ebffb3927c3dp-1,
  };
  static const double normal[6] = {
    0x1.0d18e2b267f93p+0, 0x1.0396f7ba3498ep-2, 0x1.e76c2cee123cap-3,
    0x1.951e3873471c1p-2, 0x1.49d9bc7c41554p-5, -0x1.5fb3662b17da4p-1,
  };
  LeirRng r;
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 4; i++)
    assert_true(rng_next(&r) == next[i]);
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 4; i++)
    assert_same_double(rng_uniform(&r), uniform[i]);
  rng_seed(&r, 42, rng_hash_string("A"));
  for (int i = 0; i < 6; i++)
    assert_same_double(rng_normal(&r), normal[i]);
  /* the far tail and rng_log on its own */
  assert_same_double(rng_normal_quantile(0x1p-53), -0x1.06b48525582dap+3);
  assert_same_double(rng_normal_quantile(1e-300), -0x1.28607406c74fep+5);
  assert_same_double(rng_log(0x1.8p-1000), -0x1.5a5ef0882c4a1p+9);
}

/* A checksum over many normals, tails included (they use rng_log). */
static void test_fixed_checksum(void **state)
{
  (void)state;
  LeirRng r;
  rng_seed(&r, 7, 0);
  uint64_t h = 0;
  for (int i = 0; i < 100000; i++)
    h = (h ^ bits_of(rng_normal(&r))) * UINT64_C(0x100000001b3);
  print_message("checksum 0x%016llx\n", (unsigned long long)h);
  assert_true(h == UINT64_C(0xb41c7ac6087395b0));
}

static void test_hash(void **state)
{
  (void)state;
  assert_true(rng_hash_string("") == UINT64_C(0xcbf29ce484222325));
  assert_true(rng_hash_string("a") == UINT64_C(0xaf63dc4c8601ec8c));
  assert_true(rng_hash_string("foobar") == UINT64_C(0x85944171f73967e8));
}

static void test_streams_and_seeds_differ(void **state)
{
  (void)state;
  LeirRng a, b, c, d;
  rng_seed(&a, 1, rng_hash_string("A"));
  rng_seed(&b, 1, rng_hash_string("B"));
  rng_seed(&c, 2, rng_hash_string("A"));
  rng_seed(&d, 1, rng_hash_string("A"));
  for (int i = 0; i < 100; i++) {
    uint64_t x = rng_next(&a);
    assert_true(x != rng_next(&b));
    assert_true(x != rng_next(&c));
    assert_true(x == rng_next(&d));
  }
}

static void test_uniform_range(void **state)
{
  (void)state;
  LeirRng r;
  rng_seed(&r, 3, 4);
  double sum = 0.0;
  for (int i = 0; i < 100000; i++) {
    double u = rng_uniform(&r);
    assert_true(u >= 0.0 && u < 1.0);
    sum += u;
  }
  assert_true(fabs(sum / 100000 - 0.5) < 0.005);
}

static void test_normal_moments(void **state)
{
  (void)state;
  enum { N = 100000 };
  LeirRng r;
  rng_seed(&r, 12345, rng_hash_string("weights"));
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0, maxabs = 0.0;
  int beyond = 0;
  for (int i = 0; i < N; i++) {
    double x = rng_normal(&r);
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
    beyond += fabs(x) > 1.959963984540054;
    maxabs = fmax(maxabs, fabs(x));
  }
  double mean = sum / N, var = sum2 / N - mean * mean;
  print_message("mean %g var %g kurtosis %g beyond %d max %g\n", mean, var,
                sum4 / N, beyond, maxabs);
  assert_true(fabs(mean) < 0.02);                /* sd 0.0032 */
  assert_true(fabs(var - 1.0) < 0.03);           /* sd 0.0045 */
  assert_true(fabs(sum4 / N - 3.0) < 0.15);      /* sd ~0.03 */
  assert_true(beyond > 4500 && beyond < 5500);   /* 5000 +- 69 */
  assert_true(maxabs > 3.5 && maxabs < 8.5);
}

static void test_quantile(void **state)
{
  (void)state;
  assert_true(rng_normal_quantile(0.5) == 0.0);
  assert_true(fabs(rng_normal_quantile(0.975) - 1.959963984540054) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.025) + 1.959963984540054) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.8413447460685429) - 1.0) < 1e-8);
  assert_true(fabs(rng_normal_quantile(1e-10) + 6.361340902404056) < 1e-8);
  assert_true(fabs(rng_normal_quantile(0.01) + 2.3263478740408408) < 1e-8);
  assert_true(rng_normal_quantile(0.0) == -INFINITY);
  assert_true(rng_normal_quantile(1.0) == INFINITY);
  assert_true(isnan(rng_normal_quantile(NAN)));
  for (double p = 0.001; p < 0.5; p += 0.001) /* odd symmetry */
    assert_true(rng_normal_quantile(p) == -rng_normal_quantile(1.0 - p) ||
                fabs(rng_normal_quantile(p) + rng_normal_quantile(1.0 - p)) < 1e-12);
}

/* rng_log against libm: within a few ulps (libm is only the yardstick). */
static void test_log(void **state)
{
  (void)state;
  double worst = 0.0;
  for (double x = 1e-300; x < 1e300; x *= 1.0137) {
    double want = log(x), ulp = nextafter(fabs(want), INFINITY) - fabs(want);
    if (want != 0.0)
      worst = fmax(worst, fabs(rng_log(x) - want) / ulp);
  }
  for (double x = 0.5; x < 2.0; x += 1.0 / 4096) {
    double want = log(x), ulp = nextafter(fabs(want), INFINITY) - fabs(want);
    if (want != 0.0)
      worst = fmax(worst, fabs(rng_log(x) - want) / ulp);
  }
  print_message("rng_log worst error %g ulp\n", worst);
  assert_true(worst <= 4.0);
  assert_true(rng_log(1.0) == 0.0);
  assert_true(fabs(rng_log(4.9406564584124654e-324) + 744.44007192138122) < 1e-12);
  assert_true(fabs(rng_log(2.0) - 0.69314718055994531) < 1e-16);
  assert_true(rng_log(0.0) == -INFINITY);
  assert_true(rng_log(INFINITY) == INFINITY);
  assert_true(isnan(rng_log(-1.0)));
  assert_true(isnan(rng_log(NAN)));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fixed_values),
    cmocka_unit_test(test_fixed_checksum),
    cmocka_unit_test(test_hash),
    cmocka_unit_test(test_streams_and_seeds_differ),
    cmocka_unit_test(test_uniform_range),
    cmocka_unit_test(test_normal_moments),
    cmocka_unit_test(test_quantile),
    cmocka_unit_test(test_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
