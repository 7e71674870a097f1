/* limits_test.c -- the front end's resource limits (issue 11, item 3) and
 * the regressions the fuzzer and its review found: nesting bounds at their
 * exact boundary (IR_MAX_DEPTH), the parser stack, linear-size trees for
 * long bodies and comparison chains, linear-time value ranges of chains of
 * index tensors, reductions over many loops, linear memory for the
 * candidates of a long right side, and the verifier's own bounds.
 * Inputs are generated here (they are too large or too regular to keep as
 * files).  Every test runs under alarm(): a regression to exponential or
 * quadratic work fails instead of hanging `make check`. */
#define _POSIX_C_SOURCE 200809L /* alarm */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/ir.h"
#include "passes/mathpat.h"
#include "passes/pass.h"
#include "testsuite/unit/unit_fx.h"

enum { SECONDS = 30 };

/* The shared fixture (unit_fx.h), under alarm(). */
static int setup(void **state) {
  int rc = fx_setup(state);
  alarm(SECONDS);
  return rc;
}

static int teardown(void **state) {
  alarm(0);
  return fx_teardown(state);
}

/* Parses (and with `sema`, analyses and verifies) text; NULL on an error. */
static IrProgram *load(Fx *fx, const char *text, bool sema) {
  IrProgram *p = fx_load(fx, text, sema);
  if (p && sema) assert_null(ir_verify(&fx->ctx, p));
  return p;
}

/* A growable string for generated programs. */
static void put(SBuf *b, const char *s, int times) {
  for (int i = 0; i < times; i++) sbuf_puts(b, s);
}

static void assert_prints_back(const IrProgram *p, const char *text) {
  SBuf b = {0};
  ir_print_body(&b, p);
  sbuf_putc(&b, '\n');
  assert_string_equal(b.s, text);
  sbuf_free(&b);
}

#define PRE "B^{4}_{tx=0}[C^{f32,g}_{tx}=" /* 28 characters */

/* `(`^n tx `)`^n: the tree has n parenthesis nodes above tx. */
static char *parens(int n) {
  SBuf b = {0};
  sbuf_puts(&b, PRE);
  put(&b, "(", n);
  sbuf_puts(&b, "tx");
  put(&b, ")", n);
  sbuf_puts(&b, ";];\n");
  return b.s;
}

static void test_parens_boundary(void **state) {
  Fx *fx = *state;
  char *t = parens(IR_MAX_DEPTH - 1); /* tx at level 1000 */
  IrProgram *p = load(fx, t, true);
  assert_non_null(p);
  assert_prints_back(p, t);
  free(t);
}

static void test_parens_one_too_many(void **state) {
  Fx *fx = *state;
  char *t = parens(IR_MAX_DEPTH); /* tx at level 1001: the tree check */
  assert_null(load(fx, t, false));
  assert_string_equal(fx_diags(fx), "t.leir:1:1029: error: expression nested too deeply (at most 1000 levels)\n");
  free(t);
}

/* `-`^n tx: unary operators nest without brackets. */
static char *negs(int n) {
  SBuf b = {0};
  sbuf_puts(&b, PRE);
  put(&b, "-", n);
  sbuf_puts(&b, "tx;];\n");
  return b.s;
}

static void test_unary_boundary(void **state) {
  Fx *fx = *state;
  char *t = negs(IR_MAX_DEPTH - 1);
  IrProgram *p = load(fx, t, true);
  assert_non_null(p);
  assert_prints_back(p, t);
  free(t);
}

static void test_unary_one_too_many(void **state) {
  Fx *fx = *state;
  char *t = negs(IR_MAX_DEPTH);
  assert_null(load(fx, t, false));
  assert_string_equal(fx_diags(fx), "t.leir:1:1029: error: expression nested too deeply (at most 1000 levels)\n");
  free(t);
}

/* So many that the parser's own stack (50 * IR_MAX_DEPTH entries) fills
 * before the statement ends: the same message, once (it was bison's
 * "memory exhausted"; without a bound, a stack overflow). */
