/* value_query_test.c -- the value analysis' node-at-a-time queries
 * (ir/value_query.c, issue 39): ir_value_mag, ir_value_pow_range with
 * exact expected hulls and a soundness sweep against leir_pow, the
 * dispatch of ir_value_binop and ir_value_call, and exact constant folding
 * (ir_value_fold_binop, ir_value_fold_call). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "ir/mathlib.h"
#include "ir/value.h"

static void assert_hull(IrValue v, double lo, double hi) {
  assert_false(v.bottom);
  if (!(v.lo == lo && v.hi == hi)) fail_msg("hull [%.17g, %.17g], expected [%.17g, %.17g]", v.lo, v.hi, lo, hi);
}

static void test_mag(void **state) {
  (void)state;
  assert_true(ir_value_mag(ir_value_bottom()) == 0);
  assert_true(ir_value_mag(ir_value_int(-3, 2)) == 3);
  assert_true(ir_value_mag(ir_value_real(-0.5, 7.25)) == 7.25);
  assert_true(ir_value_mag(ir_value_top()) == INFINITY);
  assert_true(ir_value_mag(ir_value_const(NAN)) == INFINITY);
  assert_true(ir_value_mag(ir_value_const(-INFINITY)) == INFINITY);
}

static void test_pow_range(void **state) {
  (void)state;
  /* 21**c over c < 30: 21**29, widened by 2^-20 */
  double m = pow(21, 29);
  IrValue v = ir_value_pow_range(ir_value_const(21), ir_value_int(0, 29), DT_F64);
  assert_hull(v, 1 - 0x1p-20, m + m * 0x1p-20);
  assert_true(!v.may_zero && !v.may_nan && !v.may_inf && !v.inexact && !v.integral);
  /* a base of both signs: symmetric; zero possible */
  v = ir_value_pow_range(ir_value_int(-2, 3), ir_value_int(1, 4), DT_NONE);
  assert_hull(v, -81 - 81 * 0x1p-20, 81 + 81 * 0x1p-20);
  assert_true(v.may_zero && !v.may_nan);
  /* a base below 1 in magnitude: bounded by 1 */
  v = ir_value_pow_range(ir_value_real(0.25, 0.5), ir_value_real(0, 3.5), DT_F64);
  assert_hull(v, pow(0.25, 3.5) - pow(0.25, 3.5) * 0x1p-20, 1 + 0x1p-20);
  assert_true(!v.may_zero);
  v = ir_value_pow_range(ir_value_int(0, 2), ir_value_int(1, 3), DT_F64);
  assert_hull(v, 0, 8 + 8 * 0x1p-20);
  assert_true(v.may_zero);
  /* what it does not bound: the module's ir_value_pow, unchanged */
  IrValue cases[][2] = {
      {ir_value_int(-2, 3), ir_value_real(0.5, 1.5)}, /* negative base, real exponents: NaN */
      {ir_value_int(2, 3), ir_value_int(-2, 2)},      /* negative exponents */
      {ir_value_int(2, 3), ir_value_const(5)},        /* one exponent */
      {ir_value_top(), ir_value_int(0, 3)},           /* an infinite base */
      {ir_value_const(1e300), ir_value_int(0, 3)},    /* beyond f64 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_true(ir_value_eq(ir_value_pow_range(cases[i][0], cases[i][1], DT_F64),
                            ir_value_pow(cases[i][0], cases[i][1], DT_F64)));
  /* a float type rounds: f32 overflows to inf past its largest value */
  v = ir_value_pow_range(ir_value_const(21), ir_value_int(0, 29), DT_F32); /* 2.2e38: still finite */
  assert_true(!v.may_inf && v.hi < INFINITY && !v.inexact);
  v = ir_value_pow_range(ir_value_const(21), ir_value_int(0, 30), DT_F32); /* 4.6e39 */
  assert_true(v.may_inf && v.hi == INFINITY && v.inexact);
  /* bottom */
  assert_true(ir_value_pow_range(ir_value_bottom(), ir_value_int(0, 2), DT_F64).bottom);
}

/* Every leir_pow(x, k) over a grid of bases and integer exponents lies in
   the hull. */
static void test_pow_range_sound(void **state) {
  (void)state;
  for (int lo = -6; lo <= 6; lo++)
    for (int hi = lo; hi <= 6; hi++)
      for (int klo = 0; klo <= 9; klo++)
        for (int khi = klo + 1; khi <= 9; khi++) {
          IrValue v = ir_value_pow_range(ir_value_real(lo * 0.75, hi * 0.75), ir_value_int(klo, khi), DT_F64);
          for (int j = 0; j <= 8; j++) {
            double x = lo * 0.75 + (hi - lo) * 0.75 * j / 8;
            for (int k = klo; k <= khi; k++) {
              double p = leir_pow(x, k);
              if (!(v.lo <= p && p <= v.hi) || (p == 0 && !v.may_zero))
                fail_msg("%.17g**%d = %.17g outside [%.17g, %.17g]", x, k, p, v.lo, v.hi);
            }
          }
        }
}

