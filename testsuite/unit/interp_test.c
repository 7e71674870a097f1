/* interp_test.c -- unit tests of the reference interpreter (interp/):
 * the §9.5 initialisation rule, the §13.3 reduction tree, floor operations,
 * integer semantics, f16/bf16 rounding, out-of-bounds and work-limit errors,
 * poison, .npy input/output through the run path, the per-pass check and
 * the comparison with another engine (interp_compare_ran_with). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/check.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "interp/npy.h"
#include "interp/ops.h"
#include "ir/mathlib.h"

/* ------------------------------------------------------------ helpers */

typedef struct T {
  LeirCtx ctx;
  char *diag;      /* captured diagnostics */
  size_t diaglen;
  IrProgram *p;
  InterpProg *ip;
} T;

static T *t_new(const char *text, const InterpOptions *o) {
  T *t = calloc(1, sizeof *t);
  assert_non_null(t);
  leir_ctx_init(&t->ctx);
  t->ctx.diag_out = open_memstream(&t->diag, &t->diaglen);
  t->ctx.quiet_caret = true;
  leir_ctx_set_source(&t->ctx, "t.leir", text, strlen(text));
  t->p = ps_parse(&t->ctx);
  assert_non_null(t->p);
  assert_true(ir_sema(&t->ctx, t->p, NULL));
  t->ip = interp_new(&t->ctx, t->p, o);
  assert_non_null(t->ip);
  return t;
}

static const char *t_diag(T *t) {
  fflush(t->ctx.diag_out);
  return t->diag ? t->diag : "";
}

static void t_free(T *t) {
  interp_free(t->ip);
  fclose(t->ctx.diag_out);
  free(t->diag);
  leir_ctx_free(&t->ctx);
  free(t);
}

static InterpBuf *buf(T *t, const char *name) {
  InterpBuf *b = interp_find(t->ip, name);
  assert_non_null(b);
  return b;
}

static void set_f32(T *t, const char *name, const float *v, int64_t n) {
  InterpBuf *b = buf(t, name);
  assert_int_equal(b->numel, n);
  memcpy(b->data, v, sizeof(float) * (size_t)n);
}

static void set_i64(T *t, const char *name, const int64_t *v, int64_t n) {
  InterpBuf *b = buf(t, name);
  assert_int_equal(b->numel, n);
  memcpy(b->data, v, sizeof(int64_t) * (size_t)n);
}

static uint32_t bits_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Asserts bit equality of a float output with the expected values. */
static void expect_f32(T *t, const char *name, const float *want, int64_t n) {
  InterpBuf *b = buf(t, name);
  assert_int_equal(b->numel, n);
  const float *got = b->data;
  for (int64_t i = 0; i < n; i++) {
    if (bits_f32(got[i]) != bits_f32(want[i]))
      fail_msg("%s[%lld] = %.9g (0x%08x), expected %.9g (0x%08x)", name, (long long)i, got[i],
               bits_f32(got[i]), want[i], bits_f32(want[i]));
  }
}

static void expect_i64(T *t, const char *name, const int64_t *want, int64_t n) {
  InterpBuf *b = buf(t, name);
  assert_int_equal(b->numel, n);
  const int64_t *got = b->data;
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i])
      fail_msg("%s[%lld] = %lld, expected %lld", name, (long long)i, (long long)got[i], (long long)want[i]);
}

/* ------------------------------------------------------------ §9.5 init */

/* No reduction index: the identity is stored before every execution, so
 * E = I + J, not a running sum over the repeated loop. */
static void test_init_no_reduction_index(void **state) {
  (void)state;
  T *t = t_new("%in I : f32[2,3]\n%in J : f32[2,3]\n%out E : f32[2,3]\n"
               "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{k=0}[E^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}+(I^{f32,g}_{tx,a}+J^{f32,g}_{tx,a});];",
               NULL);
  float I[6] = {1, 2, 3, 4, 5, 6}, J[6] = {10, 20, 30, 40, 50, 60};
  set_f32(t, "I", I, 6);
  set_f32(t, "J", J, 6);
  assert_true(interp_run(t->ip));
  float want[6] = {11, 22, 33, 44, 55, 66};
  expect_f32(t, "E", want, 6);
  assert_int_equal(interp_steps(t->ip), 24);
  t_free(t);
}

/* A loop the statement does not mention repeats it; the init fires again
 * whenever every reduction index is 0, so the result is one sum, not two. */
static void test_init_reinit_on_repeat(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%out D : f32[]\n"
               "L^{2}_{k=0}L^{3}_{c=0}[D^{f32,g}=D^{f32,g}+A^{f32,g}_{c};];",
               NULL);
  float A[3] = {1, 2, 4};
  set_f32(t, "A", A, 3);
  assert_true(interp_run(t->ip));
  float want[1] = {7};
  expect_f32(t, "D", want, 1);
  t_free(t);
}

