/* value_mag_test.c -- the value analysis's magnitude relative to the inputs
 * (ir/value_mag.c, issue 39): each transfer function's classes one by one,
 * what the interval proves, the fixed point's recurrences, and the
 * passes' three questions (moderate, may be infinite, where lost). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/value.h"
#include "testsuite/unit/unit_prog.h"

#define LOAD(pr, text)                                                                                 \
  do {                                                                                                 \
    if (!prog_load(pr, text)) fail_msg("does not load: %s", (pr)->diag);                               \
  } while (0)

/* v's classes: above 0, below 0, no NaN for ordinary inputs. */
static void assert_mag(IrValue v, int hi, int lo, bool num) {
  assert_false(v.bottom);
  if (v.mag_hi != hi || v.mag_lo != lo || v.mag_num != num)
    fail_msg("classes hi %d lo %d num %d, expected %d %d %d", v.mag_hi, v.mag_lo, v.mag_num, hi, lo, num);
}

enum { C = IR_MAG_CONST, L = IR_MAG_LINEAR, F = IR_MAG_FINITE, A = IR_MAG_ANY };

static IrValue in(void) { return ir_value_input(DT_F32); }

static void test_constructors(void **state) {
  (void)state;
  assert_mag(ir_value_const(3), C, C, true);
  assert_mag(ir_value_const(10000), C, C, true);
  assert_mag(ir_value_const(-10001), C, F, true); /* a literal above 10^4: not moderate */
  assert_mag(ir_value_const(INFINITY), A, C, true);
  assert_mag(ir_value_const(-INFINITY), C, A, true);
  assert_mag(ir_value_const(NAN), C, C, false);
  assert_mag(ir_value_int(-3, 70000), F, C, true);
  assert_mag(ir_value_top(), A, A, false);
  assert_mag(ir_value_of_dtype(DT_F32, true), F, F, true); /* every finite f32: finite, no more */
  assert_mag(in(), L, L, true);
  assert_mag(ir_value_input(DT_I8), C, C, true); /* its range proves more */
  assert_mag(ir_value_input(DT_I32), L, L, true);
  /* a join is the looser of each side */
  assert_mag(ir_value_join(in(), ir_value_const(-INFINITY)), L, A, true);
  assert_mag(ir_value_join(ir_value_bottom(), in()), L, L, true);
  assert_true(ir_value_moderate(in()) && !ir_value_may_inf_ordinary(in()));
  assert_true(ir_value_moderate(ir_value_bottom()));
}

static void test_arith(void **state) {
  (void)state;
  IrValue x = in(), k = ir_value_const(3), big = ir_value_const(1e8);
  assert_mag(ir_value_add(x, x, DT_F32), L, L, true);
  assert_mag(ir_value_sub(x, k, DT_F32), L, L, true);
  assert_mag(ir_value_add(k, ir_value_const(9999), DT_F32), L, C, true); /* 10002: LINEAR, not CONST */
  assert_mag(ir_value_add(x, big, DT_F32), F, L, true);
  assert_mag(ir_value_neg_(ir_value_const(INFINITY), DT_F32), C, A, true);
  /* +inf + -inf: NaN */
  IrValue pinf = ir_value_join(x, ir_value_const(INFINITY)), minf = ir_value_join(x, ir_value_const(-INFINITY));
  assert_false(ir_value_add(pinf, minf, DT_F32).mag_num);
  assert_true(ir_value_add(pinf, pinf, DT_F32).mag_num);
  assert_false(ir_value_sub(pinf, pinf, DT_F32).mag_num);
  /* products: a CONST factor keeps the other's class */
  assert_mag(ir_value_mul(x, k, DT_F32), L, L, true);
  assert_mag(ir_value_mul(k, ir_value_const(-7), DT_F32), C, C, true); /* -21: the interval */
  assert_mag(ir_value_mul(ir_value_const(10000), ir_value_const(10000), DT_F32), L, C, true); /* constant times constant: LINEAR */
  assert_mag(ir_value_mul(x, x, DT_F32), F, F, true);
  assert_mag(ir_value_square(x, DT_F32), F, C, true);
  assert_mag(ir_value_mul(x, ir_value_erf(x, DT_F32), DT_F32), L, L, true);
  assert_false(ir_value_mul(pinf, x, DT_F32).mag_num); /* inf*0 */
}

