/* compare_test.c -- unit tests for interp/compare.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "interp/compare.h"

static float f32_from_bits(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t f32_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static CmpResult cmp_f32(const float *a, const float *b, int64_t n, CmpTolerance tol)
{
  return cmp_arrays('f', 4, a, b, n, tol);
}

static void expect(CmpResult r, CmpVerdict verdict, int64_t first, int64_t bad)
{
  if (r.verdict != verdict || r.first_index != first || r.first_bad_index != bad)
    fail_msg("got %s first %lld bad %lld, want %s first %lld bad %lld",
             cmp_verdict_name(r.verdict), (long long)r.first_index,
             (long long)r.first_bad_index, cmp_verdict_name(verdict),
             (long long)first, (long long)bad);
}

/* ------------------------------------------------------------ equality */

static void test_equal(void **state)
{
  (void)state;
  const float a[4] = { 1.0f, -2.5f, INFINITY, -INFINITY };
  float b[4];
  memcpy(b, a, sizeof b);
  for (int tol = CMP_EXACT; tol <= CMP_REFERENCE; tol++) {
    CmpResult r = cmp_f32(a, b, 4, (CmpTolerance)tol);
    expect(r, CMP_EQUAL, -1, -1);
    assert_true(r.max_abs == 0.0 && r.max_rel == 0.0 && r.mse == 0.0);
    assert_true(r.ulp_distance == 0);
  }
  expect(cmp_f32(a, b, 0, CMP_EXACT), CMP_EQUAL, -1, -1);
  const int64_t i[2] = { INT64_MIN, INT64_MAX };
  expect(cmp_arrays('i', 8, i, i, 2, CMP_EXACT), CMP_EQUAL, -1, -1);
}

static void test_nan_payloads_equal(void **state)
{
  (void)state;
  const float a[3] = { f32_from_bits(0x7fc00000), f32_from_bits(0x7f800001), 1.0f };
  const float b[3] = { f32_from_bits(0xffc00123), f32_from_bits(0x7fc00000), 1.0f };
  expect(cmp_f32(a, b, 3, CMP_EXACT), CMP_EQUAL, -1, -1);
  const double da[1] = { NAN }, db[1] = { -NAN };
  expect(cmp_arrays('f', 8, da, db, 1, CMP_EXACT), CMP_EQUAL, -1, -1);
  const uint16_t ha[2] = { 0x7e00, 0xfc01 }, hb[2] = { 0x7d00, 0x7e00 };
  expect(cmp_arrays('f', 2, ha, hb, 2, CMP_EXACT), CMP_EQUAL, -1, -1);
  const uint16_t ba[1] = { 0x7fc0 }, bb[1] = { 0xffc1 };
  expect(cmp_arrays('b', 2, ba, bb, 1, CMP_EXACT), CMP_EQUAL, -1, -1);
  /* f16 infinity is not a NaN */
  const uint16_t inf[1] = { 0x7c00 }, nan[1] = { 0x7c01 };
  expect(cmp_arrays('f', 2, inf, nan, 1, CMP_EXACT), CMP_DIFFER, 0, 0);
}

/* The same bytes take a shortcut (no scan): its result must be the scan's,
 * field by field, as for arrays that differ only in NaN payloads (which
 * the scan finds bit-equal), under every tolerance. */
static void test_same_bytes_as_scan(void **state)
{
  (void)state;
  const float a[5] = { 1.0f, f32_from_bits(0x7fc00000), INFINITY, -0.0f, 3.0e-39f };
  const float c[5] = { 1.0f, f32_from_bits(0x7fc00001), INFINITY, -0.0f, 3.0e-39f };
  float b[5];
  memcpy(b, a, sizeof b);
  for (int tol = CMP_EXACT; tol <= CMP_REFERENCE; tol++) {
    CmpResult x = cmp_f32(a, b, 5, (CmpTolerance)tol), y = cmp_f32(a, c, 5, (CmpTolerance)tol);
    assert_int_equal(x.verdict, y.verdict);
    assert_int_equal(x.verdict, CMP_EQUAL);
    assert_int_equal(x.first_index, y.first_index);
    assert_int_equal(x.first_bad_index, y.first_bad_index);
    assert_memory_equal(&x.a_value, &y.a_value, sizeof x.a_value);
    assert_memory_equal(&x.b_value, &y.b_value, sizeof x.b_value);
    assert_int_equal(x.ulp_distance, y.ulp_distance);
    assert_memory_equal(&x.max_abs, &y.max_abs, sizeof x.max_abs);
    assert_memory_equal(&x.max_rel, &y.max_rel, sizeof x.max_rel);
    assert_memory_equal(&x.mse, &y.mse, sizeof x.mse);
  }
  /* an unsupported element size still differs, even on the same bytes */
  assert_int_equal(cmp_arrays('f', 3, a, a, 1, CMP_EXACT).verdict, CMP_DIFFER);
}

