/* value_test.c -- the value analysis (ir/value.c, issue 39): every transfer
 * function of SPEC §5 one by one with exact expected results, the literal
 * typing of §5.4, the if_then_else guards, the fixed point over a program's
 * writes, the drop-in ir_expr_range; and for each arithmetic transfer
 * function a soundness sweep: concrete operands drawn from random
 * intervals, computed as the interpreter computes them (interp/ops.h for
 * integers; C doubles for f64), must lie in the abstract result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "interp/ops.h"
#include "ir/range.h"
#include "ir/value.h"
#include "testsuite/unit/unit_prog.h"

/* ------------------------------------------------------------ helpers */

static void assert_int_range(IrValue v, int64_t lo, int64_t hi) {
  assert_false(v.bottom);
  assert_true(v.iok);
  assert_int_equal(v.ilo, lo);
  assert_int_equal(v.ihi, hi);
}

static void assert_real_range(IrValue v, double lo, double hi) {
  assert_false(v.bottom);
  if (!(v.lo == lo && v.hi == hi)) fail_msg("hull [%.17g, %.17g], expected [%.17g, %.17g]", v.lo, v.hi, lo, hi);
}

/* Does v admit the concrete value x? */
static bool admits(IrValue v, double x) {
  if (v.bottom) return false;
  if (isnan(x)) return v.may_nan;
  if (isinf(x) && !v.may_inf) return false;
  if (x == 0 && !v.may_zero) return false;
  return v.lo <= x && x <= v.hi;
}

static bool admits_int(IrValue v, int64_t x) {
  if (v.bottom) return false;
  if (x == 0 && !v.may_zero) return false;
  if (v.iok) return v.ilo <= x && x <= v.ihi;
  return v.lo <= (double)x && (double)x <= v.hi;
}

/* ------------------------------------------------------------ the domain */

static void test_constructors(void **state) {
  (void)state;
  IrValue v = ir_value_int(-2, 5);
  assert_int_range(v, -2, 5);
  assert_true(v.integral && v.may_zero && !v.may_nan && !v.may_inf && !v.inexact);
  v = ir_value_int(1, 5);
  assert_false(v.may_zero);
  assert_true(ir_value_pos(v) && ir_value_nonneg(v) && !ir_value_neg(v));
  v = ir_value_const(INFINITY);
  assert_true(v.may_inf && !ir_value_finite(v) && ir_value_pos(v));
  v = ir_value_const(NAN);
  assert_true(v.may_nan && !ir_value_nonneg(v));
  v = ir_value_const(2.5);
  assert_false(v.integral);
  assert_real_range(v, 2.5, 2.5);
  assert_true(ir_value_top().may_nan && ir_value_top().may_inf);
  assert_int_range(ir_value_of_dtype(DT_I8, false), -128, 127);
  assert_int_range(ir_value_of_dtype(DT_U16, false), 0, 65535);
  assert_int_range(ir_value_of_dtype(DT_BOOL, false), 0, 1);
  v = ir_value_of_dtype(DT_F16, true);
  assert_real_range(v, -65504, 65504);
  assert_true(ir_value_finite(v));
  assert_false(ir_value_finite(ir_value_of_dtype(DT_F32, false)));
  v = ir_value_join(ir_value_int(1, 2), ir_value_int(5, 9));
  assert_int_range(v, 1, 9);
  assert_false(v.may_zero);
  assert_true(ir_value_eq(ir_value_join(ir_value_bottom(), v), v));
  assert_true(ir_value_bounded(ir_value_real(-3, 3), 3) && !ir_value_bounded(ir_value_real(-3, 4), 3));
}

/* ------------------------------------------------------------ arithmetic */

static void test_neg(void **state) {
  (void)state;
  assert_int_range(ir_value_neg_(ir_value_int(-2, 5), DT_NONE), -5, 2);
  IrValue v = ir_value_neg_(ir_value_int(INT64_MIN, 0), DT_NONE);
  assert_false(v.iok);
  assert_true(v.inexact);
  v = ir_value_neg_(ir_value_int(-128, 0), DT_I8); /* -(-128) wraps in i8 */
  assert_true(v.inexact);
  assert_int_range(v, -128, 127);
  assert_real_range(ir_value_neg_(ir_value_real(1, 2), DT_F64), -2, -1);
}

