/* counts_test.c -- the saturating counts of ir/ir.h: ir_mul_sat_u64,
 * ir_add_sat_u64 and ir_mul_sat_i64 at their saturation edges, and the
 * statement executions of a nest and of a program (ir_nest_execs,
 * ir_program_execs), which --max-steps budgets, --tune's interpreter
 * bound, the incremental runs and the host JIT's cg_nest_work count with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "codegen/cg.h"
#include "ir/ir.h"
#include "testsuite/unit/unit_fx.h"

static void test_mul_sat_u64(void **state) {
  (void)state;
  assert_true(ir_mul_sat_u64(0, 0) == 0);
  assert_true(ir_mul_sat_u64(UINT64_MAX, 0) == 0);
  assert_true(ir_mul_sat_u64(0, UINT64_MAX) == 0);
  assert_true(ir_mul_sat_u64(UINT64_MAX, 1) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(1, UINT64_MAX) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(6, 7) == 42);
  /* 2^32 * 2^32 = 2^64: one past */
  assert_true(ir_mul_sat_u64((uint64_t)1 << 32, (uint64_t)1 << 32) == UINT64_MAX);
  /* (2^32 - 1) * (2^32 + 1) = 2^64 - 1: exactly the largest, not saturated */
  assert_true(ir_mul_sat_u64(0xFFFFFFFFu, 0x100000001u) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFE00000001u);
  /* UINT64_MAX = 3 * 5 * 17 * 257 * 641 * 65537 * 6700417 */
  assert_true(ir_mul_sat_u64(UINT64_MAX / 3, 3) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(UINT64_MAX / 3 + 1, 3) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(UINT64_MAX / 2, 2) == UINT64_MAX - 1);
  assert_true(ir_mul_sat_u64(UINT64_MAX / 2 + 1, 2) == UINT64_MAX);
  assert_true(ir_mul_sat_u64(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
}

static void test_add_sat_u64(void **state) {
  (void)state;
  assert_true(ir_add_sat_u64(0, 0) == 0);
  assert_true(ir_add_sat_u64(UINT64_MAX - 1, 1) == UINT64_MAX);
  assert_true(ir_add_sat_u64(UINT64_MAX, 0) == UINT64_MAX);
  assert_true(ir_add_sat_u64(0, UINT64_MAX) == UINT64_MAX);
  assert_true(ir_add_sat_u64(UINT64_MAX, 1) == UINT64_MAX);
  assert_true(ir_add_sat_u64(1, UINT64_MAX) == UINT64_MAX);
  assert_true(ir_add_sat_u64((uint64_t)1 << 63, (uint64_t)1 << 63) == UINT64_MAX);
  assert_true(ir_add_sat_u64(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
}

static void test_mul_sat_i64(void **state) {
  (void)state;
  assert_true(ir_mul_sat_i64(0, 0) == 0);
  assert_true(ir_mul_sat_i64(INT64_MAX, 0) == 0);
  assert_true(ir_mul_sat_i64(INT64_MAX, 1) == INT64_MAX);
  assert_true(ir_mul_sat_i64(1, INT64_MAX) == INT64_MAX);
  /* INT64_MAX = 7^2 * 73 * 127 * 337 * 92737 * 649657 */
  assert_true(ir_mul_sat_i64(INT64_MAX / 7, 7) == INT64_MAX);
  assert_true(ir_mul_sat_i64(INT64_MAX / 7 + 1, 7) == INT64_MAX);
  assert_true(ir_mul_sat_i64(INT64_MAX / 2, 2) == INT64_MAX - 1);
  assert_true(ir_mul_sat_i64(INT64_MAX / 2 + 1, 2) == INT64_MAX);
  /* 2^32 * 2^31 = 2^63: one past INT64_MAX (the u64 form would not saturate) */
  assert_true(ir_mul_sat_i64((int64_t)1 << 32, (int64_t)1 << 31) == INT64_MAX);
  assert_true(ir_mul_sat_u64((uint64_t)1 << 32, (uint64_t)1 << 31) == (uint64_t)1 << 63);
  assert_true(ir_mul_sat_i64(INT64_MAX, INT64_MAX) == INT64_MAX);
  /* b <= 0: the plain product (exec_inline.c's rule) */
  assert_true(ir_mul_sat_i64(3, -2) == -6);
}

/* Two nests: 4*3 = 12 executions of the first's statement, then 2 * (5 + 5*2)
 * in the second (a statement in loop a, a nest of 2 under it). */
static const char *const prog =
    "%in  A : f32[4,3]\n%out D : f32[4]\n%out E : f32[2,5]\n%out F : f32[2,5,2]\n"
    "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];\n"
    "B^{2}_{tx=0}L^{5}_{a=0}[E^{f32,g}_{tx,a}=1;L^{2}_{c=0}[F^{f32,g}_{tx,a,c}=2;];];\n";

static void test_execs(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, prog);
  assert_true(ir_nest_execs(p->nests[0], 1) == 12);
  assert_true(ir_nest_execs(p->nests[1], 1) == 30);
  assert_true(ir_nest_execs(p->nests[1], 3) == 90);
  assert_true(ir_program_execs(p) == 42);
  assert_true(cg_nest_work(p->nests[1]) == 30);
  /* an extent below 1 counts 0 */
  p->nests[0]->loops[1]->extent = 0;
  assert_true(ir_nest_execs(p->nests[0], 1) == 0);
  p->nests[0]->loops[1]->extent = -3;
  assert_true(ir_nest_execs(p->nests[0], 1) == 0);
  assert_true(ir_program_execs(p) == 30);
}

/* Past 2^64 the counts stop at UINT64_MAX (and cg_nest_work at INT64_MAX),
 * whether a product or a sum overflows. */
static void test_execs_saturate(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, prog);
  /* nest 1: 2 * 2^62 * (1 + 2) = 3 * 2^63 */
  p->nests[1]->loops[1]->extent = (int64_t)1 << 62;
  assert_true(ir_nest_execs(p->nests[1], 1) == UINT64_MAX);
  assert_true(cg_nest_work(p->nests[1]) == INT64_MAX);
  assert_true(ir_program_execs(p) == UINT64_MAX);
  /* nest 1: 2 * 2^61 * 3 = 3 * 2^62, under 2^64; with nest 0's 12 still under */
  p->nests[1]->loops[1]->extent = (int64_t)1 << 61;
  assert_true(ir_nest_execs(p->nests[1], 1) == (uint64_t)3 << 62);
  assert_true(cg_nest_work(p->nests[1]) == INT64_MAX);
  assert_true(ir_program_execs(p) == ((uint64_t)3 << 62) + 12);
  /* the sum of the nests overflows: nest 0 = 4 * 2^62 = 2^64 (saturates in
     the product) */
  p->nests[0]->loops[1]->extent = (int64_t)1 << 62;
  assert_true(ir_nest_execs(p->nests[0], 1) == UINT64_MAX);
  assert_true(ir_program_execs(p) == UINT64_MAX);
  /* 4 * 2^61 = 2^63 and 3 * 2^62: each fits, their sum does not */
  p->nests[0]->loops[1]->extent = (int64_t)1 << 61;
  assert_true(ir_nest_execs(p->nests[0], 1) == (uint64_t)1 << 63);
  assert_true(ir_program_execs(p) == UINT64_MAX);
  /* the outer count m saturates too */
  assert_true(ir_nest_execs(p->nests[0], UINT64_MAX) == UINT64_MAX);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mul_sat_u64),
    cmocka_unit_test(test_add_sat_u64),
    cmocka_unit_test(test_mul_sat_i64),
    cmocka_unit_test_setup_teardown(test_execs, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_execs_saturate, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
