/* unroll_test.c -- the code-size bound of unrolled loops (codegen/unroll.h):
 * the sizes and the copies the code generator makes, exactly, at and
 * around the bound. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen/unroll.h"
#include "testsuite/unit/unit_prog.h"

/* copies of loop li of nest 0 of `text` (NVPTX when nvptx) */
static int64_t copies(const char *text, int li, bool nvptx) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  int64_t c = cg_unroll_copies(pr.p->nests[0], li, nvptx, false);
  prog_free(&pr);
  return c;
}

static double size(const char *text, int li, bool nvptx) {
  Prog pr;
  assert_true(prog_load(&pr, text));
  double s = cg_unroll_size(pr.p->nests[0], li, nvptx, false);
  prog_free(&pr);
  return s;
}

/* a statement: + (1), two loads and the store: 4 */
static void test_small_body(void **state) {
  (void)state;
  const char *p = "%in A : f32[64,256]\n%out C : f32[64]\n"
                  "B^{64}_{tx=0}U^{256}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];\n";
  assert_true(size(p, 2, true) == 4);
  assert_true(size(p, 1, true) == 1024);
  assert_int_equal(copies(p, 1, true), 256);
  assert_int_equal(copies(p, 0, true), 0); /* a B loop: not one to unroll */
  /* longer than CG_UNROLL_MAX_FULL: by CG_UNROLL_PARTIAL */
  const char *q = "%in A : f32[64,1000]\n%out C : f32[64]\n"
                  "B^{64}_{tx=0}U^{1000}_{a=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,a};];\n";
  assert_int_equal(copies(q, 1, true), CG_UNROLL_PARTIAL);
}

/* the statement at the bound: exp (60) * (1), two loads, the store = 64;
 * 256 * 64 = CG_UNROLL_MAX_SIZE is unrolled fully, one more load is not */
static void test_at_the_bound(void **state) {
  (void)state;
  const char *at = "%in A : f32[64,256]\n%out C : f32[64,256]\n"
                   "B^{64}_{tx=0}U^{256}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a})*A^{f32,g}_{tx,a};];\n";
  assert_true(size(at, 2, true) == 64);
  assert_int_equal(copies(at, 1, true), 256);
  const char *over = "%in A : f32[64,256]\n%out C : f32[64,256]\n"
                     "B^{64}_{tx=0}U^{256}_{a=0}[C^{f32,g}_{tx,a}=exp(A^{f32,g}_{tx,a})*A^{f32,g}_{tx,a}*A^{f32,g}_{tx,a};];\n";
  assert_true(size(over, 2, true) == 66);
  assert_int_equal(copies(over, 1, true), CG_UNROLL_PARTIAL);
}

/* Product_reduction_over_a_dimension after loop_unrolling of its outer
 * loop: 256 copies of a kept loop (1024 + 4 each) are far above the bound;
 * 15 copies (15420) are within it, 16 (16448) are not. */
static void test_kept_inner_loops(void **state) {
  (void)state;
  const char *p = "%in A : f32[16,256,256]\n%out C : f32[16,256]\n"
                  "B^{16}_{tx=0}U^{256}_{a=0}L^{256}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_true(size(p, 2, true) == 1028);
  assert_int_equal(copies(p, 1, true), CG_UNROLL_PARTIAL); /* an outer loop: LLVM keeps it */
  const char *p15 = "%in A : f32[16,15,256]\n%out C : f32[16,256]\n"
                    "B^{16}_{tx=0}U^{15}_{a=0}L^{256}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_int_equal(copies(p15, 1, true), 15);
  const char *p16 = "%in A : f32[16,16,256]\n%out C : f32[16,256]\n"
                    "B^{16}_{tx=0}U^{16}_{a=0}L^{256}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_int_equal(copies(p16, 1, true), CG_UNROLL_PARTIAL);
  /* a body too large for two copies: the loop stays */
  const char *big = "%in A : f32[16,300,256]\n%out C : f32[16,256]\n"
                    "B^{16}_{tx=0}U^{300}_{a=0}L^{8}_{b=0}L^{256}_{c=0}L^{2}_{d=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_true(size(big, 2, true) == 3 * 1024 + 4);
  assert_int_equal(copies(big, 1, true), 5);
}