static void test_add_sub(void **state) {
  (void)state;
  assert_int_range(ir_value_add(ir_value_int(0, 7), ir_value_int(-1, 3), DT_NONE), -1, 10);
  assert_int_range(ir_value_sub(ir_value_int(0, 7), ir_value_int(-1, 3), DT_NONE), -3, 8);
  IrValue v = ir_value_add(ir_value_int(0, INT64_MAX), ir_value_int(1, 1), DT_NONE);
  assert_false(v.iok);
  assert_true(v.inexact);
  /* -1 - INT64_MIN does not overflow */
  assert_int_range(ir_value_sub(ir_value_int(-1, -1), ir_value_int(INT64_MIN, INT64_MIN), DT_NONE), INT64_MAX,
                   INT64_MAX);
  v = ir_value_add(ir_value_int(100, 120), ir_value_int(10, 10), DT_I8); /* wraps in i8 */
  assert_true(v.inexact && v.may_zero);
  assert_int_range(v, -128, 127);
  assert_int_range(ir_value_add(ir_value_int(100, 110), ir_value_int(10, 10), DT_I8), 110, 120);
  v = ir_value_add(ir_value_real(1, 2), ir_value_real(0.5, 0.5), DT_F64);
  assert_real_range(v, 1.5, 2.5);
  assert_false(v.may_zero);
  /* inf - inf is NaN */
  v = ir_value_sub(ir_value_const(INFINITY), ir_value_const(INFINITY), DT_F64);
  assert_true(v.may_nan);
  v = ir_value_add(ir_value_real(FLT_MAX, FLT_MAX), ir_value_real(FLT_MAX, FLT_MAX), DT_F32);
  assert_true(v.may_inf && v.inexact);
  assert_false(ir_value_add(ir_value_real(1, 2), ir_value_real(3, 4), DT_F64).may_inf);
}

static void test_mul_square(void **state) {
  (void)state;
  assert_int_range(ir_value_mul(ir_value_int(-2, 3), ir_value_int(4, 5), DT_NONE), -10, 15);
  IrValue v = ir_value_mul(ir_value_int(1, 3), ir_value_int(-2, -1), DT_NONE);
  assert_int_range(v, -6, -1);
  assert_false(v.may_zero);
  v = ir_value_mul(ir_value_int(INT64_MAX / 2, INT64_MAX / 2), ir_value_int(3, 3), DT_NONE);
  assert_true(v.inexact && !v.iok);
  v = ir_value_mul(ir_value_int(65536, 65536), ir_value_int(65536, 65536), DT_I32); /* wraps to 0 */
  assert_true(v.may_zero && v.inexact);
  /* A*A >= 0 (issue 39) */
  v = ir_value_square(ir_value_int(-3, 2), DT_NONE);
  assert_int_range(v, 0, 9);
  v = ir_value_square(ir_value_int(-3, -2), DT_NONE);
  assert_int_range(v, 4, 9);
  assert_false(v.may_zero);
  v = ir_value_square(ir_value_of_dtype(DT_F32, true), DT_F32);
  assert_true(ir_value_nonneg(v) && v.may_inf && v.may_zero);
  v = ir_value_square(ir_value_real(1, 2), DT_F32);
  assert_true(ir_value_pos(v) && ir_value_finite(v));
  v = ir_value_mul(ir_value_of_dtype(DT_F32, true), ir_value_of_dtype(DT_F32, true), DT_F32);
  assert_false(ir_value_nonneg(v));
  /* 0 * inf is NaN */
  assert_true(ir_value_mul(ir_value_real(0, 1), ir_value_const(INFINITY), DT_F64).may_nan);
  /* underflow: two nonzero tiny floats can multiply to 0 */
  assert_true(ir_value_mul(ir_value_real(1e-30, 1e-30), ir_value_real(1e-30, 1e-30), DT_F32).may_zero);
  assert_false(ir_value_mul(ir_value_real(1, 2), ir_value_real(3, 4), DT_F32).may_zero);
  /* square of an i32 that may wrap */
  v = ir_value_square(ir_value_of_dtype(DT_I32, false), DT_I32);
  assert_true(v.inexact && !ir_value_nonneg(v));
}

static void test_div(void **state) {
  (void)state;
  /* integer `/` truncates */
  assert_int_range(ir_value_div(ir_value_int(-7, 7), ir_value_int(2, 2), DT_I32), -3, 3);
  assert_int_range(ir_value_div(ir_value_int(1, 10), ir_value_int(-5, -1), DT_I64), -10, 0);
  IrValue v = ir_value_div(ir_value_int(1, 10), ir_value_int(0, 2), DT_I32);
  assert_int_range(v, INT32_MIN, INT32_MAX);
  assert_true(v.may_zero);
  /* float: a divisor that may be zero gives inf, 0/0 NaN */
  v = ir_value_div(ir_value_real(1, 2), ir_value_real(0, 4), DT_F32); /* 1/-0 = -inf */
  assert_true(v.may_inf && !v.may_nan && !ir_value_nonneg(v));
  v = ir_value_div(ir_value_real(0, 2), ir_value_real(0, 4), DT_F32);
  assert_true(v.may_nan);
  v = ir_value_div(ir_value_real(1, 2), ir_value_real(4, 8), DT_F64);
  assert_real_range(v, 0.125, 0.5);
  assert_false(v.may_zero || v.may_inf || v.may_nan);
  v = ir_value_div(ir_value_real(1, 2), ir_value_real(-8, -4), DT_F64);
  assert_real_range(v, -0.5, -0.125);
  /* x / y > 0 for x, y > 0 even unbounded */
  v = ir_value_div(ir_value_real(1, INFINITY), ir_value_int(1, 5), DT_F64);
  assert_true(ir_value_pos(v));
}