static void test_unary_parser_stack(void **state) {
  Fx *fx = *state;
  char *t = negs(60000);
  assert_null(load(fx, t, false));
  const char *d = fx_diags(fx);
  assert_string_equal(strstr(d, ": error: "), ": error: expression nested too deeply (at most 1000 levels)\n");
  assert_int_equal(fx->ctx.nerrors, 1);
  free(t);
}

/* tx+tx+...: a left-deep tree as deep as the sum is long. */
static void test_chain_boundary(void **state) {
  Fx *fx = *state;
  SBuf b = {0};
  sbuf_puts(&b, PRE "tx");
  put(&b, "+tx", IR_MAX_DEPTH - 1);
  sbuf_puts(&b, ";];\n");
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  assert_prints_back(p, b.s);
  sbuf_free(&b);
}

/* n nest bodies inside each other, the statement in the innermost. */
static char *nests(int n) {
  SBuf b = {0};
  sbuf_puts(&b, "B^{4}_{tx=0}");
  put(&b, "[", n);
  sbuf_puts(&b, "C^{f32,g}_{tx}=A^{f32,g}_{tx};");
  put(&b, "];", n);
  sbuf_puts(&b, "\n");
  return b.s;
}

static void test_nests_boundary(void **state) {
  Fx *fx = *state;
  char *t = nests(IR_MAX_DEPTH);
  IrProgram *p = load(fx, t, true);
  assert_non_null(p);
  assert_prints_back(p, t);
  free(t);
}

static void test_nests_one_too_many(void **state) {
  Fx *fx = *state;
  char *t = nests(IR_MAX_DEPTH + 1);
  assert_null(load(fx, t, false));
  assert_string_equal(fx_diags(fx), "t.leir:1:1013: error: loop nests nested too deeply (at most 1000 levels)\n");
  free(t);
}

/* A body of 20000 statements and a comparison chain of 20000 operands take
 * linear memory (both were quadratic: 3 GB and 2.4 GB of arena). */
static void test_long_body_linear(void **state) {
  Fx *fx = *state;
  enum { N = 20000 };
  SBuf b = {0};
  sbuf_puts(&b, "B^{4}_{tx=0}[");
  put(&b, "C^{f32,g}_{tx}=A^{f32,g}_{tx};", N);
  sbuf_puts(&b, "];\n");
  IrProgram *p = load(fx, b.s, false);
  assert_non_null(p);
  assert_int_equal(p->nests[0]->nitems, N);
  assert_prints_back(p, b.s);
  assert_true(fx->ctx.arena.total < (size_t)64 << 20);
  sbuf_free(&b);
}

static void test_long_comparison_chain_linear(void **state) {
  Fx *fx = *state;
  enum { N = 20000 };
  SBuf b = {0};
  sbuf_puts(&b, PRE "if_then_else(tx");
  for (int i = 1; i < N; i++) sbuf_puts(&b, i % 3 ? "<=tx" : "<tx");
  sbuf_puts(&b, ",1,0);];\n");
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  const IrExpr *cmp = p->nests[0]->items[0].u.stmt->rhs->u.call.args[0];
  assert_int_equal(cmp->kind, E_CMP);
  assert_int_equal(cmp->u.cmp.n, N);
  assert_int_equal(cmp->u.cmp.op[N - 2], (N - 1) % 3 ? OP_LE : OP_LT);
  assert_prints_back(p, b.s);
  assert_true(fx->ctx.arena.total < (size_t)64 << 20);
  sbuf_free(&b);
}

/* X1 = tx, Xk = (X(k-1) + X(k-1)) // 2, A read at X200: the range of each
 * index tensor is computed once (it was recomputed for every read: 2^200
 * evaluations).  A's inferred shape is exact. */
