/* algebra_test.c -- the algebra module of the symbolic strategies
 * (passes/alg.h): canonical forms, expansion, common factors, gcd and
 * cancellation, partial fractions, together, power and log rules,
 * collection, failures and determinism.
 *
 * Expressions are written with bare tensor names A C D E G (f32[4]) and I
 * (i32[4]); the test expands them to `A^{f32,g}_{tx}` etc., parses them as
 * the right side of a statement, and compares alg_bare() of the result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/alg.h"

/* The parsed right side of `F=rhs` (bare names expanded), in ctx. */
static IrExpr *parse_rhs(LeirCtx *ctx, const char *rhs) {
  char body[4096];
  size_t k = 0;
  for (const char *p = rhs; *p && k < sizeof body - 32; p++) {
    bool lone = isupper((unsigned char)*p) && (p == rhs || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[1]);
    if (lone) k += (size_t)snprintf(body + k, sizeof body - k, "%c^{%s,g}_{tx}", *p, *p == 'I' ? "i32" : "f32");
    else body[k++] = *p;
  }
  body[k] = 0;
  char text[8192];
  snprintf(text, sizeof text,
           "%%in A : f32[4]\n%%in C : f32[4]\n%%in D : f32[4]\n%%in E : f32[4]\n%%in G : f32[4]\n%%in I : i32[4]\n"
           "%%out F : f32[4]\nB^{4}_{tx=0}[F^{f32,g}_{tx}=%s;];\n",
           body);
  leir_ctx_init(ctx);
  ctx->no_warnings = true;
  ctx->diag_out = stderr;
  leir_ctx_set_source(ctx, "algebra_test", text, strlen(text));
  IrProgram *p = ps_parse(ctx);
  assert_non_null(p);
  assert_true(ir_sema(ctx, p, NULL));
  return p->stmts[0]->rhs;
}

typedef enum Op {
  OP_CANON, OP_EXPAND, OP_FACTOR, OP_CANCEL, OP_EXPCANCEL, OP_TOGETHER, OP_APART, OP_POWSIMP, OP_EXPPOWSIMP,
  OP_LOGCOMBINE, OP_LOGEXPAND, OP_COLLECT, OP_EXPCOLLECT, OP_SIGEXP, OP_SIGNEG
} Op;

typedef struct Result {
  char text[2048]; /* bare text, or the failure reason */
  bool failed;
  int changes, merges;
} Result;

/* The generator of x spelt v. */
static AlgExpr *gen(AlgCtx *A, AlgExpr *x, const char *v) {
  PtrVec g = {0};
  alg_generators(A, x, &g);
  for (int i = 0; i < g.n; i++)
    if (!strcmp(alg_bare(A, g.v[i]), v)) return g.v[i];
  fail_msg("no generator %s", v);
  return NULL;
}

static AlgExpr *apply_op(AlgCtx *A, Op op, AlgExpr *x, const char *v) {
  switch (op) {
  case OP_CANON: return x;
  case OP_EXPAND: return alg_expand(A, x);
  case OP_FACTOR: return alg_factor(A, x);
  case OP_CANCEL: return alg_cancel(A, x);
  case OP_EXPCANCEL: return alg_expand_cancel(A, x);
  case OP_TOGETHER: return alg_together(A, x);
  case OP_APART: return alg_apart(A, x, gen(A, x, v));
  case OP_POWSIMP: return alg_powsimp(A, x);
  case OP_EXPPOWSIMP: return alg_expand_powsimp(A, x);
  case OP_LOGCOMBINE: return alg_logcombine(A, x);
  case OP_LOGEXPAND: return alg_logexpand(A, x);
  case OP_COLLECT: return alg_collect(A, x, gen(A, x, v));
  case OP_EXPCOLLECT: return alg_expand_collect(A, x, gen(A, x, v));
  case OP_SIGEXP: return alg_sigmoid_exp(A, x);
  case OP_SIGNEG: return alg_sigmoid_neg(A, x);
  }
  return x;
}