static void test_floordiv_mod(void **state) {
  (void)state;
  assert_int_range(ir_value_floordiv(ir_value_int(-7, 7), ir_value_int(2, 2), DT_NONE), -4, 3);
  assert_int_range(ir_value_floordiv(ir_value_int(0, 63), ir_value_int(8, 8), DT_NONE), 0, 7);
  assert_int_range(ir_value_floordiv(ir_value_int(0, 63), ir_value_int(2, 8), DT_NONE), 0, 31);
  assert_int_range(ir_value_mod(ir_value_int(0, 100), ir_value_int(8, 8), DT_NONE), 0, 7);
  assert_int_range(ir_value_mod(ir_value_int(8, 11), ir_value_int(8, 8), DT_NONE), 0, 3);
  assert_int_range(ir_value_mod(ir_value_int(-3, 2), ir_value_int(8, 8), DT_NONE), 0, 7);
  assert_int_range(ir_value_mod(ir_value_int(2, 5), ir_value_int(8, 8), DT_NONE), 2, 5);
  assert_int_range(ir_value_mod(ir_value_int(0, 100), ir_value_int(-8, -4), DT_NONE), -7, 0);
  assert_int_range(ir_value_mod(ir_value_int(0, 100), ir_value_int(2, 8), DT_NONE), 0, 7);
  /* any integral dividend: floor modulo by a positive constant in [0, b) */
  IrValue any = ir_value_real(-INFINITY, INFINITY);
  any.integral = true;
  assert_int_range(ir_value_mod(any, ir_value_int(4, 4), DT_NONE), 0, 3);
  IrValue v = ir_value_mod(ir_value_int(0, 9), ir_value_int(0, 4), DT_I32);
  assert_true(v.may_zero);
  /* float modulo: sign of the divisor only up to rounding */
  v = ir_value_mod(ir_value_real(-10, 10), ir_value_real(3, 3), DT_F32);
  assert_true(v.lo <= 0 && v.hi >= 3 && !v.may_nan);
  assert_true(ir_value_mod(ir_value_real(1, 2), ir_value_real(0, 3), DT_F32).may_nan);
  v = ir_value_floordiv(ir_value_real(-7, 7), ir_value_real(2, 2), DT_F64);
  assert_real_range(v, -4, 3);
}

static void test_pow(void **state) {
  (void)state;
  IrValue v = ir_value_pow(ir_value_real(-3, 2), ir_value_const(2), DT_F64);
  assert_real_range(v, 0, 9);
  v = ir_value_pow(ir_value_real(-3, 2), ir_value_const(3), DT_F64);
  assert_true(v.lo <= -27 && v.lo > -27.001 && v.hi >= 8 && v.hi < 8.001);
  v = ir_value_pow(ir_value_real(-3, 2), ir_value_const(4), DT_F64);
  assert_true(v.lo == 0 && v.hi >= 81 && v.hi < 81.001);
  v = ir_value_pow(ir_value_real(4, 9), ir_value_const(0.5), DT_F64);
  assert_real_range(v, 2 - 2 * 0x1p-20, 3 + 3 * 0x1p-20);
  v = ir_value_pow(ir_value_real(-1, 9), ir_value_const(0.5), DT_F64);
  assert_true(v.may_nan);
  v = ir_value_pow(ir_value_top(), ir_value_const(0), DT_F64);
  assert_real_range(v, 1, 1);
  v = ir_value_pow(ir_value_real(2, 4), ir_value_const(-1), DT_F64);
  assert_true(v.lo <= 0.25 && v.lo > 0.2499 && v.hi >= 0.5 && v.hi < 0.5001);
  v = ir_value_pow(ir_value_real(0, 4), ir_value_const(-2), DT_F64);
  assert_true(v.may_inf && ir_value_nonneg(v));
  v = ir_value_pow(ir_value_real(1, 2), ir_value_real(0.3, 0.7), DT_F64);
  assert_true(ir_value_nonneg(v));
  v = ir_value_pow(ir_value_real(-1, 2), ir_value_real(0.3, 0.7), DT_F64);
  assert_true(v.may_nan);
  v = ir_value_pow(ir_value_int(2, 3), ir_value_int(5, 5), DT_I32);
  assert_true(v.iok);
}

