/* frontend_test.c -- unit tests of the front end: tokens, precedence and
 * the tree shapes it builds, the canonical printer, implicit-initialisation
 * classes (SPEC §9.5), shape inference (§9.3) and declaration inference
 * (§8.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "testsuite/unit/unit_fx.h"

static char *print_body(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s;
}

static IrStmt *first_stmt(IrProgram *p) { return p->nests[0]->items[0].u.stmt; }

/* ---------------------------------------------------------------- tokens */

static void test_tokens_whitespace_comments(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load(fx,
                         "# a comment\n"
                         "B ^{64}_{tx = 0}  L^{4}_{a=0}\t[ C^{f32,g}_{tx,a} = A^{f32,g}_{tx,a} * 1e-05 ; # c\n"
                         "];\n",
                         false);
  assert_non_null(p);
  char *s = print_body(p);
  assert_string_equal(s, "B^{64}_{tx=0}L^{4}_{a=0}[C^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*1e-05;];");
  free(s);
}

static void test_literals_keep_spelling(void **state) {
  Fx *fx = *state;
  const char *t = "B^{4}_{tx=0}[C^{f32,g}_{tx}=1.0e-5+1e-05+2.+1.0e+20+007+inf+-inf;];\n";
  IrProgram *p = fx_load(fx, t, false);
  assert_non_null(p);
  char *s = print_body(p);
  assert_string_equal(s, "B^{4}_{tx=0}[C^{f32,g}_{tx}=1.0e-5+1e-05+2.+1.0e+20+007+inf+-inf;];");
  IrExpr *e = first_stmt(p)->rhs;
  /* left-associative: the rightmost operand is -inf */
  assert_int_equal(e->kind, E_BINARY);
  assert_int_equal(e->u.bin.op, OP_ADD);
  assert_int_equal(e->u.bin.b->kind, E_UNARY);
  free(s);
}

static void test_loop_kind_needs_superscript(void **state) {
  Fx *fx = *state;
  /* `L` followed by something else is a tensor name, not a loop */
  IrProgram *p = fx_load(fx, "B^{2}_{tx=0}[Lx^{f32,g}_{tx}=A^{f32,g}_{tx};];", false);
  assert_non_null(p);
  assert_string_equal(first_stmt(p)->lhs->name, "Lx");
}

/* ---------------------------------------------------------------- precedence */

static IrExpr *rhs_of(Fx *fx, const char *expr) {
  char buf[512];
  snprintf(buf, sizeof buf, "B^{8}_{tx=0}L^{8}_{a=0}[C^{f32,g}_{tx}=%s;];", expr);
  IrProgram *p = fx_load(fx, buf, false);
  assert_non_null(p);
  return first_stmt(p)->rhs;
}

static void test_and_below_comparisons(void **state) {
  Fx *fx = *state;
  IrExpr *e = rhs_of(fx, "if_then_else(1<=a<7&tx>0|a==1,1,0)");
  IrExpr *c = e->u.call.args[0];
  assert_int_equal(c->kind, E_BINARY);
  assert_int_equal(c->u.bin.op, OP_OR);
  IrExpr *a = c->u.bin.a;
  assert_int_equal(a->u.bin.op, OP_AND);
  assert_int_equal(a->u.bin.a->kind, E_CMP);
  assert_int_equal(a->u.bin.a->u.cmp.n, 3); /* chain 1<=a<7 is one node */
  assert_int_equal(a->u.bin.a->u.cmp.op[0], OP_LE);
  assert_int_equal(a->u.bin.a->u.cmp.op[1], OP_LT);
}

static void test_power_right_assoc_and_unary(void **state) {
  Fx *fx = *state;
  IrExpr *e = rhs_of(fx, "-A^{f32,g}_{tx}**2**3");
  /* -(A ** (2 ** 3)) */
  assert_int_equal(e->kind, E_UNARY);
  IrExpr *p = e->u.unary.a;
  assert_int_equal(p->u.bin.op, OP_POW);
  assert_int_equal(p->u.bin.a->kind, E_REF);
  assert_int_equal(p->u.bin.b->u.bin.op, OP_POW);
  e = rhs_of(fx, "A^{f32,g}_{tx}**-1");
  assert_int_equal(e->u.bin.op, OP_POW);
  assert_int_equal(e->u.bin.b->kind, E_UNARY);
}