/* Reduction loop outermost: the init happens at c == 0 for each element. */
static void test_init_reduction_outermost(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3,2]\n%out D : f32[2]\n"
               "L^{3}_{c=0}L^{2}_{a=0}[D^{f32,g}_{a}=max(D^{f32,g}_{a},A^{f32,g}_{c,a});];",
               NULL);
  float A[6] = {-5, -1, -7, -2, -6, -3};
  set_f32(t, "A", A, 6);
  assert_true(interp_run(t->ip));
  float want[2] = {-5, -1};
  expect_f32(t, "D", want, 2);
  t_free(t);
}

/* Rule 1: written earlier -> no init; the second nest accumulates. */
static void test_init_accumulate_onto_earlier(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[2]\n%in G : f32[2]\n%out C : f32[2]\n"
               "B^{2}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];"
               "B^{2}_{tx=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}*G^{f32,g}_{tx};];",
               NULL);
  float A[2] = {3, 5}, G[2] = {2, 7};
  set_f32(t, "A", A, 2);
  set_f32(t, "G", G, 2);
  assert_true(interp_run(t->ip));
  float want[2] = {6, 35};
  expect_f32(t, "C", want, 2);
  t_free(t);
}

/* Identities: product 1, min +inf, `... / T` quirk 1; integer max starts at
 * the dtype minimum. */
static void test_init_identities(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%in K : i32[3]\n%out H : f32[]\n%out M : f32[]\n%out Q : f32[]\n%out X : i32[]\n"
               "L^{3}_{a=0}[H^{f32,g}=H^{f32,g}*A^{f32,g}_{a};];"
               "L^{3}_{a=0}[M^{f32,g}=min(M^{f32,g},A^{f32,g}_{a});];"
               "L^{3}_{a=0}[Q^{f32,g}=A^{f32,g}_{a}/Q^{f32,g};];"
               "L^{3}_{a=0}[X^{i32,g}=max(X^{i32,g},K^{i32,g}_{a});];",
               NULL);
  float A[3] = {2, 4, 8};
  set_f32(t, "A", A, 3);
  int32_t K[3] = {-2147483647 - 1, -2147483647 - 1, -2147483647 - 1};
  memcpy(buf(t, "K")->data, K, sizeof K);
  assert_true(interp_run(t->ip));
  float p[1] = {64}, m[1] = {2}, q[1] = {8.0f / (4.0f / 2.0f)};
  expect_f32(t, "H", p, 1);
  expect_f32(t, "M", m, 1);
  expect_f32(t, "Q", q, 1);
  assert_int_equal(*(int32_t *)buf(t, "X")->data, INT32_MIN);
  t_free(t);
}

/* ------------------------------------------------------------ §13.3 tree */

/* Five threads: the tree (((v0+v1)+(v2+v3))+v4) differs from the
 * sequential sum in f32: sequential gives 2, the tree gives 1. */
static void test_tree_order_sum(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[5]\n%out D : f32[]\n"
               "B^{5}_{tx=0}[D^{f32,g}=D^{f32,g}+A^{f32,g}_{tx};];",
               NULL);
  assert_int_equal(interp_ntree_stmts(t->ip), 1);
  float A[5] = {1e8f, 1, -1e8f, 1, 1};
  set_f32(t, "A", A, 5);
  assert_true(interp_run(t->ip));
  float want[1] = {1};
  expect_f32(t, "D", want, 1);
  t_free(t);

  /* the same with an ordinary loop: sequential order */
  t = t_new("%in A : f32[5]\n%out D : f32[]\nL^{5}_{a=0}[D^{f32,g}=D^{f32,g}+A^{f32,g}_{a};];", NULL);
  assert_int_equal(interp_ntree_stmts(t->ip), 0);
  set_f32(t, "A", A, 5);
  assert_true(interp_run(t->ip));
  want[0] = 2;
  expect_f32(t, "D", want, 1);
  t_free(t);
}

/* Per-thread partials fold the serial loop in order; rows are per element;
 * the result folds onto the prior value (INIT_NONE: no init). */
static void test_tree_partials_and_prior(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[4,2]\n%out D : f32[2]\n"
               "B^{2}_{tx=0}[D^{f32,g}_{tx}=0.5;];"
               "B^{4}_{tx=0}L^{2}_{a=0}[D^{f32,g}_{a}=D^{f32,g}_{a}-A^{f32,g}_{tx,a};];",
               NULL);
  assert_int_equal(interp_ntree_stmts(t->ip), 1);
  /* column 0: threads -1e8, 3, 1e8, 3: partials 0-x; tree ((-v0 + -v1) + (-v2 + -v3)) */
  float A[8] = {1e8f, 1, 3, 2, -1e8f, 4, 3, 8};
  set_f32(t, "A", A, 8);
  assert_true(interp_run(t->ip));
  float c0 = ((0.0f - 1e8f) + (0.0f - 3.0f)) + ((0.0f + 1e8f) + (0.0f - 3.0f));
  float c1 = ((0.0f - 1.0f) + (0.0f - 2.0f)) + ((0.0f - 4.0f) + (0.0f - 8.0f));
  float want[2] = {0.5f + c0, 0.5f + c1};
  expect_f32(t, "D", want, 2);
  t_free(t);
}