static void test_cmp_logic(void **state) {
  (void)state;
  assert_int_range(ir_value_cmp(OP_LT, ir_value_int(0, 3), ir_value_int(4, 9)), 1, 1);
  assert_int_range(ir_value_cmp(OP_LT, ir_value_int(4, 9), ir_value_int(0, 4)), 0, 0);
  assert_int_range(ir_value_cmp(OP_LE, ir_value_int(0, 4), ir_value_int(4, 9)), 1, 1);
  assert_int_range(ir_value_cmp(OP_GT, ir_value_int(0, 4), ir_value_int(4, 9)), 0, 0);
  assert_int_range(ir_value_cmp(OP_GE, ir_value_int(0, 4), ir_value_int(4, 9)), 0, 1);
  assert_int_range(ir_value_cmp(OP_EQ, ir_value_int(3, 3), ir_value_int(3, 3)), 1, 1);
  assert_int_range(ir_value_cmp(OP_EQ, ir_value_int(0, 2), ir_value_int(3, 5)), 0, 0);
  assert_int_range(ir_value_cmp(OP_NE, ir_value_int(0, 2), ir_value_int(3, 5)), 1, 1);
  /* NaN compares false but for != */
  IrValue n = ir_value_real(0, 1);
  n.may_nan = true;
  assert_int_range(ir_value_cmp(OP_LT, n, ir_value_int(4, 9)), 0, 1);
  assert_int_range(ir_value_cmp(OP_NE, n, ir_value_int(4, 9)), 1, 1);
  assert_int_range(ir_value_and(ir_value_int(1, 1), ir_value_int(2, 5)), 1, 1);
  assert_int_range(ir_value_and(ir_value_int(0, 0), ir_value_int(0, 5)), 0, 0);
  assert_int_range(ir_value_and(ir_value_int(0, 1), ir_value_int(2, 5)), 0, 1);
  assert_int_range(ir_value_or(ir_value_int(0, 1), ir_value_int(2, 5)), 1, 1);
  assert_int_range(ir_value_or(ir_value_int(0, 0), ir_value_int(0, 0)), 0, 0);
}

static void test_functions(void **state) {
  (void)state;
  IrValue v = ir_value_exp(ir_value_real(0, 1), DT_F64);
  assert_true(v.lo <= 1 && v.lo > 0.99 && v.hi >= 2.718281828459045 && v.hi < 2.8);
  assert_true(ir_value_pos(v) && ir_value_finite(v));
  v = ir_value_exp(ir_value_of_dtype(DT_F32, true), DT_F32); /* underflow and overflow */
  assert_true(v.may_zero && v.may_inf && ir_value_nonneg(v));
  v = ir_value_exp(ir_value_real(-10, 80), DT_F32);
  assert_true(ir_value_pos(v) && ir_value_finite(v));
  v = ir_value_exp(ir_value_real(-10, 100), DT_F32);
  assert_true(v.may_inf);
  v = ir_value_log(ir_value_real(1, 4), DT_F64);
  assert_true(ir_value_nonneg(v) && v.may_zero && !v.may_nan && !v.may_inf);
  v = ir_value_log(ir_value_real(0, 4), DT_F64);
  assert_true(v.may_inf && !v.may_nan);
  v = ir_value_log(ir_value_real(-1, 4), DT_F64);
  assert_true(v.may_nan);
  v = ir_value_log(ir_value_real(2, 4), DT_F64);
  assert_true(ir_value_pos(v));
  v = ir_value_sqrt(ir_value_real(4, 9), DT_F64);
  assert_real_range(v, 2 - 2 * 0x1p-20, 3 + 3 * 0x1p-20);
  assert_true(ir_value_sqrt(ir_value_real(-1, 9), DT_F64).may_nan);
  v = ir_value_abs(ir_value_int(-5, 3), DT_I32);
  assert_int_range(v, 0, 5);
  v = ir_value_abs(ir_value_int(-5, -3), DT_I32);
  assert_int_range(v, 3, 5);
  assert_false(v.may_zero);
  v = ir_value_abs(ir_value_real(-2, 1), DT_F64);
  assert_real_range(v, 0, 2);
  v = ir_value_erf(ir_value_top(), DT_F64);
  assert_true(v.lo >= -1.001 && v.hi <= 1.001 && !v.may_inf);
  v = ir_value_erf(ir_value_real(1, 2), DT_F64);
  assert_true(ir_value_pos(v));
}

static void test_min_max(void **state) {
  (void)state;
  /* bounded min/max (issue 39) */
  assert_int_range(ir_value_max(ir_value_int(-3, 5), ir_value_int(0, 2)), 0, 5);
  assert_int_range(ir_value_min(ir_value_int(-3, 5), ir_value_int(0, 2)), -3, 2);
  IrValue v = ir_value_max(ir_value_of_dtype(DT_F32, true), ir_value_const(0));
  assert_true(ir_value_nonneg(v));
  v = ir_value_max(ir_value_int(1, 3), ir_value_int(2, 9));
  assert_false(v.may_zero);
  /* a NaN operand is ignored: max(NaN or 5, 0) may be 0 */
  IrValue n = ir_value_int(5, 5);
  n.may_nan = true;
  v = ir_value_max(n, ir_value_int(0, 0));
  assert_true(v.lo <= 0 && !v.may_nan);
  v = ir_value_max(ir_value_const(-INFINITY), ir_value_real(1, 2));
  assert_false(v.may_inf);
}

