/* features_test.c -- unit tests of the learned cost model's features
 * (search/features.h): the exact vector of a tiny program, entries worked
 * out by hand from the definitions, and what a transposed access changes. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/features.h"
#include "testsuite/unit/unit_prog.h"

static const char *ELEMWISE =
    "%in A : f32[64,32]\n%out C : f32[64,32]\n"
    "L^{64}_{i=0}L^{32}_{a=0}[C^{f32,g}_{i,a}=A^{f32,g}_{i,a}*2.0;];\n";

/* The same with A read transposed: along the innermost loop a, A moves
 * 64 elements (256 bytes, a line or more). */
static const char *TRANSPOSED =
    "%in A : f32[32,64]\n%out C : f32[64,32]\n"
    "L^{64}_{i=0}L^{32}_{a=0}[C^{f32,g}_{i,a}=A^{f32,g}_{a,i}*2.0;];\n";

static void features_of(const char *text, float *f) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  assert_true(search_features(&pr.ctx, pr.p, f));
  assert_string_equal(pr.diag, "");
  prog_free(&pr);
}

static void features_text(const char *text, char *out, size_t n) {
  float f[SEARCH_NFEATURES];
  features_of(text, f);
  size_t k = 0;
  for (int i = 0; i < SEARCH_NFEATURES && k < n; i++) k += (size_t)snprintf(out + k, n - k, "%s%.6g", i ? " " : "", (double)f[i]);
}

/* The analytic model's 162 ns (lg = 7.34873, codegen/costmodel.h's
 * ELEMWISE test) and 16384 bytes into L1; 256 compute cycles plus 80 of page
 * walks (lg 336 = 8.3966, lg 80 = 6.33985); intensity 2048 / 16384 (lg
 * 0.125 = 0.169925), reuse 2048 * 2 references * 4 bytes / 16384 = 1;
 * 2048 iterations of one multiply, vectorised 8 wide along a (32 bytes /
 * 4-byte elements); one nest, one statement of depth 2; 16 KiB of tensors
 * (lg = log2(16385) = 14.0001); both references move one element along a
 * (unit share 1 along the innermost loop and li = a); lg 2048 = 11.0007,
 * lg 32 = 5.04439, lg 64 = 6.02237; no math calls, divisions or
 * selections; the nest's parallel-safe loop is i (lg 64). */
static void test_exact_vector(void **state) {
  (void)state;
  char got[4096];
  features_text(ELEMWISE, got, sizeof got);
  assert_string_equal(got, "7.34873 11.0007 14.0001 1 8.3966 6.33985 0 0 0 11.0007 1 8 0 0 11.0007 11.0007 0 0 0 "
                           "0.169925 1 1 1 2 14.0001 0 11.0007 1 2 5.04439 6.02237 0 6.02237 5.04439 1 8 0 1 1 1 "
                           "0 1 0 0 0 0 1 0 0 0 4 6.02237 14.0001 11.0007 0 0");
}

/* Exact entries, by name. */
static void test_named_entries(void **state) {
  (void)state;
  float f[SEARCH_NFEATURES];
  features_of(ELEMWISE, f);
  assert_string_equal(search_feature_name(0), "analytic_seconds");
  assert_string_equal(search_feature_name(SEARCH_NFEATURES - 1), "dom_red_share");
  assert_null(search_feature_name(SEARCH_NFEATURES));
  assert_true(f[1] == (float)log2(2049.0));  /* flops */
  assert_true(f[9] == (float)log2(2049.0));  /* iters */
  assert_true(f[10] == 1.0f);                /* all vectorised */
  assert_true(f[11] == 8.0f);                /* 8 wide */
  assert_true(f[21] == 1.0f && f[22] == 1.0f && f[23] == 2.0f);
  assert_true(f[24] == (float)log2(16385.0));
  assert_true(f[29] == (float)log2(33.0) && f[30] == (float)log2(65.0) && f[31] == 0.0f);
  assert_true(f[35] == 8.0f);
  assert_true(f[41] == 1.0f && f[43] == 0.0f); /* unit steps along a */
  assert_true(f[50] == 4.0f);
}

/* Transposed: no longer vectorised; A's step along a is a line or more. */
static void test_transposed(void **state) {
  (void)state;
  float f[SEARCH_NFEATURES];
  features_of(TRANSPOSED, f);
  assert_true(f[10] == 0.0f);
  assert_true(f[35] == 1.0f);
  assert_true(f[41] == 0.5f && f[43] == 0.5f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_vector),
      cmocka_unit_test(test_named_entries),
      cmocka_unit_test(test_transposed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