static void test_tree_max_nan(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%out D : f32[]\n"
               "B^{3}_{tx=0}[D^{f32,g}=max(D^{f32,g},A^{f32,g}_{tx});];",
               NULL);
  float A[3] = {NAN, -2, -3};
  set_f32(t, "A", A, 3);
  assert_true(interp_run(t->ip));
  float want[1] = {-2};
  expect_f32(t, "D", want, 1);
  t_free(t);
}

/* Not form (1) -> sequential: ((D + x) - y) over tx. */
static void test_tree_other_shape_sequential(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%out D : f32[]\n"
               "B^{3}_{tx=0}[D^{f32,g}=D^{f32,g}+A^{f32,g}_{tx}-1;];",
               NULL);
  assert_int_equal(interp_ntree_stmts(t->ip), 0);
  t_free(t);
}

/* ------------------------------------------------------------ arithmetic */

static void test_floor_int(void **state) {
  (void)state;
  T *t = t_new("%in A : i64[8]\n%in G : i64[8]\n%out Q : i64[8]\n%out R : i64[8]\n%out S : i64[8]\n"
               "B^{8}_{tx=0}[Q^{i64,g}_{tx}=A^{i64,g}_{tx}//G^{i64,g}_{tx};"
               "R^{i64,g}_{tx}=A^{i64,g}_{tx}%G^{i64,g}_{tx};S^{i64,g}_{tx}=A^{i64,g}_{tx}/G^{i64,g}_{tx};];",
               NULL);
  int64_t A[8] = {-7, 7, 7, -7, 5, 0, INT64_MIN, INT64_MIN};
  int64_t B[8] = {2, -2, 2, -2, 0, 3, -1, 7};
  set_i64(t, "A", A, 8);
  set_i64(t, "G", B, 8);
  assert_true(interp_run(t->ip));
  int64_t q[8] = {-4, -4, 3, 3, 0, 0, INT64_MIN, INT64_MIN / 7 - 1};
  int64_t r[8] = {1, -1, 1, -1, 0, 0, 0, INT64_MIN % 7 + 7};
  int64_t s[8] = {-3, -3, 3, 3, 0, 0, INT64_MIN, INT64_MIN / 7};
  expect_i64(t, "Q", q, 8);
  expect_i64(t, "R", r, 8);
  expect_i64(t, "S", s, 8);
  t_free(t);
}

static void test_floor_float(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[4]\n%in G : f32[4]\n%out Q : f32[4]\n%out R : f32[4]\n"
               "B^{4}_{tx=0}[Q^{f32,g}_{tx}=A^{f32,g}_{tx}//G^{f32,g}_{tx};R^{f32,g}_{tx}=A^{f32,g}_{tx}%G^{f32,g}_{tx};];",
               NULL);
  float A[4] = {-7.5f, 7.5f, 1, 5}, B[4] = {2, -2, 0, 0.1f};
  set_f32(t, "A", A, 4);
  set_f32(t, "G", B, 4);
  assert_true(interp_run(t->ip));
  float q3 = floorf(5.0f / 0.1f), r3 = 5.0f - q3 * 0.1f;
  float q[4] = {-4, -4, INFINITY, q3}, r[4] = {0.5f, -0.5f, NAN, r3};
  expect_f32(t, "Q", q, 4);
  const float *got = buf(t, "R")->data;
  assert_int_equal(bits_f32(got[0]), bits_f32(r[0]));
  assert_int_equal(bits_f32(got[1]), bits_f32(r[1]));
  assert_true(isnan(got[2])); /* 1 - inf * 0 */
  assert_int_equal(bits_f32(got[3]), bits_f32(r[3]));
  t_free(t);
}

/* Wrap-around, saturating float->int, literal and index conversions,
 * lazy if_then_else, comparison chains. */
static void test_int_semantics(void **state) {
  (void)state;
  T *t = t_new("%in A : i32[3]\n%in F : f32[3]\n%out W : i32[3]\n%out S : i8[3]\n%out G : f32[3]\n"
               "B^{3}_{tx=0}[W^{i32,g}_{tx}=A^{i32,g}_{tx}*2+1;S^{i8,g}_{tx}=F^{f32,g}_{tx};"
               "G^{f32,g}_{tx}=if_then_else(0<tx<=1,tx*2.5,-1);];",
               NULL);
  int32_t A[3] = {INT32_MAX, -3, 1 << 30};
  float F[3] = {300.5f, -1e9f, NAN};
  memcpy(buf(t, "A")->data, A, sizeof A);
  set_f32(t, "F", F, 3);
  assert_true(interp_run(t->ip));
  const int32_t *w = buf(t, "W")->data;
  assert_int_equal(w[0], -1); /* 2^32 - 2 + 1 wraps */
  assert_int_equal(w[1], -5);
  assert_int_equal(w[2], INT32_MIN + 1);
  const int8_t *s = buf(t, "S")->data;
  assert_int_equal(s[0], 127);
  assert_int_equal(s[1], -128);
  assert_int_equal(s[2], 0);
  float g[3] = {-1, 2.5f, -1}; /* tx*2.5: the index converted to f32 */
  expect_f32(t, "G", g, 3);
  t_free(t);
}