static void test_select(void **state) {
  (void)state;
  assert_int_range(ir_value_select(ir_value_int(1, 1), ir_value_int(3, 4), ir_value_int(9, 9)), 3, 4);
  assert_int_range(ir_value_select(ir_value_int(0, 0), ir_value_int(3, 4), ir_value_int(9, 9)), 9, 9);
  assert_int_range(ir_value_select(ir_value_int(0, 1), ir_value_int(3, 4), ir_value_int(9, 9)), 3, 9);
  assert_int_range(ir_value_select(ir_value_int(0, 1), ir_value_bottom(), ir_value_int(9, 9)), 9, 9);
}

static void test_convert(void **state) {
  (void)state;
  IrValue v = ir_value_convert(ir_value_int(-1, 300), DT_U8); /* wraps */
  assert_int_range(v, 0, 255);
  assert_true(v.inexact);
  assert_int_range(ir_value_convert(ir_value_int(3, 200), DT_U8), 3, 200);
  /* float -> integer: truncation, saturating, NaN -> 0 */
  v = ir_value_convert(ir_value_real(-2.5, 1e10), DT_I32);
  assert_int_range(v, -2, INT32_MAX);
  v = ir_value_convert(ir_value_top(), DT_I8);
  assert_int_range(v, -128, 127);
  assert_true(v.may_zero);
  v = ir_value_convert(ir_value_real(0.5, 0.9), DT_I32);
  assert_int_range(v, 0, 0);
  v = ir_value_convert(ir_value_real(1e6, 1e6), DT_F16); /* overflow to inf */
  assert_true(v.may_inf && v.inexact);
  v = ir_value_convert(ir_value_int(3, 7), DT_F32);
  assert_real_range(v, 3, 7);
  assert_int_range(ir_value_convert(ir_value_real(2, 3), DT_BOOL), 1, 1);
  assert_int_range(ir_value_convert(ir_value_int(0, 0), DT_BOOL), 0, 0);
  assert_int_range(ir_value_convert(ir_value_real(-1, 3), DT_BOOL), 0, 1);
}

/* SPEC §5.4: a literal is converted to the statement type */
static void test_literals(void **state) {
  (void)state;
  IrValue v = ir_value_literal(0.1, DT_F32);
  assert_real_range(v, (double)0.1f, (double)0.1f);
  v = ir_value_literal(0.1, DT_F64);
  assert_real_range(v, 0.1, 0.1);
  v = ir_value_literal(1e39, DT_F32); /* rounds to inf */
  assert_true(v.may_inf);
  v = ir_value_literal(70000, DT_F16);
  assert_true(v.may_inf);
  v = ir_value_literal(2.7, DT_I32); /* truncated */
  assert_int_range(v, 2, 2);
  v = ir_value_literal(300, DT_I8); /* wraps */
  assert_true(v.inexact);
  v = ir_value_literal(INFINITY, DT_F32);
  assert_true(v.may_inf && ir_value_pos(v));
  assert_int_range(ir_value_literal(7, DT_NONE), 7, 7);
}

/* ------------------------------------------------------------ soundness sweeps */

static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int64_t rint_in(uint64_t *s, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
  return span ? (int64_t)((uint64_t)lo + rnd(s) % span) : (int64_t)rnd(s);
}

static int64_t small(uint64_t *s) {
  static const int64_t edge[] = {0, 1, -1, 2, -2, 7, -8, 127, -128, 255, 1000, INT32_MAX, INT32_MIN};
  if (rnd(s) % 3 == 0) return edge[rnd(s) % (sizeof edge / sizeof *edge)];
  return rint_in(s, -300, 300);
}

static void test_sound_int(void **state) {
  (void)state;
  uint64_t s = 39;
  static const IrDType types[] = {DT_I8, DT_I32, DT_I64, DT_U8};
  for (int it = 0; it < 20000; it++) {
    IrDType t = types[rnd(&s) % 4];
    int64_t a0 = small(&s), a1 = small(&s), b0 = small(&s), b1 = small(&s);
    if (a0 > a1) { int64_t x = a0; a0 = a1; a1 = x; }
    if (b0 > b1) { int64_t x = b0; b0 = b1; b1 = x; }
    IrValue A = ir_value_convert(ir_value_int(a0, a1), t), B = ir_value_convert(ir_value_int(b0, b1), t);
    if (!A.iok || !B.iok) continue;
    for (int k = 0; k < 8; k++) {
      int64_t a = rint_in(&s, A.ilo, A.ihi), b = rint_in(&s, B.ilo, B.ihi);
      int64_t r;
      IrValue v;
      int op = (int)(rnd(&s) % 8);
      switch (op) {
      case 0: r = op_wrap(t, (uint64_t)a + (uint64_t)b), v = ir_value_add(A, B, t); break;
      case 1: r = op_wrap(t, (uint64_t)a - (uint64_t)b), v = ir_value_sub(A, B, t); break;
      case 2: r = op_wrap(t, (uint64_t)a * (uint64_t)b), v = ir_value_mul(A, B, t); break;
      case 3: r = op_idiv(t, a, b), v = ir_value_div(A, B, t); break;
      case 4: r = op_ifloordiv(t, a, b), v = ir_value_floordiv(A, B, t); break;
      case 5: r = op_imod(t, a, b), v = ir_value_mod(A, B, t); break;
      case 6: r = op_wrap(t, (uint64_t)a * (uint64_t)a), v = ir_value_square(A, t); break;
      default: r = a > b ? a : b, v = ir_value_max(A, B); break;
      }
      if (!admits_int(v, r))
        fail_msg("op %d in %s: [%lld,%lld] . [%lld,%lld]: %lld . %lld = %lld outside [%lld,%lld] (iok %d)", op,
                 ir_dtype_name(t), (long long)A.ilo, (long long)A.ihi, (long long)B.ilo, (long long)B.ihi,
                 (long long)a, (long long)b, (long long)r, (long long)v.ilo, (long long)v.ihi, v.iok);
    }
  }
}