/* nested unrolled loops multiply; V loops count on NVPTX only */
static void test_nested_and_vector(void **state) {
  (void)state;
  const char *p = "%in A : f32[16,64,64]\n%out C : f32[16,64]\n"
                  "B^{16}_{tx=0}U^{64}_{a=0}U^{64}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_int_equal(copies(p, 2, true), 64);          /* 64 * 4 */
  assert_int_equal(copies(p, 1, true), 64);          /* 64 * 256 = 16384: at the bound */
  const char *q = "%in A : f32[16,65,64]\n%out C : f32[16,64]\n"
                  "B^{16}_{tx=0}U^{65}_{a=0}U^{64}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*A^{f32,g}_{tx,a,c};];\n";
  assert_int_equal(copies(q, 1, true), CG_UNROLL_PARTIAL);
  const char *v = "%in A : f32[16,64]\n%out C : f32[16,64]\n"
                  "L^{16}_{i=0}V^{64}_{a=0}[C^{f32,g}_{i,a}=A^{f32,g}_{i,a}*2;];\n";
  assert_int_equal(copies(v, 1, false), 0);
  assert_int_equal(copies(v, 1, true), 64);
  assert_true(size(v, 0, false) == 1024 + 1024 + 3);
}

/* A chain of loops that is not a nest's list (a reduction region's loops):
 * the same measure as the nest's, and a region's element loop over its
 * fold loop and tree (CG_UNROLL_LOOP_WEIGHT) by CG_UNROLL_PARTIAL. */
static void test_chain(void **state) {
  (void)state;
  const char *p = "%in A : f32[16,64,65]\n%out C : f32[16,65]\n"
                  "B^{16}_{tx=0}U^{64}_{a=0}U^{65}_{c=0}[C^{f32,g}_{tx,c}=C^{f32,g}_{tx,c}*exp(A^{f32,g}_{tx,a,c});];\n";
  Prog pr;
  assert_true(prog_load(&pr, p));
  const IrNest *n = pr.p->nests[0];
  double body = cg_unroll_expr_size(n->items[0].u.stmt->rhs, false);
  assert_true(body == 64); /* * (1), exp (60), two loads, the store */
  for (int li = 0; li <= n->nloops; li++)
    for (int gpu = 0; gpu < 2; gpu++) {
      assert_true(cg_unroll_chain_size(n->loops, n->nloops, li, body, gpu) == cg_unroll_size(n, li, gpu, false));
      if (li < n->nloops)
        assert_int_equal(cg_unroll_chain_copies(n->loops, n->nloops, li, body, gpu), cg_unroll_copies(n, li, gpu, false));
    }
  assert_int_equal(cg_unroll_chain_copies(n->loops, n->nloops, 2, body, true), 65);
  assert_int_equal(cg_unroll_chain_copies(n->loops, n->nloops, 1, body, true), 3); /* 16384 / (65 * 64) */
  /* the element loop of a tree region: body = fold loop (256 * 4) + tree */
  double region = cg_unroll_chain_size(n->loops + 2, 1, 0, 4, true) + CG_UNROLL_LOOP_WEIGHT;
  assert_true(region == 65 * 4 + CG_UNROLL_LOOP_WEIGHT);
  assert_int_equal(cg_unroll_chain_copies(n->loops, 2, 1, region, true), CG_UNROLL_PARTIAL);
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_body),
      cmocka_unit_test(test_at_the_bound),
      cmocka_unit_test(test_kept_inner_loops),
      cmocka_unit_test(test_nested_and_vector),
      cmocka_unit_test(test_chain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