static void test_index_tensor_chain_linear(void **state) {
  Fx *fx = *state;
  enum { N = 200 };
  SBuf b = {0};
  sbuf_puts(&b, "B^{2}_{tx=0}[Xa^{i32,g}_{tx}=tx;");
  char prev[16] = "Xa", cur[16];
  for (int k = 1; k < N; k++) {
    snprintf(cur, sizeof cur, "X%c%c", 'a' + k / 26, 'a' + k % 26);
    sbuf_printf(&b, "%s^{i32,g}_{tx}=(%s^{i32,g}_{tx}+%s^{i32,g}_{tx})//2;", cur, prev, prev);
    memcpy(prev, cur, sizeof prev);
  }
  sbuf_printf(&b, "C^{f32,g}_{tx}=A^{f32,g}_{%s^{i32,g}_{tx}};];\n", prev);
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  IrTensor *a = ir_find_tensor(p, "A");
  assert_int_equal(a->rank, 1);
  assert_int_equal(a->shape[0], 2);
  sbuf_free(&b);
}

/* A reduction over 70 loops: every one of them is a reduction index (the
 * set of indices was capped at 64 and dropped the rest silently). */
static void test_reduction_over_many_loops(void **state) {
  Fx *fx = *state;
  enum { N = 70 };
  SBuf b = {0};
  sbuf_puts(&b, "B^{4}_{tx=0}");
  for (int i = 0; i < N; i++) sbuf_printf(&b, "L^{1}_{i%d=0}", i);
  sbuf_puts(&b, "[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx,i0");
  for (int i = 1; i < N; i++) sbuf_printf(&b, "+i%d", i);
  sbuf_puts(&b, "};];\n");
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  IrStmt *s = p->stmts[0];
  assert_int_equal(s->init, INIT_REDUCE);
  assert_int_equal(s->nred, N);
  assert_string_equal(s->red[N - 1]->index, "i69");
  sbuf_free(&b);
}

/* The candidates of the two passes numbering sub-expressions, on a right
 * side of 4 parenthesised 900-term sums (7199 sub-expressions): each check
 * kept its own list of the statement's sites (expression_splitting: 1.3 GB
 * of arena here) and its own dataflow analysis, and leirc --list-applicable
 * was killed for want of memory on 20 such sums (fuzz_passes: rss limit).
 * Now the sites and the analysis are found once per program and the uses'
 * texts compared by hash: about 28 and 40 MB here, mostly those texts. */
static void test_subexpression_candidates_linear(void **state) {
  Fx *fx = *state;
  enum { SUMS = 4, TERMS = 900 };
  SBuf b = {0};
  sbuf_puts(&b, PRE);
  for (int g = 0; g < SUMS; g++) {
    sbuf_puts(&b, g ? "+(" : "(");
    for (int i = 0; i < TERMS; i++) sbuf_puts(&b, i ? "+A^{f32,g}_{tx}" : "A^{f32,g}_{tx}");
    sbuf_puts(&b, ")");
  }
  sbuf_puts(&b, ";];\n");
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  const char *names[] = {"expression_splitting", "common_subexpression_elimination"};
  int want[] = {SUMS * (TERMS - 1) + SUMS - 2, TERMS - 1}; /* every sum but the whole; each prefix of a sum */
  for (int k = 0; k < 2; k++) {
    size_t before = fx->ctx.arena.total;
    PtrVec legal = {0};
    pass_enumerate_legal(&fx->ctx, p, pass_lookup(names[k]), &legal);
    assert_int_equal(legal.n, want[k]);
    assert_true(fx->ctx.arena.total - before < (size_t)128 << 20);
  }
  sbuf_free(&b);
}

/* A chain of 400 one-statement nests, each reading the previous one's
 * output: the fresh-inputs rule (cache_read_write, reduction_factorization,
 * tensor_split_to_decouple_operators) walked every earlier nest for each
 * candidate, with a 2 KB name set per nest (670 MB for this test, 5.8 GB
 * for --list-applicable on 1000 such nests), and the set of earlier
 * outputs kept at most 256 names, so from nest 257 on the rule passed
 * every candidate (576 here).  It is found once for all nests now, with
 * sets of any size. */
