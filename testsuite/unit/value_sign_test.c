/* value_sign_test.c -- the value analysis's answers to the passes (issue
 * 39): signs as computed (exp underflows), expressions built outside the
 * program read by name, the culprit of a property not proved, the softmax
 * sum and tanh denominator facts, reads before any write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "ir/value.h"
#include "testsuite/unit/unit_prog.h"

#define LOAD(pr, text)                                                                                 \
  do {                                                                                                 \
    if (!prog_load(pr, text)) fail_msg("does not load: %s", (pr)->diag);                               \
  } while (0)

static IrValue tensor_value(const IrValueProgram *vp, const IrProgram *p, const char *name) {
  const IrTensor *t = ir_find_tensor(p, name);
  assert_non_null(t);
  return vp->tensors[t->id];
}

static int sign_of(const IrValueProgram *vp, const IrProgram *p, const char *name) {
  return ir_value_sign(tensor_value(vp, p, name));
}

/* The tensor's value is >= 1: never 0, and positive (a softmax's sum). */
static void assert_at_least_one(const IrValueProgram *vp, const IrProgram *p, const char *name) {
  IrValue v = tensor_value(vp, p, name);
  assert_false(v.may_zero);
  assert_true(v.lo >= 1);
  assert_int_equal(sign_of(vp, p, name), IR_SIGN_POS);
}

static void test_sign(void **state) {
  (void)state;
  assert_int_equal(ir_value_sign(ir_value_bottom()), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_real(1, 2)), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_real(0, 2)), IR_SIGN_NONNEG);
  assert_int_equal(ir_value_sign(ir_value_real(-1, 2)), IR_SIGN_UNKNOWN);
  assert_int_equal(ir_value_sign(ir_value_int(0, 0)), IR_SIGN_NONNEG);
  IrValue n = ir_value_real(1, 2);
  n.may_nan = true; /* NaN aside */
  assert_int_equal(ir_value_sign(n), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_top()), IR_SIGN_UNKNOWN);
}

/* exp as computed: f32 exp(x) rounds to 0 below about -103.97, f64 below
 * about -745.13 (value_sign.c, issue 39 item 3); the analysis draws the line
 * at the least subnormal, ln(2^-149) = -103.28 (f64: about -743.7, where
 * the bound computed in double is itself subnormal), on the safe side. */
static void test_exp_underflow(void **state) {
  (void)state;
  assert_int_equal(ir_value_sign(ir_value_exp(ir_value_real(-103.2, 5), DT_F32)), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_exp(ir_value_real(-103.4, 5), DT_F32)), IR_SIGN_NONNEG);
  assert_int_equal(ir_value_sign(ir_value_exp(ir_value_real(-743.5, 5), DT_F64)), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_exp(ir_value_real(-744.5, 5), DT_F64)), IR_SIGN_NONNEG);
  assert_int_equal(ir_value_sign(ir_value_exp(ir_value_of_dtype(DT_F32, true), DT_F32)), IR_SIGN_NONNEG);
  /* x >= 0 plus y > 0 is never 0, though exp's lower bound is 0 */
  IrValue e = ir_value_exp(ir_value_of_dtype(DT_F32, true), DT_F32);
  IrValue s = ir_value_add(e, ir_value_const(1), DT_F32);
  assert_false(s.may_zero);
  assert_int_equal(ir_value_sign(s), IR_SIGN_POS);
  assert_int_equal(ir_value_sign(ir_value_add(e, e, DT_F32)), IR_SIGN_NONNEG);
  /* <= 0 plus < 0 */
  IrValue m = ir_value_add(ir_value_real(-2, 0), ir_value_real(-3, -1e-300), DT_F64);
  assert_false(m.may_zero);
}

/* A softmax's sum over exp(Y-M), M the max of Y over the same loops, is
 * >= 1; exp(x)+exp(-x) >= 1/2; neither holds of the near misses. */