static void test_div(void **state) {
  (void)state;
  IrValue x = in();
  assert_mag(ir_value_div(x, ir_value_const(64), DT_F32), L, L, true);
  assert_mag(ir_value_div(x, ir_value_const(1e-8), DT_F32), L, L, true); /* a nonzero constant */
  assert_mag(ir_value_div(x, x, DT_F32), A, A, false);                    /* may be 0, and 0/0 */
  assert_mag(ir_value_div(ir_value_const(1), x, DT_F32), A, A, true);
  /* bounded away from 0: 1/(1+exp(-x)) is sigmoid, in [0, 1] */
  IrValue den = ir_value_add(ir_value_const(1), ir_value_exp(ir_value_neg_(x, DT_F32), DT_F32), DT_F32);
  assert_mag(ir_value_div(ir_value_const(1), den, DT_F32), C, C, true);
  assert_mag(ir_value_div(x, den, DT_F32), L, L, true);
  /* sqrt(v+1e-05), v >= 0: >= 0.003 */
  IrValue v = ir_value_square(x, DT_F32);
  IrValue sd = ir_value_sqrt(ir_value_add(v, ir_value_const(1e-05), DT_F32), DT_F32);
  assert_mag(ir_value_div(x, sd, DT_F32), L, L, true);
  /* below 10^-4: may amplify without bound */
  assert_mag(ir_value_div(x, ir_value_real(1e-6, 1), DT_F32), A, A, true);
  assert_mag(ir_value_mod(x, ir_value_const(7), DT_F32), L, L, true); /* as a quotient (the interval allows a rounding of x) */
  assert_mag(ir_value_floordiv(x, ir_value_const(2), DT_F32), L, L, true);
}

static void test_pow(void **state) {
  (void)state;
  IrValue x = in();
  assert_mag(ir_value_pow(x, ir_value_const(0), DT_F32), C, C, true);
  assert_mag(ir_value_pow(x, ir_value_const(1), DT_F32), L, L, true);
  assert_mag(ir_value_pow(x, ir_value_const(2), DT_F32), F, C, true);
  assert_mag(ir_value_pow(x, ir_value_const(3), DT_F32), F, F, true);
  assert_mag(ir_value_pow(x, ir_value_const(9), DT_F32), A, A, true);  /* above 8: may overflow */
  assert_mag(ir_value_pow(x, ir_value_const(-1), DT_F32), A, A, true); /* 1/0 */
  assert_false(ir_value_pow(x, ir_value_const(0.5), DT_F32).mag_num);  /* a negative base: NaN */
  assert_true(ir_value_pow(ir_value_abs(x, DT_F32), ir_value_const(0.5), DT_F32).mag_num);
  assert_mag(ir_value_pow(x, x, DT_F32), A, A, false);
  assert_mag(ir_value_pow(ir_value_const(2), ir_value_const(3), DT_F32), C, C, true); /* 8: the interval */
  assert_mag(ir_value_pow_range(ir_value_const(21), ir_value_int(0, 29), DT_F64), F, C, true);
}