static void test_signed_zero(void **state)
{
  (void)state;
  const float a[2] = { 1.0f, 0.0f }, b[2] = { 1.0f, -0.0f };
  CmpResult r = cmp_f32(a, b, 2, CMP_EXACT);
  expect(r, CMP_DIFFER, 1, 1);
  assert_true(r.ulp_distance == 0);
  expect(cmp_f32(a, b, 2, CMP_DEFAULT), CMP_CLOSE, 1, -1);
  expect(cmp_f32(a, b, 2, CMP_REFERENCE), CMP_CLOSE, 1, -1);
}

/* ------------------------------------------------------------ class T */

static void test_close_f32(void **state)
{
  (void)state;
  const float r[3] = { 1.0f, 0.0f, -1000.0f };
  const float ok[3] = { 1.0f + 9e-5f, 9e-7f, -1000.1f };
  CmpResult c = cmp_f32(ok, r, 3, CMP_DEFAULT);
  expect(c, CMP_CLOSE, 0, -1);
  assert_true(c.a_value == (double)ok[0] && c.b_value == 1.0);
  const float bad1[3] = { 1.0f, 2e-6f, -1000.0f };
  expect(cmp_f32(bad1, r, 3, CMP_DEFAULT), CMP_DIFFER, 1, 1);
  const float bad2[3] = { 1.0f + 1e-5f, 0.0f, -1000.2f };
  c = cmp_f32(bad2, r, 3, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 0, 2);
  assert_true(c.a_value == (double)-1000.2f && c.b_value == -1000.0);
  assert_true(c.ulp_distance == f32_bits(-1000.2f) - f32_bits(-1000.0f));
}

static void test_close_f64(void **state)
{
  (void)state;
  const double r[2] = { 1.0, 1e-13 };
  const double ok[2] = { 1.0 + 5e-11, 1e-12 };
  expect(cmp_arrays('f', 8, ok, r, 2, CMP_DEFAULT), CMP_CLOSE, 0, -1);
  const double bad[2] = { 1.0 + 1e-9, 1e-13 };
  expect(cmp_arrays('f', 8, bad, r, 2, CMP_DEFAULT), CMP_DIFFER, 0, 0);
  expect(cmp_arrays('f', 8, ok, r, 2, CMP_EXACT), CMP_DIFFER, 0, 0);
}

static void test_close_f16_bf16(void **state)
{
  (void)state;
  /* f16: 1.0 = 0x3c00, one ulp 2^-10; tolerance at 1.0 is 0.011 */
  const uint16_t h1[1] = { 0x3c00 }, h_ok[1] = { 0x3c0b }, h_bad[1] = { 0x3c0c };
  expect(cmp_arrays('f', 2, h_ok, h1, 1, CMP_DEFAULT), CMP_CLOSE, 0, -1);
  CmpResult r = cmp_arrays('f', 2, h_bad, h1, 1, CMP_DEFAULT);
  expect(r, CMP_DIFFER, 0, 0);
  assert_true(r.a_value == 1.01171875 && r.b_value == 1.0);
  assert_true(r.ulp_distance == 12);
  /* bf16: 1.0 = 0x3f80, one ulp 2^-7 */
  const uint16_t b1[1] = { 0x3f80 }, b_ok[1] = { 0x3f81 }, b_bad[1] = { 0x3f82 };
  expect(cmp_arrays('b', 2, b_ok, b1, 1, CMP_DEFAULT), CMP_CLOSE, 0, -1);
  r = cmp_arrays('b', 2, b_bad, b1, 1, CMP_DEFAULT);
  expect(r, CMP_DIFFER, 0, 0);
  assert_true(r.a_value == 1.015625 && r.b_value == 1.0);
  /* f16 subnormals and negatives convert exactly */
  const uint16_t sub[2] = { 0x0001, 0xc000 }, zero[2] = { 0x0000, 0xc000 };
  r = cmp_arrays('f', 2, sub, zero, 2, CMP_EXACT);
  assert_true(r.a_value == 0x1p-24 && r.ulp_distance == 1);
  const uint16_t neg[1] = { 0xc000 }, pos[1] = { 0x4000 };
  r = cmp_arrays('f', 2, neg, pos, 1, CMP_EXACT);
  assert_true(r.a_value == -2.0 && r.b_value == 2.0);
  assert_true(r.ulp_distance == 2 * 0x4000);
}