/* A three-link chain: 0<tx<3<tx*2 holds only for tx = 2. */
static void test_comparison_chain(void **state) {
  (void)state;
  T *t = t_new("%out C : f32[5]\nB^{5}_{tx=0}[C^{f32,g}_{tx}=if_then_else(0<tx<3<tx*2,1,0);];", NULL);
  assert_true(interp_run(t->ip));
  float want[5] = {0, 0, 1, 0, 0};
  expect_f32(t, "C", want, 5);
  t_free(t);
}

/* max/min: NaN loses, -0 < +0 */
static void test_max_min_ieee(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%in G : f32[3]\n%out X : f32[3]\n%out N : f32[3]\n"
               "B^{3}_{tx=0}[X^{f32,g}_{tx}=max(A^{f32,g}_{tx},G^{f32,g}_{tx});N^{f32,g}_{tx}=min(A^{f32,g}_{tx},G^{f32,g}_{tx});];",
               NULL);
  float A[3] = {NAN, -0.0f, 1}, B[3] = {2, 0.0f, NAN};
  set_f32(t, "A", A, 3);
  set_f32(t, "G", B, 3);
  assert_true(interp_run(t->ip));
  float x[3] = {2, 0.0f, 1}, n[3] = {2, -0.0f, 1};
  expect_f32(t, "X", x, 3);
  expect_f32(t, "N", n, 3);
  t_free(t);
}

/* f16: every operation rounds once: (1 + 2^-11) + 2^-11 is 1 in f16 (ties to
 * even twice) but 1 + 2^-10 if the sum were rounded once at the end. */
static void test_f16_rounding(void **state) {
  (void)state;
  T *t = t_new("%in A : f16[1]\n%in G : f16[1]\n%out C : f16[1]\n%out D : f32[1]\n%out E : f16[1]\n"
               "B^{1}_{tx=0}[C^{f16,g}_{tx}=A^{f16,g}_{tx}+G^{f16,g}_{tx}+G^{f16,g}_{tx};"
               "D^{f32,g}_{tx}=A^{f16,g}_{tx}+G^{f16,g}_{tx}+G^{f16,g}_{tx};"
               "E^{f16,g}_{tx}=exp(A^{f16,g}_{tx});];",
               NULL);
  uint16_t a = leir_f32_to_f16(1.0f), b = leir_f32_to_f16(0x1p-11f);
  memcpy(buf(t, "A")->data, &a, 2);
  memcpy(buf(t, "G")->data, &b, 2);
  assert_true(interp_run(t->ip));
  assert_int_equal(*(uint16_t *)buf(t, "C")->data, 0x3c00); /* 1.0 */
  float d[1] = {1.0f}; /* f16 + f16 is an f16 node even in an f32 statement */
  expect_f32(t, "D", d, 1);
  assert_int_equal(*(uint16_t *)buf(t, "E")->data, leir_f32_to_f16(leir_expf(1.0f)));
  t_free(t);
}

static void test_bf16_rounding(void **state) {
  (void)state;
  T *t = t_new("%in A : bf16[1]\n%in G : bf16[1]\n%out C : bf16[1]\n%out M : bf16[1]\n"
               "B^{1}_{tx=0}[C^{bf16,g}_{tx}=A^{bf16,g}_{tx}+G^{bf16,g}_{tx}+G^{bf16,g}_{tx};"
               "M^{bf16,g}_{tx}=A^{bf16,g}_{tx}*3.0;];",
               NULL);
  uint16_t a = leir_f32_to_bf16(1.0f), b = leir_f32_to_bf16(0x1p-8f);
  memcpy(buf(t, "A")->data, &a, 2);
  memcpy(buf(t, "G")->data, &b, 2);
  assert_true(interp_run(t->ip));
  assert_int_equal(*(uint16_t *)buf(t, "C")->data, 0x3f80); /* 1.0: each sum ties to even */
  assert_int_equal(*(uint16_t *)buf(t, "M")->data, leir_f32_to_bf16(3.0f));
  t_free(t);
}

/* ------------------------------------------------------------ errors */

static void test_out_of_bounds(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[4]\n%in K : i64[2]\n%out C : f32[2]\n"
               "B^{2}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{K^{i64,g}_{tx}};];",
               NULL);
  int64_t K[2] = {3, 4};
  set_i64(t, "K", K, 2);
  assert_false(interp_run(t->ip));
  assert_string_equal(t_diag(t),
                      "t.leir:4:14: error: out-of-bounds read of A[4]: shape is [4] (at tx=1)\n"
                      "t.leir:4:29: note: dimension 1 of this reference is out of range\n");
  t_free(t);
}