static double rdbl(uint64_t *s) {
  static const double edge[] = {0, 1, -1, 0.5, -0.5, 1e-30, -1e-30, 1e30, 700, -700, 1e300, -1e300};
  if (rnd(s) % 3 == 0) return edge[rnd(s) % (sizeof edge / sizeof *edge)];
  return ((double)(rnd(s) >> 11) * 0x1p-53 - 0.5) * pow(10, (double)(rnd(s) % 8));
}

static void test_sound_f64(void **state) {
  (void)state;
  uint64_t s = 390;
  for (int it = 0; it < 20000; it++) {
    double a0 = rdbl(&s), a1 = rdbl(&s), b0 = rdbl(&s), b1 = rdbl(&s);
    if (a0 > a1) { double x = a0; a0 = a1; a1 = x; }
    if (b0 > b1) { double x = b0; b0 = b1; b1 = x; }
    IrValue A = ir_value_real(a0, a1), B = ir_value_real(b0, b1);
    for (int k = 0; k < 8; k++) {
      double u = (double)(rnd(&s) >> 11) * 0x1p-53, w = (double)(rnd(&s) >> 11) * 0x1p-53;
      double a = k == 0 ? a0 : k == 1 ? a1 : a0 + (a1 - a0) * u, b = k == 2 ? b0 : k == 3 ? b1 : b0 + (b1 - b0) * w;
      if (a < a0 || a > a1 || isnan(a)) a = a0;
      if (b < b0 || b > b1 || isnan(b)) b = b0;
      double r;
      IrValue v;
      int op = (int)(rnd(&s) % 13);
      switch (op) {
      case 0: r = a + b, v = ir_value_add(A, B, DT_F64); break;
      case 1: r = a - b, v = ir_value_sub(A, B, DT_F64); break;
      case 2: r = a * b, v = ir_value_mul(A, B, DT_F64); break;
      case 3: r = a / b, v = ir_value_div(A, B, DT_F64); break;
      case 4: r = op_floordivd(a, b), v = ir_value_floordiv(A, B, DT_F64); break;
      case 5: r = op_fmodd(a, b), v = ir_value_mod(A, B, DT_F64); break;
      case 6: r = a * a, v = ir_value_square(A, DT_F64); break;
      case 7: r = exp(a), v = ir_value_exp(A, DT_F64); break;
      case 8: r = log(a), v = ir_value_log(A, DT_F64); break;
      case 9: r = sqrt(a), v = ir_value_sqrt(A, DT_F64); break;
      case 10: r = op_maxd(a, b), v = ir_value_max(A, B); break;
      case 11: r = fabs(a), v = ir_value_abs(A, DT_F64); break;
      default: r = a * a * a, v = ir_value_pow(A, ir_value_const(3), DT_F64); break;
      }
      if (!admits(v, r))
        fail_msg("op %d: [%g,%g] . [%g,%g]: %.17g . %.17g = %.17g outside [%.17g,%.17g] z%d n%d i%d", op, a0, a1, b0,
                 b1, a, b, r, v.lo, v.hi, v.may_zero, v.may_nan, v.may_inf);
    }
  }
}