static void test_mul_binds_tighter(void **state) {
  Fx *fx = *state;
  IrExpr *e = rhs_of(fx, "1-2*3//4%5");
  assert_int_equal(e->u.bin.op, OP_SUB);
  IrExpr *m = e->u.bin.b;
  assert_int_equal(m->u.bin.op, OP_MOD);
  assert_int_equal(m->u.bin.a->u.bin.op, OP_FLOORDIV);
  assert_int_equal(m->u.bin.a->u.bin.a->u.bin.op, OP_MUL);
}

/* Trees built without parenthesis nodes print with the minimal parentheses. */
static void test_printer_adds_needed_parens(void **state) {
  Fx *fx = *state;
  LeirCtx *c = &fx->ctx;
  SBuf b = {0};
  IrExpr *a = ir_index(c, "a"), *x = ir_index(c, "c"), *y = ir_index(c, "d");
  ir_print_expr(&b, ir_binary(c, OP_SUB, a, ir_binary(c, OP_SUB, x, y)));
  sbuf_putc(&b, ' ');
  ir_print_expr(&b, ir_binary(c, OP_MUL, ir_binary(c, OP_ADD, a, x), y));
  sbuf_putc(&b, ' ');
  ir_print_expr(&b, ir_binary(c, OP_POW, ir_unary(c, OP_NEG, a), ir_int(c, 2)));
  sbuf_putc(&b, ' ');
  ir_print_expr(&b, ir_binary(c, OP_ADD, a, ir_binary(c, OP_MUL, x, y)));
  sbuf_putc(&b, ' ');
  ir_print_expr(&b, ir_binary(c, OP_DIV, a, ir_binary(c, OP_MUL, x, y)));
  sbuf_putc(&b, ' ');
  ir_print_expr(&b, ir_binary(c, OP_MUL, a, ir_int(c, -3)));
  assert_string_equal(b.s, "a-(c-d) (a+c)*d (-a)**2 a+c*d a/(c*d) a*-3");
  sbuf_free(&b);
}