/* A guarded read is not performed when its branch is not taken. */
static void test_lazy_guard(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[3]\n%out C : f32[5]\n"
               "B^{5}_{tx=0}[C^{f32,g}_{tx}=if_then_else(1<=tx<4,A^{f32,g}_{tx-1},0);];",
               NULL);
  float A[3] = {1, 2, 3};
  set_f32(t, "A", A, 3);
  assert_true(interp_run(t->ip));
  float want[5] = {0, 1, 2, 3, 0};
  expect_f32(t, "C", want, 5);
  t_free(t);
}

static void test_max_steps(void **state) {
  (void)state;
  InterpOptions o = {false, 100};
  T *t = t_new("%in A : f32[1000]\n%out C : f32[]\nL^{1000}_{a=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{a};];", &o);
  assert_false(interp_run(t->ip));
  assert_string_equal(t_diag(t), "t.leir:3:16: error: the program did not finish within 100 statement "
                                 "executions (--max-steps)\n");
  t_free(t);
}

static void test_poison(void **state) {
  (void)state;
  InterpOptions o = {true, 0};
  T *t = t_new("%in A : f32[4]\n%out C : f32[4]\nB^{4}_{tx=0}[C^{f32,g}_{tx%2}=A^{f32,g}_{tx};];", &o);
  assert_true(interp_run(t->ip));
  const uint32_t *c = buf(t, "C")->data;
  assert_int_equal(c[2], 0x7FA5A5A5u);
  assert_int_equal(c[3], 0x7FA5A5A5u);
  assert_string_equal(t_diag(t), "t.leir:2:6: warning: 2 of the 4 elements of output 'C' were never written\n");
  t_free(t);
}

/* ------------------------------------------------------------ data */

static void test_npy_roundtrip(void **state) {
  (void)state;
  char dir[] = "/tmp/interp_test.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char in[64], out[64];
  snprintf(in, sizeof in, "%s/A.npy", dir);
  snprintf(out, sizeof out, "%s/C.npy", dir);
  float A[6] = {1.5f, -2, 3, 0.25f, 5, -6};
  int64_t shape[2] = {2, 3};
  assert_int_equal(npy_write(in, "f4", 2, shape, A, NULL, 0), 0);
  T *t = t_new("%in A : f32[2,3]\n%out C : f32[3,2]\n"
               "B^{2}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{a,tx}=A^{f32,g}_{tx,a}*2;];",
               NULL);
  assert_true(interp_load_npy(t->ip, buf(t, "A"), in));
  assert_true(interp_run(t->ip));
  assert_true(interp_write_outputs(t->ip, dir));
  NpyArray r;
  assert_int_equal(npy_read(out, &r, NULL, 0), 0);
  assert_string_equal(r.descr, "f4");
  assert_int_equal(r.ndim, 2);
  assert_int_equal(r.shape[0], 3);
  assert_int_equal(r.shape[1], 2);
  float want[6] = {3, 0.5f, -4, 10, 6, -12};
  assert_memory_equal(r.data, want, sizeof want);
  npy_free(&r);
  /* a file of another dtype or shape is refused with both named */
  double D[6] = {0};
  assert_int_equal(npy_write(in, "f8", 2, shape, D, NULL, 0), 0);
  assert_false(interp_load_npy(t->ip, buf(t, "A"), in));
  int64_t shape2[1] = {6};
  assert_int_equal(npy_write(in, "f4", 1, shape2, A, NULL, 0), 0);
  assert_false(interp_load_npy(t->ip, buf(t, "A"), in));
  char want_diag[512];
  snprintf(want_diag, sizeof want_diag,
           "%s: error: dtype 'f8' does not match input 'A', which is f32 (expected 'f4')\n"
           "%s: error: shape [6] does not match input 'A', which is declared f32[2,3]\n",
           in, in);
  assert_string_equal(t_diag(t), want_diag);
  t_free(t);
  unlink(in);
  unlink(out);
  rmdir(dir);
}

/* Random inputs: deterministic, scaled by 10, index tensors in range. */
static void test_random_inputs(void **state) {
  (void)state;
  T *t = t_new("%in A : f32[4,10]\n%in K : i64[4]\n%in N : i32[4]\n%out C : f32[4]\n"
               "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx,K^{i64,g}_{tx}}+N^{i32,g}_{tx};];",
               NULL);
  interp_random_inputs(t->ip, 7, NULL);
  const int64_t *k = buf(t, "K")->data;
  const int32_t *n = buf(t, "N")->data;
  for (int i = 0; i < 4; i++) {
    assert_true(k[i] >= 0 && k[i] < 10);
    assert_true(n[i] >= -8 && n[i] <= 7);
  }
  const float *a = buf(t, "A")->data;
  float first = a[0];
  double mx = 0;
  for (int i = 0; i < 40; i++) mx = fmax(mx, fabs(a[i]));
  assert_true(mx >= 10); /* the x10 rule applied */
  interp_random_inputs(t->ip, 7, NULL);
  assert_int_equal(bits_f32(a[0]), bits_f32(first));
  interp_random_inputs(t->ip, 8, NULL);
  assert_int_not_equal(bits_f32(a[0]), bits_f32(first));
  assert_true(interp_run(t->ip));
  t_free(t);
}