static void test_sound_f32(void **state) {
  (void)state;
  uint64_t s = 3900;
  for (int it = 0; it < 20000; it++) {
    float a0 = (float)rdbl(&s), a1 = (float)rdbl(&s), b0 = (float)rdbl(&s), b1 = (float)rdbl(&s);
    if (a0 > a1) { float x = a0; a0 = a1; a1 = x; }
    if (b0 > b1) { float x = b0; b0 = b1; b1 = x; }
    IrValue A = ir_value_convert(ir_value_real(a0, a1), DT_F32), B = ir_value_convert(ir_value_real(b0, b1), DT_F32);
    if (isinf(a0) || isinf(a1) || isinf(b0) || isinf(b1)) continue;
    for (int k = 0; k < 8; k++) {
      float u = (float)((double)(rnd(&s) >> 11) * 0x1p-53);
      float a = k == 0 ? a0 : a0 + (a1 - a0) * u, b = k == 1 ? b1 : b0 + (b1 - b0) * u;
      if (!(a >= a0 && a <= a1)) a = a1;
      if (!(b >= b0 && b <= b1)) b = b0;
      float r;
      IrValue v;
      int op = (int)(rnd(&s) % 5);
      switch (op) {
      case 0: r = a + b, v = ir_value_add(A, B, DT_F32); break;
      case 1: r = a - b, v = ir_value_sub(A, B, DT_F32); break;
      case 2: r = a * b, v = ir_value_mul(A, B, DT_F32); break;
      case 3: r = a / b, v = ir_value_div(A, B, DT_F32); break;
      default: r = a * a, v = ir_value_square(A, DT_F32); break;
      }
      if (!admits(v, r))
        fail_msg("f32 op %d: [%g,%g] . [%g,%g]: %.9g . %.9g = %.9g outside [%.17g,%.17g] z%d n%d i%d", op, a0, a1, b0,
                 b1, a, b, r, v.lo, v.hi, v.may_zero, v.may_nan, v.may_inf);
    }
  }
}

/* ------------------------------------------------------------ expressions */

#define LOAD(pr, text)                                                                                 \
  do {                                                                                                 \
    if (!prog_load(pr, text)) fail_msg("does not load: %s", (pr)->diag);                               \
  } while (0)

static const IrExpr *rhs_of(const Prog *pr, int k) { return pr->p->stmts[k]->rhs; }

static void test_index_exprs(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[64]\n%out C : f32[8,8]\n"
            "L^{8}_{a=0}L^{8}_{b=0}[C^{f32,g}_{a,b}=A^{f32,g}_{a*8+b}+A^{f32,g}_{(a-4)//2+2}"
            "+A^{f32,g}_{a*a%7}+A^{f32,g}_{(b-a)*(b-a)};];\n");
  const IrExpr *e = rhs_of(&pr, 0);
  /* the left-associated sum's four reads */
  const IrExpr *r4 = e->u.bin.b, *r3 = e->u.bin.a->u.bin.b, *r2 = e->u.bin.a->u.bin.a->u.bin.b,
               *r1 = e->u.bin.a->u.bin.a->u.bin.a;
  assert_int_range(ir_value_index(r1->u.ref->sub[0]), 0, 63);
  assert_int_range(ir_value_index(r2->u.ref->sub[0]), 0, 3);
  assert_int_range(ir_value_index(r3->u.ref->sub[0]), 0, 6);
  assert_int_range(ir_value_index(r4->u.ref->sub[0]), 0, 49); /* a square: not -49 */
  /* ir_expr_range answers from the value analysis */
  IrRange g = ir_expr_range(r2->u.ref->sub[0]);
  assert_true(g.ok && g.lo == 0 && g.hi == 3);
  g = ir_expr_range(r4->u.ref->sub[0]);
  assert_true(g.ok && g.lo == 0 && g.hi == 49);
  /* ... and the predicates over it: in [0, extent), a // b or a % b with
     a >= 0 and b one positive constant (both at most hi) */
  assert_true(ir_expr_in_bounds(r1->u.ref->sub[0], 64));
  assert_false(ir_expr_in_bounds(r1->u.ref->sub[0], 63));
  assert_true(ir_expr_in_bounds(r4->u.ref->sub[0], 50));
  assert_false(ir_expr_in_bounds(r4->u.ref->sub[0], 49));
  assert_true(ir_expr_divmod_nonneg_by_const(r3->u.ref->sub[0], INT64_MAX)); /* a*a%7 */
  assert_true(ir_expr_divmod_nonneg_by_const(r3->u.ref->sub[0], 49));
  assert_false(ir_expr_divmod_nonneg_by_const(r3->u.ref->sub[0], 48));              /* a*a up to 49 */
  assert_false(ir_expr_divmod_nonneg_by_const(r2->u.ref->sub[0]->u.bin.a, INT64_MAX)); /* (a-4)//2: a-4 < 0 */
  assert_true(ir_value_int_exact(ir_value_int(0, 3)));
  assert_false(ir_value_int_exact(ir_value_top()));
  assert_false(ir_value_int_exact(ir_value_bottom()));
  prog_free(&pr);
  /* bounded min/max and comparisons (issue 39), typed: index values
     converted to the statement type i32 */
  LOAD(&pr, "%out C : i32[8,8]\n"
            "L^{8}_{a=0}L^{8}_{b=0}[C^{i32,g}_{a,b}=min(a,3)*max(b,2)+(a<b);];\n");
  IrValueEnv env = {.st = DT_I32};
  IrValue v = ir_value_expr(&env, rhs_of(&pr, 0));
  assert_int_range(v, 0, 22);
  assert_false(v.inexact);
  prog_free(&pr);
}