static void run(Result *r, const char *rhs, Op op, const char *v) {
  LeirCtx ctx;
  IrExpr *e = parse_rhs(&ctx, rhs);
  AlgCtx A;
  alg_init(&A, &ctx);
  memset(r, 0, sizeof *r);
  if (setjmp(A.fail) == 0) {
    AlgExpr *x = alg_from_ir(&A, e);
    r->merges = A.merges;
    x = apply_op(&A, op, x, v);
    r->changes = A.changes;
    snprintf(r->text, sizeof r->text, "%s", alg_bare(&A, x));
  } else {
    r->failed = true;
    snprintf(r->text, sizeof r->text, "%s", A.err);
  }
  alg_free(&A);
  leir_ctx_free(&ctx);
}

/* op(rhs) prints as `want` and the rule applied (or, with want_changes 0,
 * did not). */
static void check_op(const char *rhs, Op op, const char *v, const char *want, int want_changes) {
  Result r;
  run(&r, rhs, op, v);
  if (r.failed) fail_msg("%s: failed: %s", rhs, r.text);
  if (strcmp(r.text, want)) fail_msg("%s: got %s, want %s", rhs, r.text, want);
  if (want_changes >= 0 && (r.changes > 0) != (want_changes > 0))
    fail_msg("%s: %d rule applications, want %s", rhs, r.changes, want_changes ? "some" : "none");
}

static void check_fail(const char *rhs, Op op, const char *v, const char *want) {
  Result r;
  run(&r, rhs, op, v);
  if (!r.failed) fail_msg("%s: succeeded with %s, want the failure %s", rhs, r.text, want);
  if (strcmp(r.text, want)) fail_msg("%s: failed with '%s', want '%s'", rhs, r.text, want);
}

/* ------------------------------------------------------------ tests */

static void test_canonical(void **state) {
  (void)state;
  check_op("A*A*C", OP_CANON, NULL, "A**2*C", -1);
  check_op("2*A+A", OP_CANON, NULL, "3*A", -1);
  check_op("A-A+C", OP_CANON, NULL, "C", -1);
  check_op("C+A", OP_CANON, NULL, "A+C", -1);
  check_op("1+A", OP_CANON, NULL, "A+1", -1);
  check_op("A*1.0", OP_CANON, NULL, "A", -1);
  check_op("(A*C)**2", OP_CANON, NULL, "A**2*C**2", -1);
  check_op("A/2", OP_CANON, NULL, "A/2", -1);
  check_op("3*A/2-1/2", OP_CANON, NULL, "3*A/2-1/2", -1);
  check_op("1-A*C", OP_CANON, NULL, "-A*C+1", -1);
}

static void test_canonical_order(void **state) {
  (void)state;
  check_op("C**2+2*A*C+A**2", OP_CANON, NULL, "A**2+2*A*C+C**2", -1);
  check_op("exp(A)*C", OP_CANON, NULL, "C*exp(A)", -1);
  check_op("C*(A+D)", OP_CANON, NULL, "C*(A+D)", -1);
  check_op("A/(C*D)", OP_CANON, NULL, "A/(C*D)", -1);
  check_op("A**-2", OP_CANON, NULL, "1/A**2", -1);
  check_op("(A+C)**-1", OP_CANON, NULL, "1/(A+C)", -1);
  check_op("-(A+C)+D", OP_CANON, NULL, "D-(A+C)", -1);
}

static void test_canonical_literals(void **state) {
  (void)state;
  check_op("A*2.5", OP_CANON, NULL, "2.5*A", -1);
  check_op("A+1.0e-5", OP_CANON, NULL, "A+1e-05", -1);
  check_op("0.5*A+0.5*A", OP_CANON, NULL, "A", -1);
  check_op("2.0*A+A", OP_CANON, NULL, "3.0*A", -1);
  check_op("tx*2+A", OP_CANON, NULL, "A+2*tx", -1);
  check_op("A+tx//2", OP_CANON, NULL, "A+tx//2", -1);
  check_op("A**(1/2)", OP_CANON, NULL, "A**(1/2)", -1);
  check_op("exp(0)+log(1)+A", OP_CANON, NULL, "A+1", -1);
}