/* ------------------------------------------------------------ check hook */

/* A context whose diagnostics go to *diag (no carets), and its end. */
static void ctx_to_memory(LeirCtx *ctx, char **diag, size_t *len) {
  leir_ctx_init(ctx);
  ctx->diag_out = open_memstream(diag, len);
  ctx->quiet_caret = true;
}

/* fclose stores the final buffer in *diag, so *diag is read after it. */
static void ctx_free_memory(LeirCtx *ctx, char **diag) {
  fclose(ctx->diag_out);
  free(*diag);
  leir_ctx_free(ctx);
}

static IrProgram *parse(LeirCtx *ctx, const char *text) {
  leir_ctx_set_source(ctx, "t.leir", text, strlen(text));
  IrProgram *p = ps_parse(ctx);
  assert_non_null(p);
  assert_true(ir_sema(ctx, p, NULL));
  return p;
}

static void test_check_step(void **state) {
  (void)state;
  LeirCtx ctx;
  char *diag = NULL;
  size_t len = 0;
  ctx_to_memory(&ctx, &diag, &len);
  const char *hdr = "%in A : f32[4,8]\n%out D : f32[4]\n";
  char a[512], b[512], c[512];
  snprintf(a, sizeof a, "%sB^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];", hdr);
  /* split the reduction loop: a different summation order */
  snprintf(b, sizeof b,
           "%sB^{4}_{tx=0}L^{2}_{c=0}L^{4}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a*2+c};];", hdr);
  snprintf(c, sizeof c, "%sB^{4}_{tx=0}L^{8}_{d=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,d};];", hdr);
  IrProgram *pa = parse(&ctx, a), *pb = parse(&ctx, b), *pc = parse(&ctx, c);
  assert_int_equal(interp_check_step(&ctx, pa, pc, 'E', 2, "rename", NULL), 0);
  assert_int_equal(interp_check_step(&ctx, pa, pb, 'T', 2, "split", NULL), 0);
  assert_int_equal(interp_check_step(&ctx, pa, pb, 'E', 2, "split", NULL), 1);
  fflush(ctx.diag_out);
  assert_non_null(strstr(diag, "t.leir: error: step 'split' (class E) changed the result: output 'D' at ["));
  assert_non_null(strstr(diag, "ulp apart)\n"));
  /* given inputs: all ones sum exactly in any order, so the split is exact */
  char dir[] = "/tmp/interp_check.XXXXXX", path[64];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/A.npy", dir);
  float ones[36];
  for (int i = 0; i < 36; i++) ones[i] = 1;
  int64_t shape[2] = {4, 8};
  assert_int_equal(npy_write(path, "f4", 2, shape, ones, NULL, 0), 0);
  const char *names[1] = {"A"}, *paths[1] = {path};
  InterpCheckInputs in = {1, names, paths, NULL};
  assert_int_equal(interp_check_step_inputs(&ctx, pa, pb, 'E', 2, "split", NULL, &in), 0);
  shape[1] = 9; /* a file that does not fit: the check cannot be made */
  assert_int_equal(npy_write(path, "f4", 2, shape, ones, NULL, 0), 0);
  assert_int_equal(interp_check_step_inputs(&ctx, pa, pb, 'E', 1, "split", NULL, &in), 2);
  unlink(path);
  rmdir(dir);
  ctx_free_memory(&ctx, &diag);
}

/* interp_compare_ran_with: another engine for the second program (here the
 * interpreter behind a counting runner) gives interp_compare_ran's verdict,
 * place and values; a runner that fails is reported as the second program
 * failing. */
typedef struct Runner {
  int calls;
  bool fail;
} Runner;

static bool counting_runner(void *arg, InterpProg *ip) {
  Runner *r = arg;
  r->calls++;
  return !r->fail && interp_run(ip);
}