static void test_fresh_inputs_rule_linear(void **state) {
  Fx *fx = *state;
  enum { N = 400 };
  SBuf b = {0};
  char prev[8] = "A", cur[8];
  for (int i = 0; i < N; i++) {
    snprintf(cur, sizeof cur, "T%c%c", 'a' + i / 26, 'a' + i % 26);
    sbuf_printf(&b, "B^{4}_{tx=0}[%s^{f32,g}_{tx}=%s^{f32,g}_{tx}*2;];", cur, prev);
    memcpy(prev, cur, sizeof prev);
  }
  sbuf_puts(&b, "\n");
  IrProgram *p = load(fx, b.s, true);
  assert_non_null(p);
  size_t before = fx->ctx.arena.total;
  PtrVec legal = {0};
  pass_enumerate_legal(&fx->ctx, p, pass_lookup("cache_read_write"), &legal);
  assert_int_equal(legal.n, 4); /* the first nest's read of A and the last's write, in l and s */
  assert_true(fx->ctx.arena.total - before < (size_t)16 << 20);
  sbuf_free(&b);
}

/* The sign analysis (mathpat_values.c: is a divisor, a log's argument, a split's
 * y positive?) on programs whose tensors read one another in a cycle (a
 * read before the write gives the tensor's initial value): the signs are
 * the least fixed point of the writers' rules, so a cycle proves nothing by
 * itself (Ra = Rb, Rb = Ra*2 stay unknown) but max(Mb, 1) is positive
 * whatever Mb is (Ma, and Mb = Ma+Ma from it, though Mb is not: Ma's nest
 * reads it before any write, which sees anything, SPEC 9.3).  On a chain of 60 tensors
 * each read twice by the next, with a cycle at its foot, the fixed point
 * is linear: the search it replaces gave up 32 tensors deep, and it cut
 * cycles and remembered no result computed across a cut, so a chain of 30
 * took it 2^28 steps (fuzz_passes: a timeout). */
static void test_sign_analysis_cycles(void **state) {
  Fx *fx = *state;
  IrProgram *p = load(fx,
                      "%in X : f32[4]\n%out F : f32[4]\n"
                      "B^{4}_{tx=0}[Ma^{f32,g}_{tx}=max(Mb^{f32,g}_{tx},1);];"
                      "B^{4}_{tx=0}[Mb^{f32,g}_{tx}=Ma^{f32,g}_{tx}+Ma^{f32,g}_{tx};];"
                      "B^{4}_{tx=0}[Ra^{f32,g}_{tx}=Rb^{f32,g}_{tx};];"
                      "B^{4}_{tx=0}[Rb^{f32,g}_{tx}=Ra^{f32,g}_{tx}*2;];"
                      "B^{4}_{tx=0}[F^{f32,g}_{tx}=Mb^{f32,g}_{tx}+Ra^{f32,g}_{tx}+X^{f32,g}_{tx};];\n",
                      true);
  assert_non_null(p);
  assert_true(mp_positive_tensor(p, "Ma"));
  assert_false(mp_positive_tensor(p, "Mb"));
  assert_false(mp_positive_tensor(p, "Ra"));
  assert_false(mp_positive_tensor(p, "Rb"));
  assert_false(mp_positive_tensor(p, "X"));
  assert_int_equal(mp_sign_expr(p, p->stmts[4]->rhs, DT_F32), SIGN_UNKNOWN);
  assert_int_equal(mp_sign_expr(p, p->stmts[1]->rhs, DT_F32), SIGN_POS);

  enum { N = 60 };
  SBuf b = {0};
  sbuf_puts(&b, "%in A : f32[4]\n%out F : f32[4]\nB^{4}_{tx=0}[Taa^{f32,g}_{tx}=exp(A^{f32,g}_{tx})+1;];");
  /* Tac's first write comes before Tab reads it (else that read would see
     anything and the chain would prove nothing); the next nest writes it
     again from Tab: the cycle */
  sbuf_puts(&b, "B^{4}_{tx=0}[Tac^{f32,g}_{tx}=Taa^{f32,g}_{tx};];");
  sbuf_puts(&b, "B^{4}_{tx=0}[Tab^{f32,g}_{tx}=max(Tac^{f32,g}_{tx},Taa^{f32,g}_{tx});];");
  for (int i = 2; i < N; i++)
    sbuf_printf(&b, "B^{4}_{tx=0}[T%c%c^{f32,g}_{tx}=T%c%c^{f32,g}_{tx}+T%c%c^{f32,g}_{tx};];", 'a' + i / 26,
                'a' + i % 26, 'a' + (i - 1) / 26, 'a' + (i - 1) % 26, 'a' + (i - 1) / 26, 'a' + (i - 1) % 26);
  sbuf_printf(&b, "B^{4}_{tx=0}[F^{f32,g}_{tx}=T%c%c^{f32,g}_{tx};];\n", 'a' + (N - 1) / 26, 'a' + (N - 1) % 26);
  p = load(fx, b.s, true);
  assert_non_null(p);
  char last[4];
  snprintf(last, sizeof last, "T%c%c", 'a' + (N - 1) / 26, 'a' + (N - 1) % 26);
  assert_true(mp_positive_tensor(p, last));
  assert_int_equal(mp_sign_expr(p, p->stmts[N + 1]->rhs, DT_F32), SIGN_POS);
  /* exp(A) alone is only >= 0 as computed: f32 exp rounds to 0 below about
     -103.97 (value_sign.c; the sign walk before issue 39 took it > 0) */
  assert_int_equal(mp_sign_expr(p, p->stmts[0]->rhs->u.bin.a, DT_F32), SIGN_NONNEG);
  sbuf_free(&b);
}