static void test_refusals(void **state) {
  (void)state;
  check_fail("A+inf", OP_CANON, NULL, "the expression contains 'inf'");
  check_fail("A*I", OP_CANON, NULL, "tensor 'I' is i32; the algebra assumes floating-point operands");
  check_fail("if_then_else(A<0,A,C)", OP_CANON, NULL, "the expression contains if_then_else");
  check_fail("erf(A)", OP_CANON, NULL, "the expression contains erf");
  check_fail("A/(C-C)", OP_CANON, NULL, "division by zero");
  check_fail("A**64*A", OP_CANON, NULL, "an exponent is out of range");
  check_op("A**100", OP_CANON, NULL, "A**100", -1); /* beyond 64: an opaque term */
}

static void test_expand(void **state) {
  (void)state;
  check_op("(A+C)**2", OP_EXPAND, NULL, "A**2+2*A*C+C**2", 1);
  check_op("(A-C)**3", OP_EXPAND, NULL, "A**3-3*A**2*C+3*A*C**2-C**3", 1);
  check_op("A*(C+D)", OP_EXPAND, NULL, "A*C+A*D", 1);
  check_op("(A+C)*(A-C)", OP_EXPAND, NULL, "A**2-C**2", 1);
  check_op("(A+C)/D", OP_EXPAND, NULL, "A/D+C/D", 1);
  check_op("1/(A+C)**2", OP_EXPAND, NULL, "1/(A**2+2*A*C+C**2)", 1);
  check_op("exp(A*(C+D))", OP_EXPAND, NULL, "exp(A*C+A*D)", 1);
  check_op("(A+C)**5", OP_EXPAND, NULL, "(A+C)**5", 0);
  check_op("A*C+D", OP_EXPAND, NULL, "A*C+D", 0);
}

static void test_factor(void **state) {
  (void)state;
  check_op("A*C+A*D", OP_FACTOR, NULL, "A*(C+D)", 1);
  check_op("2*A+4*C-6", OP_FACTOR, NULL, "2*(A+2*C-3)", 1);
  check_op("-A-C", OP_FACTOR, NULL, "-(A+C)", 1);
  check_op("A/C+D/C", OP_FACTOR, NULL, "(A+D)/C", 1);
  check_op("A**2*C+A*C**2", OP_FACTOR, NULL, "A*C*(A+C)", 1);
  check_op("0.5*A+0.5*C", OP_FACTOR, NULL, "0.5*(A+C)", 1);
  check_op("exp(A*C+A*D)", OP_FACTOR, NULL, "exp(A*(C+D))", 1);
  check_op("A*C+D", OP_FACTOR, NULL, "A*C+D", 0);
  check_op("0.5*A+0.25*C", OP_FACTOR, NULL, "0.5*A+0.25*C", 0);
}

static void test_cancel(void **state) {
  (void)state;
  check_op("(A**2-C**2)/(A+C)", OP_CANCEL, NULL, "A-C", 1);
  check_op("(A**2+2*A*C+C**2)/(A**2-C**2)", OP_CANCEL, NULL, "(A+C)/(A-C)", 1);
  check_op("1/A-1/(A+1)", OP_CANCEL, NULL, "1/(A**2+A)", 1);
  check_op("(A*C+A*D)/(A*E)", OP_CANCEL, NULL, "(C+D)/E", 1);
  check_op("(A/2+1/3)/(C+1)", OP_CANCEL, NULL, "(3*A+2)/(6*C+6)", 1);
  check_op("((A+C)*(A+D))/((A+C)*(C+D))", OP_CANCEL, NULL, "(A+D)/(C+D)", 1);
  check_fail("(A*C+D*E+G)/(A+C+D+E+G)", OP_CANCEL, NULL, "cannot cancel: the polynomials have more than 4 variables");
  check_fail("(A**5+C)/(A+C)", OP_CANCEL, NULL, "cannot cancel: a variable has degree above 4");
  check_fail("(0.3*A+C)/(A+C)", OP_CANCEL, NULL,
             "cannot cancel: the polynomials have inexact (floating-point) coefficients");
}

/* The polynomial gcd directly: gcd(x**2-1, x**2+2x+1) = x+1, and a
 * multivariate one. */