static void test_nonfinite_positions(void **state)
{
  (void)state;
  const float r[3] = { 1.0f, INFINITY, NAN };
  const float same[3] = { 1.0f + 1e-6f, INFINITY, f32_from_bits(0x7fc00042) };
  expect(cmp_f32(same, r, 3, CMP_DEFAULT), CMP_CLOSE, 0, -1);
  const float flipped[3] = { 1.0f, -INFINITY, NAN };
  CmpResult c = cmp_f32(flipped, r, 3, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 1, 1);
  const float finite[3] = { 1.0f, FLT_MAX, NAN };
  expect(cmp_f32(finite, r, 3, CMP_DEFAULT), CMP_DIFFER, 1, 1);
  const float nan_for_value[3] = { NAN, INFINITY, NAN };
  c = cmp_f32(nan_for_value, r, 3, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 0, 0);
  assert_true(c.ulp_distance == UINT64_MAX);
  assert_true(isnan(c.a_value) && c.b_value == 1.0);
}

/* ------------------------------------------------------------ ulps */

static void test_first_index_and_ulps(void **state)
{
  (void)state;
  const float r[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
  float a[4] = { 1.0f, 2.0f, 0.0f, 4.1f };
  a[2] = f32_from_bits(f32_bits(3.0f) + 5);
  CmpResult c = cmp_f32(a, r, 4, CMP_EXACT);
  expect(c, CMP_DIFFER, 2, 2);
  assert_true(c.ulp_distance == 5);
  assert_true(c.a_value == (double)a[2] && c.b_value == 3.0);
  c = cmp_f32(a, r, 4, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 2, 3);
  assert_true(c.ulp_distance == f32_bits(4.1f) - f32_bits(4.0f));
  assert_true(fabs(c.max_abs - ((double)4.1f - 4.0)) < 1e-12);

  /* across zero: the two smallest subnormals are 2 apart */
  const float tiny[1] = { f32_from_bits(0x00000001) }, ntiny[1] = { f32_from_bits(0x80000001) };
  assert_true(cmp_f32(tiny, ntiny, 1, CMP_EXACT).ulp_distance == 2);
  const double big[1] = { DBL_MAX }, nbig[1] = { -DBL_MAX };
  assert_true(cmp_arrays('f', 8, big, nbig, 1, CMP_EXACT).ulp_distance ==
              2 * UINT64_C(0x7fefffffffffffff));
}

/* ------------------------------------------------------------ integers */

static void test_integers(void **state)
{
  (void)state;
  const int32_t a[3] = { -5, 7, 1 }, b[3] = { -5, 9, 1 };
  CmpResult c = cmp_arrays('i', 4, a, b, 3, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 1, 1);
  assert_true(c.ulp_distance == 2 && c.a_value == 7.0 && c.b_value == 9.0);
  const int64_t lo[1] = { INT64_MIN }, hi[1] = { INT64_MAX };
  assert_true(cmp_arrays('i', 8, lo, hi, 1, CMP_EXACT).ulp_distance == UINT64_MAX);
  const int8_t m1[1] = { -1 }, p1[1] = { 1 };
  c = cmp_arrays('i', 1, m1, p1, 1, CMP_EXACT);
  assert_true(c.ulp_distance == 2 && c.a_value == -1.0);
  const int16_t s1[1] = { -32768 }, s2[1] = { 32767 };
  assert_true(cmp_arrays('i', 2, s1, s2, 1, CMP_EXACT).ulp_distance == 65535);
  const uint8_t u1[1] = { 250 }, u2[1] = { 5 };
  c = cmp_arrays('u', 1, u1, u2, 1, CMP_EXACT);
  assert_true(c.ulp_distance == 245 && c.a_value == 250.0);
  const uint64_t big[1] = { UINT64_MAX }, zero[1] = { 0 };
  assert_true(cmp_arrays('u', 8, big, zero, 1, CMP_EXACT).ulp_distance == UINT64_MAX);
  const uint16_t w1[1] = { 0xffff }, w2[1] = { 1 };
  assert_true(cmp_arrays('u', 2, w1, w2, 1, CMP_DEFAULT).b_value == 1.0);
  /* integers must be equal even under the default tolerance ... */
  const int32_t k[2] = { 1000, 1001 }, kr[2] = { 1000, 1000 };
  expect(cmp_arrays('i', 4, k, kr, 2, CMP_DEFAULT), CMP_DIFFER, 1, 1);
  /* ... but the reference rule is numeric */
  expect(cmp_arrays('i', 4, k, kr, 2, CMP_REFERENCE), CMP_CLOSE, 1, -1);
}

static void test_bool(void **state)
{
  (void)state;
  const uint8_t a[3] = { 1, 0, 1 }, b[3] = { 1, 1, 1 };
  CmpResult c = cmp_arrays('?', 1, a, b, 3, CMP_DEFAULT);
  expect(c, CMP_DIFFER, 1, 1);
  assert_true(c.ulp_distance == 1 && c.a_value == 0.0 && c.b_value == 1.0);
  expect(cmp_arrays('?', 1, a, a, 3, CMP_DEFAULT), CMP_EQUAL, -1, -1);
}

/* ------------------------------------------------------------ statistics */

static void test_statistics(void **state)
{
  (void)state;
  const float a[4] = { 1.0f, 2.0f, 4.0f, NAN }, b[4] = { 1.0f, 2.0f, 3.0f, NAN };
  CmpResult c = cmp_f32(a, b, 4, CMP_DEFAULT);
  assert_true(c.max_abs == 1.0);
  assert_true(c.max_rel == 1.0 / (3.0 + 1e-8));
  assert_true(fabs(c.mse - 1.0 / 3.0) < 1e-15);
}

/* ------------------------------------------------------------ reference rule */

static void test_reference_rule(void **state)
{
  (void)state;
  enum { N = 100 };
  float r[N], a[N];
  /* max_rel <= 5e-3 */
  for (int i = 0; i < N; i++) {
    r[i] = (float)(i + 1);
    a[i] = r[i] * (1.0f + 4e-3f);
  }
  expect(cmp_f32(a, r, N, CMP_REFERENCE), CMP_CLOSE, 0, -1);
  expect(cmp_f32(a, r, N, CMP_DEFAULT), CMP_DIFFER, 0, 0);
  /* max_abs <= 1e-7 at zero references */
  for (int i = 0; i < N; i++)
    r[i] = 0.0f, a[i] = 5e-8f;
  expect(cmp_f32(a, r, N, CMP_REFERENCE), CMP_CLOSE, 0, -1);
  /* mse <= 1e-5: one outlier among many exact elements */
  for (int i = 0; i < N; i++)
    a[i] = 0.0f;
  a[37] = 0.02f;
  expect(cmp_f32(a, r, N, CMP_REFERENCE), CMP_CLOSE, 37, -1);
  expect(cmp_f32(a, r, N, CMP_DEFAULT), CMP_DIFFER, 37, 37);
  /* none holds: f32 rejects; the bad index is the largest error */
  a[37] = 0.5f;
  a[60] = 2.0f;
  a[70] = 2.0f;
  CmpResult c = cmp_f32(a, r, N, CMP_REFERENCE);
  expect(c, CMP_DIFFER, 37, 60);
  assert_true(c.a_value == 2.0 && c.b_value == 0.0 && c.max_abs == 2.0);
  /* both NaN / the same inf are ignored; a one-sided NaN rejects */
  const float x[3] = { NAN, -INFINITY, 1.001f }, y[3] = { -NAN, -INFINITY, 1.0f };
  c = cmp_f32(x, y, 3, CMP_REFERENCE);
  expect(c, CMP_CLOSE, 2, -1);
  assert_true(fabs(c.max_rel - 1e-3) < 1e-6);
  const float z[3] = { NAN, -INFINITY, NAN };
  expect(cmp_f32(z, y, 3, CMP_REFERENCE), CMP_DIFFER, 2, 2);
  const float w[3] = { NAN, INFINITY, 1.0f };
  expect(cmp_f32(w, y, 3, CMP_REFERENCE), CMP_DIFFER, 1, 1);
}

/* The dtype fallbacks: f16 and bf16 accept max_abs < 1.5, f32 < 1e-3. */
static void test_reference_fallbacks(void **state)
{
  (void)state;
  const uint16_t h_one[2] = { 0x3c00, 0x3c00 }, h_zero[2] = { 0, 0 };
  const uint16_t h_two[2] = { 0x3c00, 0x4000 };
  expect(cmp_arrays('f', 2, h_one, h_zero, 2, CMP_REFERENCE), CMP_CLOSE, 0, -1);
  expect(cmp_arrays('f', 2, h_two, h_zero, 2, CMP_REFERENCE), CMP_DIFFER, 0, 1);
  const uint16_t b_one[2] = { 0x3f80, 0x3f80 }, b_zero[2] = { 0, 0 };
  expect(cmp_arrays('b', 2, b_one, b_zero, 2, CMP_REFERENCE), CMP_CLOSE, 0, -1);
  const float f_one[2] = { 1.0f, 1.0f }, f_zero[2] = { 0.0f, 0.0f };
  expect(cmp_f32(f_one, f_zero, 2, CMP_REFERENCE), CMP_DIFFER, 0, 0);
  const double d_one[2] = { 1.0, 1.0 }, d_zero[2] = { 0.0, 0.0 };
  expect(cmp_arrays('f', 8, d_one, d_zero, 2, CMP_REFERENCE), CMP_DIFFER, 0, 0);
  /* f32: max_abs 9e-4 with mse above 1e-5 cannot happen (mse <= max_abs^2),
   * so f32's fallback never changes a verdict; it is still exercised here */
  const float f_small[2] = { 9e-4f, 0.0f };
  expect(cmp_f32(f_small, f_zero, 2, CMP_REFERENCE), CMP_CLOSE, 0, -1);
}

static void test_unsupported(void **state)
{
  (void)state;
  const uint8_t a[8] = { 0 };
  expect(cmp_arrays('f', 3, a, a, 1, CMP_EXACT), CMP_DIFFER, 0, 0);
  expect(cmp_arrays('x', 4, a, a, 1, CMP_EXACT), CMP_DIFFER, 0, 0);
  expect(cmp_arrays('b', 4, a, a, 1, CMP_EXACT), CMP_DIFFER, 0, 0);
  expect(cmp_arrays('?', 2, a, a, 1, CMP_EXACT), CMP_DIFFER, 0, 0);
  assert_string_equal(cmp_verdict_name(CMP_EQUAL), "equal");
  assert_string_equal(cmp_verdict_name(CMP_CLOSE), "close");
  assert_string_equal(cmp_verdict_name(CMP_DIFFER), "differ");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_equal),
    cmocka_unit_test(test_nan_payloads_equal),
    cmocka_unit_test(test_same_bytes_as_scan),
    cmocka_unit_test(test_signed_zero),
    cmocka_unit_test(test_close_f32),
    cmocka_unit_test(test_close_f64),
    cmocka_unit_test(test_close_f16_bf16),
    cmocka_unit_test(test_nonfinite_positions),
    cmocka_unit_test(test_first_index_and_ulps),
    cmocka_unit_test(test_integers),
    cmocka_unit_test(test_bool),
    cmocka_unit_test(test_statistics),
    cmocka_unit_test(test_reference_rule),
    cmocka_unit_test(test_reference_fallbacks),
    cmocka_unit_test(test_unsupported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