/* ... and through the types SPEC 5.4 gives values: integer division
 * truncates ((tx+1)/3 is 0 at tx = 0: fuzz_passes finding 59, where
 * multiplicative_split's y = H^{u16} gave X/0*0 = NaN), a float becomes an
 * integer by truncation (0.5 is 0; 2.5 is 2), an integer literal wraps in a
 * narrow type (256 is 0 in u8), 32-bit sums and products may wrap (u8*u8
 * computes in i32), a float becomes bool as nonzero -> 1 but NaN -> 0;
 * an unsigned or bool value is >= 0 whatever its writer. */
static void test_sign_analysis_types(void **state) {
  Fx *fx = *state;
  IrProgram *p = load(fx,
                      "%in X : f32[4]\n%in U : u8[4]\n%out F : f32[4]\n"
                      "B^{4}_{tx=0}[Hd^{u16,g}_{tx}=(tx+1)/3;Hf^{f32,g}_{tx}=(tx+1)/3;"
                      "Hw^{u8,g}_{tx}=256;Hv^{u8,g}_{tx}=255;Ht^{i32,g}_{tx}=0.5;Hs^{i32,g}_{tx}=2.5;"
                      "Hx^{i32,g}_{tx}=Hf^{f32,g}_{tx};Hm^{i64,g}_{tx}=Hv^{u8,g}_{tx}*Hv^{u8,g}_{tx};"
                      "Hn^{i64,g}_{tx}=Hv^{u8,g}_{tx}*2;Hb^{bool,g}_{tx}=Hf^{f32,g}_{tx};"
                      "Hc^{bool,g}_{tx}=Hv^{u8,g}_{tx};He^{f16,g}_{tx}=1e-10;"
                      "Hq^{i32,g}_{tx}=Hv^{u8,g}_{tx}*Hv^{u8,g}_{tx}*Hv^{u8,g}_{tx}*Hv^{u8,g}_{tx};"
                      "F^{f32,g}_{tx}=X^{f32,g}_{tx}+Hd^{u16,g}_{tx}+Hw^{u8,g}_{tx}+Ht^{i32,g}_{tx}+Hs^{i32,g}_{tx}"
                      "+Hx^{i32,g}_{tx}+Hm^{i64,g}_{tx}+Hn^{i64,g}_{tx}+Hb^{bool,g}_{tx}+Hc^{bool,g}_{tx}"
                      "+He^{f16,g}_{tx}+Hq^{i32,g}_{tx};];\n",
                      true);
  assert_non_null(p);
  assert_false(mp_positive_tensor(p, "Hd"));
  assert_true(mp_positive_tensor(p, "Hf"));
  assert_false(mp_positive_tensor(p, "Hw"));
  assert_true(mp_positive_tensor(p, "Hv"));
  assert_false(mp_positive_tensor(p, "Ht"));
  assert_true(mp_positive_tensor(p, "Hs"));
  assert_false(mp_positive_tensor(p, "Hx"));
  assert_false(mp_positive_tensor(p, "Hm"));
  assert_false(mp_positive_tensor(p, "Hq"));
  assert_true(mp_positive_tensor(p, "Hn"));
  /* Hf is never NaN (the value analysis knows it; the sign walk before
     issue 39 did not), so the bool Hb is 1 */
  assert_true(mp_positive_tensor(p, "Hb"));
  assert_true(mp_positive_tensor(p, "Hc"));
  assert_false(mp_positive_tensor(p, "He"));
  /* (tx+1)/3 in the u16 statement and in the f32 one (the value analysis
     takes each node's type from sema: the u16 statement's division is an
     integer one whatever st says); an unsigned input */
  assert_int_equal(mp_sign_expr(p, p->stmts[0]->rhs, DT_U16), SIGN_NONNEG);
  assert_int_equal(mp_sign_expr(p, p->stmts[0]->rhs, DT_F32), SIGN_NONNEG);
  assert_int_equal(mp_sign_expr(p, p->stmts[1]->rhs, DT_F32), SIGN_POS);
  const IrExpr *u = ir_refexpr(&fx->ctx, ir_ref_new(&fx->ctx, "U", DT_U8, SC_G, 0, NULL));
  assert_int_equal(mp_sign_expr(p, u, DT_F32), SIGN_NONNEG);
}

