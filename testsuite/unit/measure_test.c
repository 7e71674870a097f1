/* measure_test.c -- unit tests of codegen/measure.h: the defaults, a
 * measurement of a small program (a positive, finite median, also per
 * series of cg_host_measure_series; the outputs
 * left by the last run are the program's result, computed from zeroed
 * outputs on every run), one on an InterpProg's buffers the caller
 * filled (cg_host_measure_ip: its data is what runs), and a failure (an out-of-bounds read) reported
 * as false with a diagnostic.  No timing is asserted. */
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

#include "codegen/measure.h"
#include "interp/interp.h"
#include "testsuite/unit/unit_prog.h"

static void test_defaults(void **state) {
  (void)state;
  CgMeasureOpts m;
  memset(&m, 0x55, sizeof m);
  cg_measure_opts_init(&m);
  assert_int_equal(m.warmup, 1);
  assert_int_equal(m.repeats, 5);
  assert_true(m.max_seconds == 0);
}

/* S[i] = S[i] + X[i,j]: on every run the output starts at zero, so after
 * 3 runs S holds one row sum, not three. */
static void test_measure_bufs(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, "%in X : f32[4,8]\n%out S : f32[4]\n"
                             "L^{4}_{i=0}L^{8}_{j=0}[S^{f32,g}_{i}=S^{f32,g}_{i}+X^{f32,g}_{i,j};];\n"));
  float x[32], s[4] = {0};
  for (int i = 0; i < 32; i++) x[i] = (float)(i % 8);
  IrTensor *tx = ir_find_tensor(pr.p, "X"), *ts = ir_find_tensor(pr.p, "S");
  void *bufs[2];
  bufs[tx->id] = x;
  bufs[ts->id] = s;
  CgOptions o;
  cg_options_init(&o);
  CgMeasureOpts m;
  cg_measure_opts_init(&m);
  m.repeats = 3;
  double med = -1;
  assert_true(cg_host_measure_bufs(&pr.ctx, pr.p, &o, &m, bufs, &med));
  assert_true(med > 0 && isfinite(med));
  for (int i = 0; i < 4; i++) assert_true(s[i] == 28.0f);
  /* three series on one compilation: three medians, the outputs still one
     run's */
  double meds[3] = {-1, -1, -1};
  for (int i = 0; i < 4; i++) s[i] = -7.0f;
  assert_true(cg_host_measure_series(&pr.ctx, pr.p, &o, &m, bufs, 3, meds));
  for (int k = 0; k < 3; k++) assert_true(meds[k] > 0 && isfinite(meds[k]));
  for (int i = 0; i < 4; i++) assert_true(s[i] == 28.0f);
  /* the allocating form, with its own deterministic inputs */
  med = -1;
  assert_true(cg_host_measure(&pr.ctx, pr.p, &o, NULL, &med));
  assert_true(med > 0 && isfinite(med));
  assert_int_equal(pr.ctx.nerrors, 0);
  prog_free(&pr);
}

/* cg_host_measure_ip times the data the caller put in the InterpProg's
 * buffers (as leirc --print-cost --cost=measure does with --input): S is
 * the row sums of that X afterwards, not of random data. */
static void test_measure_ip(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, "%in X : f32[4,8]\n%out S : f32[4]\n"
                             "L^{4}_{i=0}L^{8}_{j=0}[S^{f32,g}_{i}=S^{f32,g}_{i}+X^{f32,g}_{i,j};];\n"));
  InterpProg *ip = interp_new(&pr.ctx, pr.p, NULL);
  assert_non_null(ip);
  float *x = interp_find(ip, "X")->data;
  for (int i = 0; i < 32; i++) x[i] = (float)(i / 8 + 1);
  CgOptions o;
  cg_options_init(&o);
  double med = -1;
  assert_true(cg_host_measure_ip(&pr.ctx, pr.p, &o, NULL, ip, &med));
  assert_true(med > 0 && isfinite(med));
  const float *s = interp_find(ip, "S")->data;
  for (int i = 0; i < 4; i++) assert_true(s[i] == 8.0f * (float)(i + 1));
  assert_int_equal(pr.ctx.nerrors, 0);
  interp_free(ip);
  prog_free(&pr);
}

/* An index read from a tensor goes out of bounds at run time. */
static void test_measure_fails(void **state) {
  (void)state;
  Prog pr;
  assert_true(prog_load(&pr, "%in X : f32[4]\n%in K : i32[4]\n%out Y : f32[4]\n"
                             "L^{4}_{i=0}[Y^{f32,g}_{i}=X^{f32,g}_{K^{i32,g}_{i}+9};];\n"));
  CgOptions o;
  cg_options_init(&o);
  double med = -1;
  assert_false(cg_host_measure(&pr.ctx, pr.p, &o, NULL, &med));
  assert_true(pr.ctx.nerrors > 0);
  assert_non_null(strstr(pr.diag, "out-of-bounds read of X"));
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_measure_bufs),
      cmocka_unit_test(test_measure_ip),
      cmocka_unit_test(test_measure_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
