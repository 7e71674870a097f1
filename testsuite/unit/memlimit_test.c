/* memlimit_test.c -- --max-memory (ir/memlimit.h, issue 11 item 3): SIZE
 * parsing, the byte count of a program's tensors, the exact error, and the
 * interpreter refusing a program over the limit before it allocates
 * anything (a program of terabytes fails at once instead of being killed);
 * and the tensors' storage (ir/buffer.h): zeroed and 64-byte aligned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "ir/buffer.h"
#include "ir/memlimit.h"
#include "testsuite/unit/unit_fx.h"

static void test_parse_size(void **state) {
  (void)state;
  uint64_t v = 7;
  assert_true(leir_parse_size("0", &v));
  assert_int_equal(v, 0);
  assert_true(leir_parse_size("1000", &v));
  assert_int_equal(v, 1000);
  assert_true(leir_parse_size("4K", &v));
  assert_int_equal(v, 4096);
  assert_true(leir_parse_size("512m", &v));
  assert_int_equal(v, (uint64_t)512 << 20);
  assert_true(leir_parse_size("3G", &v));
  assert_int_equal(v, (uint64_t)3 << 30);
  assert_true(leir_parse_size("2GiB", &v));
  assert_int_equal(v, (uint64_t)2 << 30);
  assert_true(leir_parse_size("1TB", &v));
  assert_int_equal(v, (uint64_t)1 << 40);
  assert_true(leir_parse_size("18446744073709551615", &v));
  assert_int_equal(v, UINT64_MAX);
  v = 7;
  assert_false(leir_parse_size("", &v));
  assert_false(leir_parse_size("G", &v));
  assert_false(leir_parse_size("-1", &v));
  assert_false(leir_parse_size("4x", &v));
  assert_false(leir_parse_size("4Gi", &v));
  assert_false(leir_parse_size("4 G", &v));
  assert_false(leir_parse_size("18446744073709551616", &v)); /* 2^64 */
  assert_false(leir_parse_size("16777216T", &v));            /* 2^64 */
  assert_int_equal(v, 7);
}

static void test_default(void **state) {
  (void)state;
  uint64_t d = leir_default_max_memory();
  assert_true(d > 0);
  assert_true(d <= LEIR_MAX_MEMORY_CAP);
}

static const char *const small =
    "%in  A : f32[64,32]\n%out D : f64[64]\n"
    "B^{64}_{tx=0}L^{32}_{a=0}[D^{f64,g}_{tx}=D^{f64,g}_{tx}+A^{f32,g}_{tx,a};];\n";

static void test_program_bytes(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, small);
  const IrTensor *t;
  assert_int_equal(leir_program_bytes(p, &t), 64 * 32 * 4 + 64 * 8);
  assert_string_equal(t->name, "A");
}

/* At the limit the program runs; one byte less and it is refused with the
 * exact message, at the largest tensor. */
static void test_interp_limit(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, small);
  fx->ctx.max_memory = 64 * 32 * 4 + 64 * 8;
  InterpProg *ip = interp_new(&fx->ctx, p, NULL);
  assert_non_null(ip);
  assert_true(interp_run(ip));
  interp_free(ip);
  assert_string_equal(fx_diags(fx), "");
  fx->ctx.max_memory--;
  assert_null(interp_new(&fx->ctx, p, NULL));
  assert_string_equal(fx_diags(fx),
                      "t.leir:1:6: error: the tensors of the program need 8704 bytes (8.5 KiB), more than the "
                      "memory limit of 8703 bytes (8.5 KiB) (--max-memory); the largest is 'A' (f32[64,32], "
                      "8192 bytes)\n");
}

/* Terabytes: refused at once, no allocation attempted (an attempt would
 * fail under ASan or be killed). */
static void test_huge(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, "B^{1024}_{tx=0}L^{1048576}_{a=0}L^{1048576}_{c=0}[C^{f64,g}_{a,c}=1;];\n");
  fx->ctx.max_memory = (uint64_t)1 << 30;
  assert_null(interp_new(&fx->ctx, p, NULL));
  assert_string_equal(fx_diags(fx),
                      "t.leir:1:51: error: the tensors of the program need 8796093022208 bytes (8.0 TiB), more "
                      "than the memory limit of 1073741824 bytes (1.0 GiB) (--max-memory); the largest is 'C' "
                      "(f64[1048576,1048576], 8796093022208 bytes)\n");
}

/* No limit (0): only the interpreter's own per-tensor cap applies. */
static void test_no_limit(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, small);
  assert_true(leir_check_memory(&fx->ctx, p));
  assert_string_equal(fx_diags(fx), "");
}

/* Every size gives a zeroed block at a 64-byte boundary, writable to its
 * last byte (ASan checks the bounds). */
static void test_buffer_alloc(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 7, 63, 64, 65, 4096, 131072, (size_t)3 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    size_t n = sizes[i] ? sizes[i] : 1;
    unsigned char *p = ir_buffer_alloc(sizes[i]);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    for (size_t k = 0; k < n; k++)
      assert_int_equal(p[k], 0);
    memset(p, 0xa5, n);
    ir_buffer_free(p);
  }
  ir_buffer_free(NULL);
  assert_null(ir_buffer_alloc(SIZE_MAX - 8));
}

/* The interpreter's buffers (what --run hands the host code) are aligned. */
static void test_interp_buffers_aligned(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load_ok(fx, small);
  InterpProg *ip = interp_new(&fx->ctx, p, NULL);
  assert_non_null(ip);
  for (int i = 0; i < interp_ntensors(ip); i++)
    assert_int_equal((uintptr_t)interp_buf(ip, i)->data % 64, 0);
  interp_free(ip);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_size),
    cmocka_unit_test(test_default),
    cmocka_unit_test_setup_teardown(test_program_bytes, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_interp_limit, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_huge, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_no_limit, fx_setup, fx_teardown),
    cmocka_unit_test(test_buffer_alloc),
    cmocka_unit_test_setup_teardown(test_interp_buffers_aligned, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