static void test_relational(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[4,16]\n%in K : bool[16]\n%in I : i32[4,16]\n%out C : f32[4,16]\n%out T : f32[4,16]\n"
            "L^{4}_{a=0}L^{16}_{b=0}[Y^{f32,g}_{a,b}=if_then_else(K^{bool,g}_{b},-inf,A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[D^{f32,g}_{a}=max(D^{f32,g}_{a},Y^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[E^{f32,g}_{a}=E^{f32,g}_{a}+exp(Y^{f32,g}_{a,b}-D^{f32,g}_{a});];"
            "L^{4}_{a=0}L^{16}_{b=0}[G^{f32,g}_{a}=G^{f32,g}_{a}+exp(A^{f32,g}_{a,b}-D^{f32,g}_{a});];"
            "L^{4}_{a=0}L^{8}_{b=0}[H^{f32,g}_{a}=H^{f32,g}_{a}+exp(Y^{f32,g}_{a,b}-D^{f32,g}_{a});];"
            "L^{4}_{a=0}L^{16}_{b=0}[C^{f32,g}_{a,b}=exp(Y^{f32,g}_{a,b}-D^{f32,g}_{a})/E^{f32,g}_{a}"
            "+G^{f32,g}_{a}+H^{f32,g}_{a};];"
            "L^{4}_{a=0}L^{16}_{b=0}[W^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b})+exp(-A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[Vv^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b})+exp(A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[Wi^{f32,g}_{a,b}=exp(I^{i32,g}_{a,b})+exp(-I^{i32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[T^{f32,g}_{a,b}=W^{f32,g}_{a,b}+Vv^{f32,g}_{a,b}+Wi^{f32,g}_{a,b};];\n");
  IrProgram *p = pr.p;
  assert_true(ir_value_sum_exp_over_max(p, p->stmts[2]));
  assert_false(ir_value_sum_exp_over_max(p, p->stmts[3])); /* A is not the tensor D is the max of */
  assert_false(ir_value_sum_exp_over_max(p, p->stmts[4])); /* over 8 of the 16 */
  assert_false(ir_value_sum_exp_over_max(p, p->stmts[1]));
  IrValueProgram vp;
  assert_true(ir_value_program(p, true, &vp));
  assert_at_least_one(&vp, p, "E");
  assert_int_equal(sign_of(&vp, p, "G"), IR_SIGN_NONNEG);
  assert_int_equal(sign_of(&vp, p, "H"), IR_SIGN_NONNEG);
  IrValue w = tensor_value(&vp, p, "W");
  assert_false(w.may_zero);
  assert_true(w.lo == 0.5);
  assert_int_equal(sign_of(&vp, p, "Vv"), IR_SIGN_NONNEG);
  /* an integer's negation wraps (-INT_MIN): no claim */
  assert_int_equal(sign_of(&vp, p, "Wi"), IR_SIGN_NONNEG);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

/* A read before any statement writes the tensor reads anything (SPEC 9.3):
 * Ra = Rb; Rb = Ra*2 proves nothing, max(Mb,1) is >= 1 whatever Mb is, and
 * Mb's value is not only what Mb = Ma+Ma stores (>= 2) but also what the
 * read in Ma's nest, before any write, sees: anything; so is Eb's, read
 * before Eb = 1 (fuzz_passes: multiplicative_split took y = Eb as nonzero).
 * A read in the nest of the first write, before it (loop-carried, Na reads
 * Nb of the previous iteration), keeps the writes' values: Nb >= 2. */