static void test_poly_gcd(void **state) {
  (void)state;
  struct {
    const char *a, *b, *g;
  } cases[] = {
    {"A**2-1", "A**2+2*A+1", "A+1"},
    {"(A+C)*(A+D)", "(A+C)*(C+D)", "A+C"},
    {"A**3*C-A*C", "2*A**2*C+2*A*C", "A**2*C+A*C"},
    {"A**2+1", "A+1", "1"},
    {"6*A+6", "4*A+4", "A+1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    LeirCtx ctx;
    char both[512];
    snprintf(both, sizeof both, "(%s)*D+(%s)*E", cases[i].a, cases[i].b);
    IrExpr *e = parse_rhs(&ctx, both);
    AlgCtx A;
    alg_init(&A, &ctx);
    if (setjmp(A.fail)) fail_msg("%s", A.err);
    /* the two operands are the coefficients of D and E */
    AlgExpr *x = alg_expand(&A, alg_from_ir(&A, e));
    AlgGens G = {0};
    AlgPoly n, d;
    alg_poly_from_expr(&A, &G, x, &n, &d);
    int vd = alg_gen_index(&A, &G, gen(&A, x, "D")), ve = alg_gen_index(&A, &G, gen(&A, x, "E"));
    AlgPoly pa = {0}, pb = {0};
    AlgMono *ta = alg_alloc(&A, sizeof *ta * (size_t)n.n), *tb = alg_alloc(&A, sizeof *tb * (size_t)n.n);
    for (int k = 0; k < n.n; k++) {
      AlgMono m = n.t[k];
      if (m.e[vd]) {
        m.e[vd] = 0;
        ta[pa.n++] = m;
      } else if (m.e[ve]) {
        m.e[ve] = 0;
        tb[pb.n++] = m;
      }
    }
    pa.t = ta;
    pb.t = tb;
    AlgPoly g;
    const char *why;
    assert_true(alg_poly_gcd(&A, pa, pb, &g, &why));
    const char *t = alg_bare(&A, alg_poly_to_expr(&A, &G, g));
    if (strcmp(t, cases[i].g)) fail_msg("gcd(%s, %s) = %s, want %s", cases[i].a, cases[i].b, t, cases[i].g);
    alg_free(&A);
    leir_ctx_free(&ctx);
  }
}

static void test_expand_cancel(void **state) {
  (void)state;
  check_op("1/(A**2+A)", OP_EXPCANCEL, NULL, "1/A-1/(A+1)", 1);
  check_op("(A*C-C*D+E*sqrt(G))/sqrt(G)", OP_EXPCANCEL, NULL, "A*C/sqrt(G)-C*D/sqrt(G)+E", 1);
  check_op("(A+C)/(C*D)", OP_EXPCANCEL, NULL, "A/(C*D)+1/D", 1);
  check_fail("A+C", OP_EXPCANCEL, NULL, "there is no denominator to split the numerator over");
  check_fail("A/(C**2+1)", OP_EXPCANCEL, NULL,
             "the numerator is a single term and the denominator does not split into linear factors");
}

static void test_apart(void **state) {
  (void)state;
  check_op("1/(A**2+A)", OP_APART, "A", "1/A-1/(A+1)", 1);
  check_op("(A*(C+1)+1)/(C+1)", OP_APART, "C", "A+1/(C+1)", 1);
  check_op("1/(A*(A+1)**2)", OP_APART, "A", "1/A-1/(A+1)-1/(A+1)**2", 1);
  check_op("(C*(A-D)+E*sqrt(G))/sqrt(G)", OP_APART, "sqrt(G)", "C*(A-D)/sqrt(G)+E", 1);
  check_op("1/(2*A**2-A)", OP_APART, "A", "-1/A+2/(2*A-1)", 1);
  check_op("C/(D*(A**2-1))", OP_APART, "A", "C/(2*D*(A-1))-C/(2*D*(A+1))", 1);
  check_fail("1/(A**2+1)", OP_APART, "A", "the denominator does not split into linear factors in 'A' over the rationals");
  check_fail("1/(A+C)", OP_APART, "A", "the denominator is not a polynomial in 'A' alone (it contains C)");
  check_fail("A/(C+1)", OP_APART, "A", "'A' does not occur in the denominator");
  check_fail("1/(A**5+A)", OP_APART, "A", "the denominator has degree 5 in 'A' (at most 4)");
}

static void test_together(void **state) {
  (void)state;
  check_op("A+1/(C+1)", OP_TOGETHER, NULL, "(A*(C+1)+1)/(C+1)", 1);
  check_op("A/2+C/3", OP_TOGETHER, NULL, "(3*A+2*C)/6", 1);
  check_op("A/C+D/C**2", OP_TOGETHER, NULL, "(A*C+D)/C**2", 1);
  check_op("D*(A/C+1)", OP_TOGETHER, NULL, "D*(A+C)/C", 1);
  check_op("exp(1/A+1)", OP_TOGETHER, NULL, "exp(1/A+1)", 0);
  check_op("A+C", OP_TOGETHER, NULL, "A+C", 0);
}

static void test_power_rules(void **state) {
  (void)state;
  check_op("exp(A)*exp(C)", OP_POWSIMP, NULL, "exp(A+C)", 1);
  check_op("exp(A)/exp(C)", OP_POWSIMP, NULL, "exp(A-C)", 1);
  check_op("exp(A)**2*D", OP_POWSIMP, NULL, "D*exp(2*A)", 1);
  check_op("A*exp(C)", OP_POWSIMP, NULL, "A*exp(C)", 0);
  check_op("exp(A+C)", OP_EXPPOWSIMP, NULL, "exp(A)*exp(C)", 1);
  check_op("exp(A+C+1)/D", OP_EXPPOWSIMP, NULL, "exp(1)*exp(A)*exp(C)/D", 1);
  check_op("exp(A-C)", OP_EXPPOWSIMP, NULL, "exp(A-C)", 0);
  Result r;
  run(&r, "A*A*C", OP_POWSIMP, NULL);
  assert_int_equal(r.merges, 1); /* x**a*x**b merges while converting */
  assert_string_equal(r.text, "A**2*C");
}

static void test_log_rules(void **state) {
  (void)state;
  check_op("log(A)+log(C)", OP_LOGCOMBINE, NULL, "log(A*C)", 1);
  check_op("2*log(A)", OP_LOGCOMBINE, NULL, "log(A**2)", 1);
  check_op("log(A)-log(C)+D", OP_LOGCOMBINE, NULL, "D+log(A/C)", 1);
  check_op("0.5*log(A)+log(C)", OP_LOGCOMBINE, NULL, "0.5*log(A)+log(C)", 0);
  check_op("log(A*C)", OP_LOGEXPAND, NULL, "log(A)+log(C)", 1);
  check_op("log(A**3/C)", OP_LOGEXPAND, NULL, "3*log(A)-log(C)", 1);
  check_op("log(2*A)", OP_LOGEXPAND, NULL, "log(2)+log(A)", 1);
  check_op("log(-A*C)", OP_LOGEXPAND, NULL, "log(-A*C)", 0);
  check_op("log(A+C)", OP_LOGEXPAND, NULL, "log(A+C)", 0);
}

static void test_collect(void **state) {
  (void)state;
  check_op("A*C+A*D+C", OP_COLLECT, "A", "A*(C+D)+C", 1);
  check_op("A*C+A*D+C", OP_COLLECT, "C", "A*D+C*(A+1)", 1);
  check_op("A**2*C+A**2*D+A*E+A", OP_COLLECT, "A", "A**2*(C+D)+A*(E+1)", 1);
  check_op("A*C+D", OP_COLLECT, "A", "A*C+D", 0);
  check_op("A*(C+D)+C", OP_EXPCOLLECT, "A", "A*C+A*D+C", 1);
  check_op("2*A*(C+1)*(D+1)", OP_EXPCOLLECT, "A", "2*A*C*D+2*A*C+2*A*D+2*A", 1);
  check_op("C*(A+D)", OP_EXPCOLLECT, "A", "C*(A+D)", 0);
}

static void test_sigmoid(void **state) {
  (void)state;
  check_op("1/(1+exp(-A))", OP_SIGEXP, NULL, "exp(A)/(exp(A)+1)", 1);
  check_op("C*(1/(1+exp(-(A+D))))", OP_SIGEXP, NULL, "C*exp(A+D)/(exp(A+D)+1)", 1);
  check_op("1/(1+exp(A))", OP_SIGEXP, NULL, "1/(exp(A)+1)", 0);
  check_op("exp(A)/(exp(A)+1)", OP_SIGNEG, NULL, "1/(exp(-A)+1)", 1);
  check_op("exp(C)/(exp(A)+1)", OP_SIGNEG, NULL, "exp(C)/(exp(A)+1)", 0);
}

/* The same expression in any input order prints the same; conversions in
 * fresh contexts agree byte for byte. */
static void test_determinism(void **state) {
  (void)state;
  const char *forms[] = {"D*A+C*A+exp(G)*E", "exp(G)*E+A*C+A*D", "A*D+E*exp(G)+C*A", "E*exp(G)+(C+D)*A-C*A+A*C-D*A+A*D"};
  Result first;
  run(&first, forms[0], OP_CANON, NULL);
  assert_string_equal(first.text, "A*C+A*D+E*exp(G)");
  for (int rep = 0; rep < 3; rep++)
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
      Result r;
      run(&r, forms[i], OP_EXPAND, NULL);
      assert_string_equal(r.text, first.text);
      run(&r, forms[i], OP_COLLECT, "A");
      assert_string_equal(r.text, "A*(C+D)+E*exp(G)");
    }
  /* generators come in canonical order: refs, functions; by text */
  LeirCtx ctx;
  IrExpr *e = parse_rhs(&ctx, "exp(G)+D*C+A");
  AlgCtx A;
  alg_init(&A, &ctx);
  if (setjmp(A.fail)) fail_msg("%s", A.err);
  PtrVec g = {0};
  alg_generators(&A, alg_from_ir(&A, e), &g);
  assert_int_equal(g.n, 5);
  const char *want[] = {"A", "C", "D", "G", "exp(G)"};
  for (int i = 0; i < 5; i++) assert_string_equal(alg_bare(&A, g.v[i]), want[i]);
  alg_free(&A);
  leir_ctx_free(&ctx);
}