static void test_dispatch(void **state) {
  (void)state;
  IrValue a = ir_value_int(-3, 4), b = ir_value_int(2, 5);
  assert_true(ir_value_eq(ir_value_binop(OP_ADD, a, b, DT_NONE), ir_value_add(a, b, DT_NONE)));
  assert_true(ir_value_eq(ir_value_binop(OP_SUB, a, b, DT_I8), ir_value_sub(a, b, DT_I8)));
  assert_true(ir_value_eq(ir_value_binop(OP_MUL, a, b, DT_F32), ir_value_mul(a, b, DT_F32)));
  assert_true(ir_value_eq(ir_value_binop(OP_DIV, a, b, DT_F64), ir_value_div(a, b, DT_F64)));
  assert_true(ir_value_eq(ir_value_binop(OP_FLOORDIV, a, b, DT_I32), ir_value_floordiv(a, b, DT_I32)));
  assert_true(ir_value_eq(ir_value_binop(OP_MOD, a, b, DT_I32), ir_value_mod(a, b, DT_I32)));
  assert_true(ir_value_eq(ir_value_binop(OP_AND, a, b, DT_NONE), ir_value_and(a, b)));
  assert_true(ir_value_eq(ir_value_binop(OP_OR, a, b, DT_NONE), ir_value_or(a, b)));
  assert_true(ir_value_eq(ir_value_binop(OP_LT, b, ir_value_int(6, 9), DT_NONE), ir_value_int(1, 1)));
  assert_true(ir_value_eq(ir_value_binop(OP_NEG, a, b, DT_NONE), ir_value_top()));
  IrValue k[3] = {ir_value_int(0, 0), ir_value_int(1, 2), ir_value_real(-1, 1)};
  assert_true(ir_value_eq(ir_value_call(F_ITE, k, 3, DT_F64), ir_value_real(-1, 1)));
  assert_true(ir_value_eq(ir_value_call(F_MAX, k, 3, DT_F64), ir_value_max(ir_value_max(k[0], k[1]), k[2])));
  assert_true(ir_value_eq(ir_value_call(F_MIN, k, 1, DT_F64), k[0]));
  assert_true(ir_value_eq(ir_value_call(F_EXP, &k[2], 1, DT_F64), ir_value_exp(k[2], DT_F64)));
  assert_true(ir_value_eq(ir_value_call(F_SQRT, &k[1], 2, DT_F64), ir_value_top()));
  assert_true(ir_value_eq(ir_value_call(F_ITE, k, 2, DT_F64), ir_value_top()));
}

static void test_fold(void **state) {
  (void)state;
  double r;
  assert_true(ir_value_fold_binop(OP_FLOORDIV, -7, 2, &r) && r == -4);
  assert_true(ir_value_fold_binop(OP_MOD, -7, 3, &r) && r == 2);
  assert_true(ir_value_fold_binop(OP_DIV, 1, 4, &r) && r == 0.25);
  assert_true(ir_value_fold_binop(OP_POW, 2, 24, &r) && r == 16777216);
  assert_true(ir_value_fold_binop(OP_POW, 2000, 4288961.00000001, &r) && r == INFINITY);
  assert_true(ir_value_fold_binop(OP_DIV, 0, 0, &r) && isnan(r));
  assert_true(ir_value_fold_binop(OP_LE, 3, 3, &r) && r == 1);
  assert_true(ir_value_fold_binop(OP_NE, 3, 3, &r) && r == 0);
  assert_false(ir_value_fold_binop(OP_AND, 1, 1, &r));
  double k[4] = {3, -1, 8, 2};
  assert_true(ir_value_fold_call(F_MAX, k, 4, &r) && r == 8);
  assert_true(ir_value_fold_call(F_MIN, k, 4, &r) && r == -1);
  assert_true(ir_value_fold_call(F_ITE, k, 3, &r) && r == -1);
  assert_true(ir_value_fold_call(F_ABS, &k[1], 1, &r) && r == 1);
  assert_true(ir_value_fold_call(F_EXP, &k[0], 1, &r) && r == leir_exp(3));
  assert_true(ir_value_fold_call(F_LOG, &k[2], 1, &r) && r == leir_log(8));
  assert_true(ir_value_fold_call(F_ERF, &k[3], 1, &r) && r == leir_erf(2));
  assert_false(ir_value_fold_call(F_SQRT, k, 2, &r));
  assert_false(ir_value_fold_call(F_ITE, k, 4, &r));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mag),      cmocka_unit_test(test_pow_range), cmocka_unit_test(test_pow_range_sound),
      cmocka_unit_test(test_dispatch), cmocka_unit_test(test_fold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