static void test_read_before_write(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in X : f32[4]\n%out F : f32[4,4]\n"
            "B^{4}_{tx=0}[Ma^{f32,g}_{tx}=max(Mb^{f32,g}_{tx},1);];"
            "B^{4}_{tx=0}[Mb^{f32,g}_{tx}=Ma^{f32,g}_{tx}+Ma^{f32,g}_{tx};];"
            "B^{4}_{tx=0}[Ra^{f32,g}_{tx}=Rb^{f32,g}_{tx};];"
            "B^{4}_{tx=0}[Rb^{f32,g}_{tx}=Ra^{f32,g}_{tx}*2;];"
            "B^{4}_{tx=0}[G^{f32,g}_{tx}=Eb^{f32,g}_{tx}+X^{f32,g}_{tx};];"
            "B^{4}_{tx=0}[Eb^{f32,g}_{tx}=1;];"
            "B^{4}_{tx=0}L^{4}_{a=0}[Na^{f32,g}_{tx,a}=max(if_then_else(a<1,1,Nb^{f32,g}_{tx,a-1}),1);"
            "Nb^{f32,g}_{tx,a}=Na^{f32,g}_{tx,a}+Na^{f32,g}_{tx,a};];"
            "B^{4}_{tx=0}L^{4}_{a=0}[F^{f32,g}_{tx,a}=Mb^{f32,g}_{tx}+Ra^{f32,g}_{tx}+G^{f32,g}_{tx}/Eb^{f32,g}_{tx}+"
            "Nb^{f32,g}_{tx,a};];\n");
  IrValueProgram vp;
  assert_true(ir_value_program(pr.p, true, &vp));
  assert_int_equal(sign_of(&vp, pr.p, "Ma"), IR_SIGN_POS);
  IrValue mb = tensor_value(&vp, pr.p, "Mb");
  assert_int_equal(ir_value_sign(mb), IR_SIGN_UNKNOWN);
  assert_true(mb.may_zero && mb.may_nan && mb.may_inf);
  IrValue ra = tensor_value(&vp, pr.p, "Ra");
  assert_false(ra.bottom);
  assert_int_equal(ir_value_sign(ra), IR_SIGN_UNKNOWN);
  assert_true(ra.may_nan && ra.may_inf);
  IrValue eb = tensor_value(&vp, pr.p, "Eb");
  assert_true(eb.may_zero && eb.may_nan);
  assert_int_equal(ir_value_sign(eb), IR_SIGN_UNKNOWN);
  assert_int_equal(sign_of(&vp, pr.p, "Na"), IR_SIGN_POS);
  IrValue nb = tensor_value(&vp, pr.p, "Nb");
  assert_int_equal(ir_value_sign(nb), IR_SIGN_POS);
  assert_false(nb.may_zero);
  assert_true(nb.lo == 2);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

static bool positive(IrValue v) { return ir_value_sign(v) == IR_SIGN_POS; }

/* ir_value_in reads a reference built outside the program by name;
 * ir_value_culprit names the tensor whose value is responsible. */
static void test_in_and_culprit(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[4]\n%in U : u8[4]\n%out F : f32[4]\n"
            "B^{4}_{tx=0}[Pp^{f32,g}_{tx}=exp(A^{f32,g}_{tx})+1;];"
            "B^{4}_{tx=0}[Q^{f32,g}_{tx}=exp(A^{f32,g}_{tx});];"
            "B^{4}_{tx=0}[R^{f32,g}_{tx}=Q^{f32,g}_{tx}*Pp^{f32,g}_{tx};];"
            "B^{4}_{tx=0}[S^{f32,g}_{tx}=R^{f32,g}_{tx}+Pp^{f32,g}_{tx};];"
            "B^{4}_{tx=0}[F^{f32,g}_{tx}=Pp^{f32,g}_{tx}/R^{f32,g}_{tx}+S^{f32,g}_{tx};];\n");
  IrProgram *p = pr.p;
  IrValueProgram vp;
  assert_true(ir_value_program(p, true, &vp));
  assert_int_equal(sign_of(&vp, p, "Pp"), IR_SIGN_POS);
  assert_int_equal(sign_of(&vp, p, "Q"), IR_SIGN_NONNEG);
  assert_int_equal(sign_of(&vp, p, "R"), IR_SIGN_NONNEG);
  assert_int_equal(sign_of(&vp, p, "S"), IR_SIGN_POS);
  /* an unbound reference, built by a pass: read by name */
  const IrExpr *u = ir_refexpr(&pr.ctx, ir_ref_new(&pr.ctx, "U", DT_U8, SC_G, 0, NULL));
  IrValue uv = ir_value_in(&vp, p, u, DT_F32);
  assert_true(uv.iok && uv.ilo == 0 && uv.ihi == 255);
  const IrExpr *pe = ir_refexpr(&pr.ctx, ir_ref_new(&pr.ctx, "Pp", DT_F32, SC_G, 0, NULL));
  assert_int_equal(ir_value_sign(ir_value_in(&vp, p, pe, DT_F32)), IR_SIGN_POS);
  const IrExpr *none = ir_refexpr(&pr.ctx, ir_ref_new(&pr.ctx, "Nope", DT_I8, SC_G, 0, NULL));
  IrValue nv = ir_value_in(&vp, p, none, DT_F32);
  assert_true(nv.iok && nv.ilo == -128 && nv.ihi == 127);
  /* the culprit of F's divisor R not being positive: R reads Q (not
     positive) and P (positive); Q reads only the input A, so Q it is,
     with its statement */
  const IrExpr *div = p->stmts[4]->rhs->u.bin.a->u.bin.b;
  assert_int_equal(div->kind, E_REF);
  const IrStmt *st = NULL;
  const IrTensor *c = ir_value_culprit(&vp, p, div, positive, &st);
  assert_non_null(c);
  assert_string_equal(c->name, "Q");
  assert_ptr_equal(st, p->stmts[1]);
  /* a property every read has: no culprit */
  assert_null(ir_value_culprit(&vp, p, p->stmts[3]->rhs->u.bin.b, positive, &st));
  assert_null(st);
  /* an input lacking it is the culprit, with no statement */
  c = ir_value_culprit(&vp, p, p->stmts[1]->rhs, positive, &st);
  assert_non_null(c);
  assert_string_equal(c->name, "A");
  assert_null(st);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