/* The IR printed back: full refs, minimal parentheses, literals as Python
 * repr, the `head+...` form. */
static void test_to_ir(void **state) {
  (void)state;
  LeirCtx ctx;
  IrExpr *e = parse_rhs(&ctx, "-(A*C)/2+0.5*D-E**2+1/3");
  AlgCtx A;
  alg_init(&A, &ctx);
  if (setjmp(A.fail)) fail_msg("%s", A.err);
  AlgExpr *x = alg_from_ir(&A, e);
  SBuf b = {0};
  ir_print_expr(&b, alg_to_ir(&A, x));
  assert_string_equal(b.s, "-A^{f32,g}_{tx}*C^{f32,g}_{tx}/2+0.5*D^{f32,g}_{tx}-E^{f32,g}_{tx}**2+1/3");
  sbuf_free(&b);
  ir_print_expr(&b, alg_sum_after(&A, &ctx, ir_int(&ctx, 7), x));
  assert_string_equal(b.s, "7-A^{f32,g}_{tx}*C^{f32,g}_{tx}/2+0.5*D^{f32,g}_{tx}-E^{f32,g}_{tx}**2+1/3");
  sbuf_free(&b);
  alg_free(&A);
  leir_ctx_free(&ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_canonical),   cmocka_unit_test(test_canonical_order),
    cmocka_unit_test(test_canonical_literals), cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_expand),      cmocka_unit_test(test_factor),
    cmocka_unit_test(test_cancel),      cmocka_unit_test(test_poly_gcd),
    cmocka_unit_test(test_expand_cancel), cmocka_unit_test(test_apart),
    cmocka_unit_test(test_together),    cmocka_unit_test(test_power_rules),
    cmocka_unit_test(test_log_rules),   cmocka_unit_test(test_collect),
    cmocka_unit_test(test_sigmoid),     cmocka_unit_test(test_determinism),
    cmocka_unit_test(test_to_ir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