/* A pass may build a tree deeper than the parser allows: the verifier
 * reports it (and does not overflow its own stack on it). */
static void test_verify_deep_tree(void **state) {
  Fx *fx = *state;
  IrProgram *p = load(fx, PRE "tx;];\n", true);
  assert_non_null(p);
  IrStmt *s = p->stmts[0];
  IrExpr *e = s->rhs;
  for (int i = 0; i < 100000; i++) e = ir_binary(&fx->ctx, OP_ADD, e, s->rhs);
  s->rhs = e;
  assert_string_equal(ir_verify(&fx->ctx, p), "expression deeper than 1000 levels");
}

/* ... and a loop chain whose iteration count overflows int64. */
static void test_verify_iterations(void **state) {
  Fx *fx = *state;
  IrProgram *p = load(fx, "B^{4}_{tx=0}L^{2}_{a=0}L^{2}_{c=0}[C^{f32,g}_{tx,a,c}=1;];\n", true);
  assert_non_null(p);
  p->nests[0]->loops[2]->extent = INT64_MAX / 2;
  assert_string_equal(ir_verify(&fx->ctx, p), "the loops up to 'c' run more than 2^63-1 iterations");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_parens_boundary, setup, teardown),
    cmocka_unit_test_setup_teardown(test_parens_one_too_many, setup, teardown),
    cmocka_unit_test_setup_teardown(test_unary_boundary, setup, teardown),
    cmocka_unit_test_setup_teardown(test_unary_one_too_many, setup, teardown),
    cmocka_unit_test_setup_teardown(test_unary_parser_stack, setup, teardown),
    cmocka_unit_test_setup_teardown(test_chain_boundary, setup, teardown),
    cmocka_unit_test_setup_teardown(test_nests_boundary, setup, teardown),
    cmocka_unit_test_setup_teardown(test_nests_one_too_many, setup, teardown),
    cmocka_unit_test_setup_teardown(test_long_body_linear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_long_comparison_chain_linear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_index_tensor_chain_linear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_reduction_over_many_loops, setup, teardown),
    cmocka_unit_test_setup_teardown(test_subexpression_candidates_linear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_fresh_inputs_rule_linear, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sign_analysis_cycles, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sign_analysis_types, setup, teardown),
    cmocka_unit_test_setup_teardown(test_verify_deep_tree, setup, teardown),
    cmocka_unit_test_setup_teardown(test_verify_iterations, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