static void test_compare_ran_with(void **state) {
  (void)state;
  LeirCtx ctx;
  char *diag = NULL;
  size_t len = 0;
  ctx_to_memory(&ctx, &diag, &len);
  const char *hdr = "%in A : f32[4,8]\n%out D : f32[4]\n";
  char a[512], b[512];
  snprintf(a, sizeof a, "%sB^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];", hdr);
  snprintf(b, sizeof b,
           "%sB^{4}_{tx=0}L^{2}_{c=0}L^{4}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a*2+c};];", hdr);
  IrProgram *pa = parse(&ctx, a), *pb = parse(&ctx, b);
  InterpOptions io = {false, 0};
  InterpProg *ia = interp_new(&ctx, pa, &io), *ib = interp_new(&ctx, pb, &io), *ic = interp_new(&ctx, pb, &io);
  assert_non_null(ia);
  assert_non_null(ib);
  assert_non_null(ic);
  interp_random_inputs(ia, 3, NULL);
  assert_true(interp_run(ia));
  for (int tol = 0; tol < 2; tol++) {
    CmpTolerance t = tol ? CMP_DEFAULT : CMP_EXACT;
    InterpDiff d1, d2;
    Runner r = {0, false};
    assert_int_equal(interp_compare_ran(ia, ib, 3, t, &d1), 0);
    assert_int_equal(interp_compare_ran_with(ia, ic, 3, t, counting_runner, &r, &d2), 0);
    assert_int_equal(r.calls, 1);
    assert_int_equal(d1.verdict, d2.verdict);
    assert_int_equal(d1.have, d2.have);
    assert_int_equal(d1.index, d2.index);
    assert_int_equal(d1.ulp, d2.ulp);
    assert_string_equal(d1.a_text, d2.a_text);
    assert_string_equal(d1.b_text, d2.b_text);
    if (!tol) assert_int_equal(d1.verdict, CMP_DIFFER);
  }
  Runner bad = {0, true};
  InterpDiff d3;
  assert_int_equal(interp_compare_ran_with(ia, ic, 3, CMP_EXACT, counting_runner, &bad, &d3), -1);
  assert_int_equal(d3.failed, 2);
  interp_free(ia);
  interp_free(ib);
  interp_free(ic);
  ctx_free_memory(&ctx, &diag);
}

static void test_signature(void **state) {
  (void)state;
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  char *diag = NULL;
  size_t len = 0;
  ctx.diag_out = open_memstream(&diag, &len);
  IrProgram *pa = parse(&ctx, "%in A : f32[4]\n%in G : f32[4]\n%out D : f32[4]\n"
                              "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}+G^{f32,g}_{tx};];");
  IrProgram *pb = parse(&ctx, "%in A : f32[5]\n%out D : f32[4]\n%out E : f32[4]\n"
                              "B^{4}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx};E^{f32,g}_{tx}=A^{f32,g}_{tx};];");
  assert_false(interp_same_signature(&ctx, pa, pb, "a.leir", "b.leir"));
  fflush(ctx.diag_out);
  assert_string_equal(diag, "t.leir: error: input 'A' is f32[4] in a.leir but f32[5] in b.leir\n"
                            "t.leir: error: 'G' is an input of a.leir (f32[4]) but not an argument of b.leir\n"
                            "t.leir: error: 'E' is an output of b.leir (f32[4]) but not an argument of a.leir\n");
  ctx_free_memory(&ctx, &diag);
}

/* ir_dtype_convert_monotone (the passes' rule for which max/min reductions
 * may be split or reordered) against the interpreter's conversions: for
 * every pair of dtypes, sampled values of `from` in ascending order keep
 * their order after op_convert exactly when the rule says so (the samples
 * hold a counterexample for every pair it refuses). */
static void test_convert_monotone(void **state) {
  (void)state;
  static const double xs[] = {-1e30, -0x1p63, -0x1p31 - 5, -70000, -300, -129, -128, -4, -1, -0.5, 0, 0.5, 1,
                              2,     127,     128,          255,    256,  300,  65535, 65536, 0x1p31, 0x1p32 - 1,
                              0x1p32 + 3, 0x1p63, 1e30};
  const size_t nx = sizeof xs / sizeof xs[0];
  for (int f = 0; f < DT__COUNT; f++)
    for (int t = 0; t < DT__COUNT; t++) {
      bool kept = true;
      double prev_in = -INFINITY, prev_out = -INFINITY;
      for (size_t i = 0; i < nx; i++) {
        IVal v = op_const(xs[i], (IrDType)f);
        if (f == DT_BOOL) v.i = xs[i] > 0; /* 0 and 1 in order, not x != 0 */
        double in = op_convert(v, (IrDType)f, DT_F64).d;
        double out = op_convert(op_convert(v, (IrDType)f, (IrDType)t), (IrDType)t, DT_F64).d;
        assert_true(in >= prev_in); /* the samples ascend in `from` */
        if (in > prev_in && out < prev_out) kept = false;
        prev_in = in;
        prev_out = out;
      }
      if (kept != ir_dtype_convert_monotone((IrDType)f, (IrDType)t))
        fail_msg("%s -> %s: the rule says %d", ir_dtype_name((IrDType)f), ir_dtype_name((IrDType)t), !kept);
    }
}

/* --fp-contract=on: a class E step that changes what fuses (here an inlined
 * T = X*Y into T + Z) is exact without fusion and class T with it
 * (interp_fused_step_check); a step that is wrong without fusion stays a
 * class E failure, and a fused difference beyond the class T tolerance is
 * reported as class T. */