static void test_double_repr(void **state) {
  (void)state;
  static const struct { double v; const char *s; } cases[] = {
    {0.5, "0.5"}, {2.0, "2.0"}, {1e-05, "1e-05"}, {1.0507010221481323, "1.0507010221481323"},
    {100.0, "100.0"}, {1e16, "1e+16"}, {1.5e-7, "1.5e-07"}, {0.0001, "0.0001"}, {-0.25, "-0.25"},
    {123456789012345.0, "123456789012345.0"}, {0.1, "0.1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[64];
    ir_format_double(buf, sizeof buf, cases[i].v);
    assert_string_equal(buf, cases[i].s);
  }
}

/* ---------------------------------------------------------------- init classes */

static void check_init(Fx *fx, const char *prog, int stmt, IrInitKind init, IrReduceOp op, double id,
                       int nred) {
  IrProgram *p = fx_load(fx, prog, true);
  if (!p) fail_msg("does not analyse: %s\n%s", prog, fx->diag ? fx->diag : "");
  IrStmt *s = p->stmts[stmt];
  assert_int_equal(s->init, init);
  if (init == INIT_REDUCE) {
    assert_int_equal(s->redop, op);
    if (isinf(id))
      assert_true(isinf(s->identity) && signbit(s->identity) == signbit(id));
    else
      assert_true(s->identity == id);
    assert_int_equal(s->nred, nred);
  }
}

static void test_init_rule(void **state) {
  Fx *fx = *state;
  const char *mm = "B^{4}_{tx=0}L^{3}_{a=0}L^{2}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];";
  check_init(fx, mm, 0, INIT_REDUCE, RED_ADD, 0, 1);
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];", 0, INIT_REDUCE,
             RED_MAX, -INFINITY, 1);
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=min(D^{f32,g}_{tx},A^{f32,g}_{tx,a});];", 0, INIT_REDUCE,
             RED_MIN, INFINITY, 1);
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}*A^{f32,g}_{tx,a};];", 0, INIT_REDUCE,
             RED_MUL, 1, 1);
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,a}/D^{f32,g}_{tx};];", 0, INIT_REDUCE,
             RED_DIV, 1, 1);
  /* A+T: no initialisation */
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx,a}+D^{f32,g}_{tx};];", 0, INIT_NONE, 0, 0, 0);
  /* T**2 begins with `T **`, not `T *` */
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}**2+A^{f32,g}_{tx,a};];", 0, INIT_NONE, 0, 0, 0);
  /* prefix form (different subscript): no initialisation */
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx,a}=max(if_then_else(a-1<0,-inf,D^{f32,g}_{tx,a-1}),A^{f32,g}_{tx,a});];",
             0, INIT_NONE, 0, 0, 0);
  /* rule 1: already written by an earlier statement -> accumulate */
  const char *lin = "B^{4}_{tx=0}L^{3}_{a=0}L^{2}_{c=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+A^{f32,g}_{tx,c};];"
                    "B^{4}_{tx=0}L^{3}_{a=0}[C^{f32,g}_{tx,a}=C^{f32,g}_{tx,a}+F^{f32,g}_{a};];"
                    "B^{4}_{tx=0}L^{3}_{a=0}[D^{f32,g}_{tx,a}=max(C^{f32,g}_{tx,a},0);];";
  check_init(fx, lin, 0, INIT_REDUCE, RED_ADD, 0, 1);
  check_init(fx, lin, 1, INIT_NONE, 0, 0, 0);
  /* no reduction index: re-initialises every time */
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[E^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}+(I^{f32,g}_{tx,a}+J^{f32,g}_{tx,a});];", 0,
             INIT_REDUCE, RED_ADD, 0, 0);
  /* integer max: the dtype's minimum */
  check_init(fx, "B^{4}_{tx=0}L^{3}_{a=0}[D^{i32,g}_{tx}=max(D^{i32,g}_{tx},A^{i32,g}_{tx,a});];", 0, INIT_REDUCE,
             RED_MAX, -2147483648.0, 1);
}

/* ---------------------------------------------------------------- shapes and declarations */

static IrTensor *tensor(IrProgram *p, const char *name) {
  IrTensor *t = ir_find_tensor(p, name);
  assert_non_null(t);
  return t;
}

static void assert_shape(IrTensor *t, int rank, const int64_t *dims) {
  assert_int_equal(t->rank, rank);
  for (int i = 0; i < rank; i++) assert_int_equal(t->shape[i], dims[i]);
}

static void test_shape_inference(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load(fx,
                         "B^{16}_{tx=0}L^{3}_{a=0}L^{34}_{c=0}L^{34}_{d=0}[E^{f32,g}_{tx,a,c,d}=if_then_else(1<=c<33&1<=d<33,A^{f32,g}_{tx,a,c-1,d-1},0);];"
                         "B^{16}_{tx=0}L^{8}_{a=0}L^{32}_{c=0}L^{32}_{d=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}[C^{f32,g}_{tx,a,c,d}=C^{f32,g}_{tx,a,c,d}+E^{f32,g}_{tx,f,c+g,d+h}*D^{f32,g}_{a,f,g,h};];"
                         "B^{16}_{tx=0}L^{8}_{a=0}[F^{f32,g}_{tx,a,0}=C^{f32,g}_{tx,a,0,0};];"
                         "B^{4}_{tx=0}L^{2}_{c=0}[G^{f32,g}_{1-c,tx*2+c}=F^{f32,g}_{tx,c,0};];",
                         true);
  if (!p) fail_msg("%s", fx->diag);
  assert_shape(tensor(p, "E"), 4, (int64_t[]){16, 3, 34, 34});
  /* the input's shape is inferred from its reads, guarded ranges narrowed */
  assert_shape(tensor(p, "A"), 4, (int64_t[]){16, 3, 32, 32});
  assert_shape(tensor(p, "F"), 3, (int64_t[]){16, 8, 1});
  assert_shape(tensor(p, "G"), 2, (int64_t[]){2, 8});
  assert_int_equal(tensor(p, "A")->role, ROLE_IN);
  assert_int_equal(tensor(p, "D")->role, ROLE_IN);
  assert_int_equal(tensor(p, "G")->role, ROLE_OUT);
  assert_int_equal(tensor(p, "C")->role, ROLE_TMP);
}