static void test_functions(void **state) {
  (void)state;
  IrValue x = in();
  assert_mag(ir_value_exp(x, DT_F32), F, C, true);
  assert_mag(ir_value_exp(ir_value_mul(x, x, DT_F32), DT_F32), A, C, true);
  assert_mag(ir_value_exp(ir_value_real(-50, 9), DT_F32), C, C, true); /* exp(9) = 8103 */
  assert_mag(ir_value_exp(ir_value_neg_(ir_value_abs(x, DT_F32), DT_F32), DT_F32), C, C, true);
  assert_mag(ir_value_log(x, DT_F32), C, A, false);                     /* log 0, log of < 0 */
  assert_mag(ir_value_log(ir_value_add(ir_value_abs(x, DT_F32), ir_value_const(1), DT_F32), DT_F32), C, C, true);
  assert_mag(ir_value_log(ir_value_exp(x, DT_F32), DT_F32), C, A, true); /* exp may underflow to 0 */
  assert_mag(ir_value_log(ir_value_const(INFINITY), DT_F32), A, C, true);
  assert_mag(ir_value_sqrt(x, DT_F32), L, C, false);
  assert_mag(ir_value_sqrt(ir_value_abs(x, DT_F32), DT_F32), L, C, true);
  assert_mag(ir_value_abs(ir_value_join(x, ir_value_const(-INFINITY)), DT_F32), A, C, true);
  assert_mag(ir_value_erf(ir_value_mul(x, x, DT_F32), DT_F32), C, C, true);
  assert_false(ir_value_erf(ir_value_sqrt(x, DT_F32), DT_F32).mag_num);
  /* max: the looser above, the tighter below; -inf is max's identity */
  IrValue m = ir_value_join(x, ir_value_const(-INFINITY));
  assert_mag(ir_value_max(m, x), L, L, true);
  assert_mag(ir_value_min(ir_value_join(x, ir_value_const(INFINITY)), x), L, L, true);
  assert_mag(ir_value_max(x, ir_value_exp(x, DT_F32)), F, C, true);
  assert_mag(ir_value_min(x, ir_value_exp(x, DT_F32)), L, L, true);
  /* a NaN operand is ignored: the other one alone may be the result */
  IrValue s = ir_value_sqrt(x, DT_F32);
  assert_mag(ir_value_max(s, ir_value_mul(x, x, DT_F32)), F, F, true);
  /* comparisons, logic */
  assert_mag(ir_value_cmp(OP_LT, x, ir_value_const(INFINITY)), C, C, true);
  assert_mag(ir_value_and(x, x), C, C, true);
  assert_mag(ir_value_select(ir_value_int(0, 1), x, ir_value_const(-INFINITY)), L, A, true);
  /* conversions */
  assert_mag(ir_value_convert(ir_value_const(INFINITY), DT_I32), F, C, true); /* saturates */
  assert_mag(ir_value_convert(x, DT_I32), L, L, true);
  assert_mag(ir_value_convert(ir_value_sqrt(x, DT_F32), DT_I32), L, C, true); /* NaN -> 0 */
  assert_mag(ir_value_convert(x, DT_BOOL), C, C, true);
  assert_mag(ir_value_convert(x, DT_F64), L, L, true);
  assert_mag(ir_value_convert(ir_value_input(DT_I32), DT_I8), C, C, true);
}

/* Not far below the inputs' scale (mag_scaled). */
static void test_scaled(void **state) {
  (void)state;
  IrValue x = in(), k = ir_value_const(1e-8);
  assert_true(x.mag_scaled && k.mag_scaled && ir_value_int(0, 5).mag_scaled);
  assert_false(ir_value_real(0, 1).mag_scaled);
  assert_true(ir_value_real(1e-3, 1).mag_scaled);
  assert_true(ir_value_add(x, x, DT_F32).mag_scaled);
  assert_true(ir_value_mul(x, k, DT_F32).mag_scaled); /* a constant factor: as the inputs' */
  assert_true(ir_value_div(x, ir_value_const(64), DT_F32).mag_scaled);
  assert_true(ir_value_max(x, ir_value_abs(x, DT_F32)).mag_scaled);
  assert_false(ir_value_exp(x, DT_F32).mag_scaled);                      /* exp(-10) */
  assert_true(ir_value_exp(ir_value_real(-9, 3), DT_F32).mag_scaled);    /* >= 1.2e-4 */
  assert_false(ir_value_log(ir_value_add(ir_value_abs(x, DT_F32), ir_value_const(1), DT_F32), DT_F32).mag_scaled);
  assert_false(ir_value_div(x, ir_value_mul(x, x, DT_F32), DT_F32).mag_scaled); /* by what may be bigger */
  assert_true(ir_value_convert(ir_value_exp(x, DT_F32), DT_I32).mag_scaled);   /* an integer */
  assert_false(ir_value_join(x, ir_value_exp(x, DT_F32)).mag_scaled);
  assert_false(ir_value_moderate(ir_value_exp(ir_value_real(-50, 0), DT_F32))); /* in [0, 1], yet may be tiny */
}