static void test_check_step_fused(void **state) {
  (void)state;
  LeirCtx ctx;
  char *diag = NULL;
  size_t len = 0;
  ctx_to_memory(&ctx, &diag, &len);
  const char *hdr = "%in X : f32[64]\n%in Y : f32[64]\n%in Z : f32[64]\n%out D : f32[64]\n";
  char a[512], b[512], w[512], c[512], d[512];
  snprintf(a, sizeof a,
           "%sL^{64}_{i=0}[T^{f32,g}_{i}=X^{f32,g}_{i}*Y^{f32,g}_{i};];"
           "L^{64}_{i=0}[D^{f32,g}_{i}=T^{f32,g}_{i}+Z^{f32,g}_{i};];", hdr);
  snprintf(b, sizeof b, "%sL^{64}_{i=0}[D^{f32,g}_{i}=X^{f32,g}_{i}*Y^{f32,g}_{i}+Z^{f32,g}_{i};];", hdr);
  snprintf(w, sizeof w, "%sL^{64}_{i=0}[D^{f32,g}_{i}=X^{f32,g}_{i}*Y^{f32,g}_{i}-Z^{f32,g}_{i};];", hdr);
  /* fused, X*X-X*X is the rounding error of X*X, scaled far beyond 1e-6 */
  snprintf(c, sizeof c,
           "%sL^{64}_{i=0}[T^{f32,g}_{i}=X^{f32,g}_{i}*X^{f32,g}_{i};];"
           "L^{64}_{i=0}[D^{f32,g}_{i}=(T^{f32,g}_{i}-T^{f32,g}_{i})*10000000000.0+Y^{f32,g}_{i}+Z^{f32,g}_{i};];",
           hdr);
  snprintf(d, sizeof d,
           "%sL^{64}_{i=0}[D^{f32,g}_{i}=(X^{f32,g}_{i}*X^{f32,g}_{i}-X^{f32,g}_{i}*X^{f32,g}_{i})*10000000000.0"
           "+Y^{f32,g}_{i}+Z^{f32,g}_{i};];", hdr);
  IrProgram *pa = parse(&ctx, a), *pb = parse(&ctx, b), *pw = parse(&ctx, w), *pc = parse(&ctx, c),
            *pd = parse(&ctx, d);
  /* unfused: the inlining and the cancellation are exact, the sign change is not */
  assert_int_equal(interp_check_step(&ctx, pa, pb, 'E', 2, "inline", NULL), 0);
  assert_int_equal(interp_check_step(&ctx, pc, pd, 'E', 2, "cancel", NULL), 0);
  assert_int_equal(interp_check_step(&ctx, pa, pw, 'E', 2, "wrong", NULL), 1);
  /* fused: the inlined X*Y+Z is one fma, so the bits differ (class T) */
  ctx.fp_contract = true;
  InterpCompareOpts co = {2, 0, CMP_EXACT, {false, 0}, 0, NULL, NULL, NULL};
  InterpProg *ia = interp_new(&ctx, pa, &co.run), *ib = interp_new(&ctx, pb, &co.run);
  InterpDiff diff;
  assert_int_equal(interp_compare_progs(ia, ib, &co, &diff), 0);
  assert_int_equal(diff.verdict, CMP_DIFFER);
  interp_free(ia);
  interp_free(ib);
  assert_int_equal(interp_check_step(&ctx, pa, pb, 'E', 2, "inline", NULL), 0);
  assert_true(ctx.fp_contract);
  assert_int_equal(interp_check_step(&ctx, pa, pw, 'E', 2, "wrong", NULL), 1);
  assert_int_equal(interp_check_step(&ctx, pc, pd, 'E', 2, "cancel", NULL), 1);
  assert_true(ctx.fp_contract);
  fflush(ctx.diag_out);
  assert_non_null(strstr(diag, "t.leir: error: step 'wrong' (class E) changed the result: output 'D' at [0]"));
  assert_non_null(strstr(diag, "t.leir: error: step 'cancel' (class T) changed the result: output 'D' at ["));
  assert_null(strstr(diag, "'inline'"));
  ctx_free_memory(&ctx, &diag);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_init_no_reduction_index),
    cmocka_unit_test(test_init_reinit_on_repeat),
    cmocka_unit_test(test_init_reduction_outermost),
    cmocka_unit_test(test_init_accumulate_onto_earlier),
    cmocka_unit_test(test_init_identities),
    cmocka_unit_test(test_tree_order_sum),
    cmocka_unit_test(test_tree_partials_and_prior),
    cmocka_unit_test(test_tree_max_nan),
    cmocka_unit_test(test_tree_other_shape_sequential),
    cmocka_unit_test(test_floor_int),
    cmocka_unit_test(test_floor_float),
    cmocka_unit_test(test_int_semantics),
    cmocka_unit_test(test_comparison_chain),
    cmocka_unit_test(test_max_min_ieee),
    cmocka_unit_test(test_f16_rounding),
    cmocka_unit_test(test_bf16_rounding),
    cmocka_unit_test(test_out_of_bounds),
    cmocka_unit_test(test_lazy_guard),
    cmocka_unit_test(test_max_steps),
    cmocka_unit_test(test_poison),
    cmocka_unit_test(test_npy_roundtrip),
    cmocka_unit_test(test_random_inputs),
    cmocka_unit_test(test_check_step),
    cmocka_unit_test(test_check_step_fused),
    cmocka_unit_test(test_compare_ran_with),
    cmocka_unit_test(test_signature),
    cmocka_unit_test(test_convert_monotone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