static void test_declaration_inference_order(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load(fx,
                         "B^{4}_{tx=0}[Z^{f32,g}_{tx}=Q^{f32,g}_{tx}+A^{f32,g}_{tx};];"
                         "B^{4}_{tx=0}[C^{f32,g}_{tx}=Z^{f32,g}_{tx}*2;];"
                         "B^{4}_{tx=0}[D^{f32,g}_{tx}=Z^{f32,g}_{tx}*3;];",
                         true);
  assert_non_null(p);
  assert_true(p->decls_inferred);
  /* inputs in order of first appearance, outputs in order of first write */
  const char *want[] = {"Q", "A", "C", "D", "Z"};
  IrRole roles[] = {ROLE_IN, ROLE_IN, ROLE_OUT, ROLE_OUT, ROLE_TMP};
  assert_int_equal(p->ntensors, 5);
  for (int i = 0; i < 5; i++) {
    assert_string_equal(p->tensors[i]->name, want[i]);
    assert_int_equal(p->tensors[i]->role, roles[i]);
  }
  SBuf b = {0};
  ir_print_decls(&b, p, false);
  assert_string_equal(b.s, "%in    Q : f32[4]\n%in    A : f32[4]\n%out   C : f32[4]\n%out   D : f32[4]\n");
  sbuf_free(&b);
}

static void test_header_dtype_wins(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load(fx,
                         "%in A : f64[4]\n%out C : f32[4]\n"
                         "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*2;];",
                         true);
  assert_non_null(p);
  assert_int_equal(tensor(p, "A")->dtype, DT_F64);
  assert_non_null(strstr(fx->diag, "t.leir:3:29: warning: 'A' is tagged f32 here but is declared f64; using f64"));
  /* the expression reading A is typed by the declaration */
  assert_int_equal(first_stmt(p)->rhs->u.bin.a->type, DT_F64);
}

static void test_scalar_and_types(void **state) {
  Fx *fx = *state;
  IrProgram *p = fx_load(fx,
                         "B^{8}_{tx=0}[J^{i64,g}=J^{i64,g}+H^{i64,g}_{tx};];"
                         "B^{8}_{tx=0}[D^{f32,g}=D^{f32,g}+I^{f32,g}_{tx}/J^{i64,g};];",
                         true);
  assert_non_null(p);
  assert_int_equal(tensor(p, "J")->rank, 0);
  IrStmt *s = p->stmts[1];
  /* D + I/J : I/J is f32 (C conversions), D+... is f32 */
  assert_int_equal(s->rhs->type, DT_F32);
  assert_int_equal(s->rhs->u.bin.b->type, DT_F32);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_tokens_whitespace_comments, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_literals_keep_spelling, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_loop_kind_needs_superscript, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_and_below_comparisons, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_power_right_assoc_and_unary, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_mul_binds_tighter, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_printer_adds_needed_parens, fx_setup, fx_teardown),
    cmocka_unit_test(test_double_repr),
    cmocka_unit_test_setup_teardown(test_init_rule, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_shape_inference, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_declaration_inference_order, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_header_dtype_wins, fx_setup, fx_teardown),
    cmocka_unit_test_setup_teardown(test_scalar_and_types, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