static void test_guards(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[130]\n%out C : f32[130]\n"
                             "L^{130}_{c=0}[C^{f32,g}_{c}=if_then_else(1<=c<129,A^{f32,g}_{c-1},0);];\n");
  const IrExpr *ite = rhs_of(&pr, 0);
  IrValueGuards g1 = {0}, g2 = {0};
  IrValueEnv env = {.st = DT_NONE, .guards = &g1};
  assert_true(ir_value_guard(&env, ite->u.call.args[0], true));
  assert_int_range(ir_value_expr(&env, ite->u.call.args[1]->u.ref->sub[0]), 0, 127);
  IrValueEnv no = {.st = DT_NONE, .guards = &g2};
  assert_true(ir_value_guard(&no, ite->u.call.args[0], false)); /* a chain's negation: not narrowed */
  assert_int_range(ir_value_expr(&no, ite->u.call.args[1]->u.ref->sub[0]), -1, 128);
  prog_free(&pr);
  LOAD(&pr, "%in A : f32[8]\n%out C : f32[8]\n"
                             "L^{8}_{c=0}[C^{f32,g}_{c}=if_then_else(c<3,c,if_then_else(c==7,0-c,c*2));];\n");
  IrValueEnv st = {.st = DT_F32, .inputs_finite = true};
  IrValue v = ir_value_expr(&st, rhs_of(&pr, 0));
  assert_real_range(v, -7, 12); /* c in 0..2; -7; c*2 for c in 3..6 */
  prog_free(&pr);
  /* an unreachable branch */
  LOAD(&pr, "%in A : f32[8]\n%out C : f32[8]\n"
                             "L^{8}_{c=0}[C^{f32,g}_{c}=if_then_else(c>=0,1,A^{f32,g}_{c});];\n");
  v = ir_value_expr(&st, rhs_of(&pr, 0));
  assert_real_range(v, 1, 1);
  prog_free(&pr);
}

static void test_square_expr(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[8]\n%out C : f32[8]\n"
                             "L^{8}_{c=0}[C^{f32,g}_{c}=A^{f32,g}_{c}*A^{f32,g}_{c}+(A^{f32,g}_{c}-1.5)**2;];\n");
  IrValueEnv env = {.st = DT_F32, .inputs_finite = true};
  IrValue v = ir_value_expr(&env, rhs_of(&pr, 0));
  assert_true(ir_value_nonneg(v));
  assert_true(v.may_inf); /* a finite f32 squared may overflow */
  prog_free(&pr);
}

/* The fixed point over the program: softmax-like reductions. */
static void test_program(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[4,16]\n%out C : f32[4,16]\n%tmp D : f32[4]\n%tmp E : f32[4]\n"
                             "%tmp N : i32[4]\n"
                             "L^{4}_{a=0}L^{16}_{b=0}[D^{f32,g}_{a}=max(D^{f32,g}_{a},A^{f32,g}_{a,b});];"
                             "L^{4}_{a=0}L^{16}_{b=0}[E^{f32,g}_{a}=E^{f32,g}_{a}+exp(A^{f32,g}_{a,b}-D^{f32,g}_{a});];"
                             "L^{4}_{a=0}L^{16}_{b=0}[N^{i32,g}_{a}=N^{i32,g}_{a}+1;];"
                             "L^{4}_{a=0}L^{16}_{b=0}[C^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b}-D^{f32,g}_{a})/E^{f32,g}_{a};];\n");
  IrValueProgram vp;
  assert_true(ir_value_program(pr.p, true, &vp));
  IrTensor *D = ir_find_tensor(pr.p, "D"), *E = ir_find_tensor(pr.p, "E"), *N = ir_find_tensor(pr.p, "N");
  assert_true(ir_value_finite(vp.tensors[D->id]));
  IrValue e = vp.tensors[E->id];
  assert_true(ir_value_nonneg(e) && !e.may_nan);
  /* counting: a sum of ones, widened to the type, never negative?  The
     widening goes to the end of i32 (it may wrap): only the lower bound
     holds, while it has not wrapped */
  IrValue n = vp.tensors[N->id];
  assert_true(n.iok);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constructors), cmocka_unit_test(test_neg),         cmocka_unit_test(test_add_sub),
      cmocka_unit_test(test_mul_square),   cmocka_unit_test(test_div),         cmocka_unit_test(test_floordiv_mod),
      cmocka_unit_test(test_pow),          cmocka_unit_test(test_cmp_logic),   cmocka_unit_test(test_functions),
      cmocka_unit_test(test_min_max),      cmocka_unit_test(test_select),      cmocka_unit_test(test_convert),
      cmocka_unit_test(test_literals),     cmocka_unit_test(test_sound_int),   cmocka_unit_test(test_sound_f64),
      cmocka_unit_test(test_sound_f32),    cmocka_unit_test(test_index_exprs), cmocka_unit_test(test_guards),
      cmocka_unit_test(test_square_expr),  cmocka_unit_test(test_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