static IrValue tensor_value(const IrValueProgram *vp, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  assert_non_null(t);
  return vp->tensors[t->id];
}

static bool moderate_ok(IrValue v) { return ir_value_moderate(v); }
static bool finite_ok(IrValue v) { return !ir_value_may_inf_ordinary(v); }

/* The fixed point: recurrences, running max/min, index values, reads before
 * writes, and where a property is lost. */
static void test_program(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[4,16]\n%in Bq : f32[4,16]\n%out O : f32[4,16]\n"
            "L^{4}_{a=0}L^{16}_{b=0}[Su^{f32,g}_{a}=Su^{f32,g}_{a}+A^{f32,g}_{a,b};];"
            "L^{4}_{a=0}L^{16}_{b=0}[M^{f32,g}_{a}=max(M^{f32,g}_{a},A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[Pm^{f32,g}_{a,b}=max(if_then_else(b-1<0,-inf,Pm^{f32,g}_{a,b-1}),A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[E^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b}-M^{f32,g}_{a})+b;];"
            "L^{4}_{a=0}L^{16}_{b=0}[Y^{f32,g}_{a,b}=1/(1+exp(-A^{f32,g}_{a,b}));];"
            "L^{4}_{a=0}L^{16}_{b=0}[W^{f32,g}_{a,b}=if_then_else(Bq^{f32,g}_{a,b}>0,-inf,A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[D^{f32,g}_{a,b}=A^{f32,g}_{a,b}/Bq^{f32,g}_{a,b};];"
            "L^{4}_{a=0}L^{16}_{b=0}[G^{f32,g}_{a,b}=D^{f32,g}_{a,b}+A^{f32,g}_{a,b}*2;];"
            "L^{4}_{a=0}L^{16}_{b=0}[O^{f32,g}_{a,b}=Su^{f32,g}_{a}+M^{f32,g}_{a}+Pm^{f32,g}_{a,b}+E^{f32,g}_{a,b}"
            "+Y^{f32,g}_{a,b}+W^{f32,g}_{a,b}+G^{f32,g}_{a,b};];\n");
  IrProgram *p = pr.p;
  IrValueProgram vp;
  assert_true(ir_value_program(p, true, &vp));
  assert_false(ir_value_running_minmax(p->stmts[0]));
  assert_true(ir_value_running_minmax(p->stmts[1]));
  assert_true(ir_value_running_minmax(p->stmts[2]));
  assert_true(ir_value_running_minmax(p->stmts[3])); /* no read of itself: vacuously */
  assert_mag(tensor_value(&vp, p, "Su"), F, F, true); /* a sum of 16 inputs: grows with its count */
  assert_mag(tensor_value(&vp, p, "M"), L, L, true);
  assert_mag(tensor_value(&vp, p, "Pm"), L, L, true); /* the prefix max's -inf is max's identity */
  assert_mag(tensor_value(&vp, p, "E"), F, C, true); /* exp of a LINEAR value (the interval cannot see A <= M) */
  assert_mag(tensor_value(&vp, p, "Y"), C, C, true);
  assert_mag(tensor_value(&vp, p, "W"), L, A, true);
  assert_mag(tensor_value(&vp, p, "D"), A, A, false);
  /* sigmoid is bounded, but may be far below the inputs (1/(1+exp(10))
     = 4.5e-5): X+y-y keeps it only to an ulp of y (on the corpus,
     additive_split of a sigmoid was 1e6 ulp off under --verify) */
  assert_false(tensor_value(&vp, p, "Y").mag_scaled);
  assert_false(ir_value_moderate(tensor_value(&vp, p, "Y")));
  assert_true(ir_value_moderate(tensor_value(&vp, p, "M")));
  assert_true(ir_value_moderate(tensor_value(&vp, p, "Pm")));
  assert_false(ir_value_moderate(tensor_value(&vp, p, "Su")));
  assert_true(ir_value_may_inf_ordinary(tensor_value(&vp, p, "W")));
  assert_false(ir_value_may_inf_ordinary(tensor_value(&vp, p, "E")));
  /* where moderation is lost: the read of D in G; the division in D; not
     the exp(-A) that 1/(1+exp(-A)) recovers from */
  const IrStmt *g = p->stmts[7], *d = p->stmts[6];
  const IrExpr *at = ir_value_lost_at(&vp, p, g->rhs, DT_F32, moderate_ok);
  assert_non_null(at);
  assert_int_equal(at->kind, E_REF); /* the read of D: a leaf lacking it */
  at = ir_value_lost_at(&vp, p, d->rhs, DT_F32, moderate_ok);
  assert_true(at == d->rhs);
  assert_null(ir_value_lost_at(&vp, p, p->stmts[4]->rhs, DT_F32, finite_ok));
  at = ir_value_lost_at(&vp, p, p->stmts[4]->rhs, DT_F32, moderate_ok); /* down the divisor to its exp */
  assert_non_null(at);
  assert_true(at->kind == E_CALL && at->u.call.func == F_EXP);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