/* The same sum after expression_splitting: S = S + F with F = exp(Y - M)
 * computed over the same loops in a nest of its own, read as written; not
 * when F is read at another element, or is exp of something else. */
static void test_relational_split(void **state) {
  (void)state;
  Prog pr;
  LOAD(&pr, "%in A : f32[4,16]\n%out C : f32[4,16]\n"
            "L^{4}_{a=0}L^{16}_{b=0}[D^{f32,g}_{a}=max(D^{f32,g}_{a},A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[F^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b}-D^{f32,g}_{a});];"
            "L^{4}_{a=0}L^{16}_{b=0}[E^{f32,g}_{a}=E^{f32,g}_{a}+F^{f32,g}_{a,b};];"
            "L^{4}_{a=0}L^{16}_{b=0}[G^{f32,g}_{a}=G^{f32,g}_{a}+F^{f32,g}_{a,0};];"
            "L^{4}_{a=0}L^{16}_{b=0}[J^{f32,g}_{a,b}=exp(A^{f32,g}_{a,b});];"
            "L^{4}_{a=0}L^{16}_{b=0}[H^{f32,g}_{a}=H^{f32,g}_{a}+J^{f32,g}_{a,b};];"
            "L^{4}_{a=0}L^{16}_{b=0}[C^{f32,g}_{a,b}=F^{f32,g}_{a,b}/E^{f32,g}_{a}+G^{f32,g}_{a}+H^{f32,g}_{a};];\n");
  IrProgram *p = pr.p;
  assert_true(ir_value_sum_exp_over_max(p, p->stmts[2]));
  assert_false(ir_value_sum_exp_over_max(p, p->stmts[3])); /* F_{a,0}: one element, 16 times */
  assert_false(ir_value_sum_exp_over_max(p, p->stmts[5])); /* exp(A): no max */
  IrValueProgram vp;
  assert_true(ir_value_program(p, true, &vp));
  assert_at_least_one(&vp, p, "E");
  assert_int_equal(sign_of(&vp, p, "H"), IR_SIGN_NONNEG);
  ir_value_program_free(&vp);
  prog_free(&pr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sign),       cmocka_unit_test(test_exp_underflow),     cmocka_unit_test(test_relational),
      cmocka_unit_test(test_read_before_write), cmocka_unit_test(test_in_and_culprit),
      cmocka_unit_test(test_relational_split),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