/* A tensor on a cycle through another (A = B; B = A*2 in a loop) may
 * grow: FINITE; a read before any write gives the classes nothing. */
static void test_cycles(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[8]\n%out O : f32[8]\n"
            "L^{8}_{a=0}[Bq^{f32,g}_{a}=A^{f32,g}_{a};];"
            "L^{8}_{a=0}[C^{f32,g}_{a}=Bq^{f32,g}_{a}+A^{f32,g}_{a};Bq^{f32,g}_{a}=C^{f32,g}_{a}*2;];"
            "L^{8}_{a=0}[O^{f32,g}_{a}=Bq^{f32,g}_{a}+R^{f32,g}_{a};R^{f32,g}_{a}=A^{f32,g}_{a};];\n");
  IrProgram *p = pr.p;
  bool *cyc = ir_value_cycles(p);
  assert_non_null(cyc);
  assert_true(cyc[ir_find_tensor(p, "Bq")->id]);
  assert_true(cyc[ir_find_tensor(p, "C")->id]);
  assert_false(cyc[ir_find_tensor(p, "R")->id]);
  assert_false(cyc[ir_find_tensor(p, "O")->id]);
  free(cyc);
  IrValueProgram vp;
  assert_true(ir_value_program(p, true, &vp));
  assert_mag(tensor_value(&vp, p, "Bq"), F, F, true);
  assert_mag(tensor_value(&vp, p, "R"), L, L, true);
  IrValue o = tensor_value(&vp, p, "O"); /* R read before its write: its interval is anything */
  assert_true(o.may_nan && o.may_inf);
  assert_mag(o, F, F, true);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constructors), cmocka_unit_test(test_arith),   cmocka_unit_test(test_div),
      cmocka_unit_test(test_pow),          cmocka_unit_test(test_functions), cmocka_unit_test(test_program),
      cmocka_unit_test(test_cycles),       cmocka_unit_test(test_scaled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
