/* exec_test.c -- the verification runs' rewrites (codegen/exec.h, issue
 * 61): rule 1 (exec_once.c) sets the loops a statement does not mention to
 * extent 1 and splits a nest of independent copies, rule 2
 * (exec_inline.c) computes a temporary read once where it is read; each
 * checked on the rewritten program's text, then on the corpus records'
 * programs (2973-2976, Bmm_Bmm) scaled down, run on the host JIT
 * rewritten (cg_run_host_interp_exec, CG_EXEC_OUTPUTS) against the
 * interpreter, output bytes equal.  The negative cases (an accumulating or
 * otherwise non-idempotent body, a reduction, a temporary read twice or
 * read before it is written, an output, --fp-contract=on, a write between
 * producer and reader) must come back unchanged. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/exec.h"
#include "interp/data.h"
#include "interp/interp.h"
#include "testsuite/unit/unit_prog.h"

static char *body(const IrProgram *p) {
  SBuf b = {0};
  ir_print_body(&b, p);
  return b.s ? b.s : strdup("");
}

/* text's program after rule 1 (rule 2 too with inl) must print as
 * expected (NULL: unchanged, the same program back); n: the loops set
 * once, or the temporaries inlined. */
static void check_rewrite(const char *text, bool inl, bool contract, const char *expected, int n) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  pr.ctx.fp_contract = contract;
  int k = -1;
  unsigned char dropped[64] = {0};
  const IrProgram *q = inl ? cg_exec_inline(&pr.ctx, pr.p, NULL, dropped, &k) : cg_exec_once(&pr.ctx, pr.p, &k);
  if (!expected) {
    assert_ptr_equal(q, pr.p);
    assert_int_equal(k, 0);
  } else {
    char *s = body(q);
    assert_string_equal(s, expected);
    free(s);
    assert_int_equal(k, n);
    assert_null(ir_verify(&pr.ctx, q));
  }
  prog_free(&pr);
}

#define F "^{f32,g}"

static void test_once_single(void **state) {
  (void)state;
  check_rewrite("%in C : f32[8]\n%out H : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F "_{i};];", false, false,
                "L^{1}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F "_{i};];", 1);
  /* 2975's E = J inside L d, its own loops in between */
  check_rewrite("%in J : f32[2,3]\n%out E : f32[2,3]\nB^{2}_{tx=0}L^{3}_{a=0}L^{5}_{d=0}[E" F "_{tx,a}=J" F
                "_{tx,a}*2.0;];",
                false, false, "B^{2}_{tx=0}L^{3}_{a=0}L^{1}_{d=0}[E" F "_{tx,a}=J" F "_{tx,a}*2.0;];", 1);
}

/* 2975's first nest: H ignores a, I ignores c: one nest each */
static void test_once_split(void **state) {
  (void)state;
  check_rewrite("%in C : f32[2,5,7]\n%in A : f32[2,3,5]\n%out H : f32[2,5,7]\n%out I : f32[2,3,5]\n"
                "B^{2}_{tx=0}L^{3}_{a=0}L^{7}_{c=0}L^{5}_{d=0}[H" F "_{tx,d,c}=C" F "_{tx,d,c};I" F "_{tx,a,d}=A" F
                "_{tx,a,d};];",
                false, false,
                "B^{2}_{tx=0}L^{1}_{a=0}L^{7}_{c=0}L^{5}_{d=0}[H" F "_{tx,d,c}=C" F "_{tx,d,c};];"
                "B^{2}_{tx=0}L^{3}_{a=0}L^{1}_{c=0}L^{5}_{d=0}[I" F "_{tx,a,d}=A" F "_{tx,a,d};];",
                2);
}

static void test_once_negative(void **state) {
  (void)state;
  /* accumulation: reads what it writes (§9.5: no reduction index, so it
     re-initialises at every execution -- still not idempotent by rule) */
  check_rewrite("%in C : f32[8]\n%out E : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[E" F "_{i}=E" F "_{i}+C" F "_{i};];", false,
                false, NULL, 0);
  /* a reduction over a */
  check_rewrite("%in C : f32[8,4]\n%out E : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[E" F "_{i}=E" F "_{i}+C" F "_{i,a};];",
                false, false, NULL, 0);
  /* the second statement reads what the first writes */
  check_rewrite("%in C : f32[8]\n%out I : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F "_{i};I" F "_{i}=H" F
                "_{i};];",
                false, false, NULL, 0);
  /* a body whose value depends on the loop: last write wins, still its
     own index (max over a is not a copy) */
  check_rewrite("%in C : f32[8,4]\n%out H : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F "_{i,a};];", false, false,
                NULL, 0);
  /* two statements writing one tensor */
  check_rewrite("%in C : f32[8]\n%out H : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F "_{i};H" F "_{i}=C" F
                "_{i}*2.0;];",
                false, false, NULL, 0);
  /* a read that may be out of bounds */
  check_rewrite("%in C : f32[8]\n%in K : i64[8]\n%out H : f32[8]\nL^{4}_{a=0}L^{8}_{i=0}[H" F "_{i}=C" F
                "_{K^{i64,g}_{i}};];",
                false, false, NULL, 0);
}

/* 2973 scaled down: the product stored in H, then summed over d */
#define P2973                                                                                                        \
  "%in A : f32[2,3,5]\n%in C : f32[2,5,4]\n%in D : f32[2,3,5]\n%out G : f32[2,3,4]\n"                              \
  "L^{5}_{d=0}L^{4}_{c=0}L^{3}_{a=0}B^{2}_{tx=0}[H" F "_{d,c,a,tx}=A" F "_{tx,a,d}*C" F "_{tx,d,c};];"              \
  "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c}=E" F "_{tx,a,c}+H" F "_{d,c,a,tx};];"               \
  "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F" F "_{tx,a,c}=F" F "_{tx,a,c}+D" F "_{tx,a,d}*C" F "_{tx,d,c};];" \
  "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[G" F "_{tx,a,c}=E" F "_{tx,a,c}+F" F "_{tx,a,c};];"

static void test_inline(void **state) {
  (void)state;
  check_rewrite(P2973, true, false,
                "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c}=E" F "_{tx,a,c}+(A" F "_{tx,a,d}*C" F
                "_{tx,d,c});];"
                "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F" F "_{tx,a,c}=F" F "_{tx,a,c}+D" F "_{tx,a,d}*C" F
                "_{tx,d,c};];"
                "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[G" F "_{tx,a,c}=E" F "_{tx,a,c}+F" F "_{tx,a,c};];",
                1);
}

static void test_inline_negative(void **state) {
  (void)state;
  /* --fp-contract=on: E + A*C would be one fma, the stored product two
     roundings */
  check_rewrite(P2973, true, true, NULL, 0);
  /* H read twice */
  check_rewrite("%in A : f32[4]\n%out E : f32[4]\n%out G : f32[4]\n"
                "L^{4}_{i=0}[H" F "_{i}=A" F "_{i}*2.0;];L^{4}_{i=0}[E" F "_{i}=H" F "_{i}+1.0;];"
                "L^{4}_{i=0}[G" F "_{i}=H" F "_{i}+3.0;];",
                true, false, NULL, 0);
  /* H read before it is written (a read of zeros, then the map) */
  check_rewrite("%in A : f32[4]\n%out E : f32[4]\n"
                "L^{4}_{i=0}[E" F "_{i}=H" F "_{i}+1.0;];L^{4}_{i=0}[H" F "_{i}=A" F "_{i}*2.0;];",
                true, false, NULL, 0);
  /* H is an output: its bytes are compared */
  check_rewrite("%in A : f32[4]\n%out H : f32[4]\n%out E : f32[4]\n"
                "L^{4}_{i=0}[H" F "_{i}=A" F "_{i}*2.0;];L^{4}_{i=0}[E" F "_{i}=H" F "_{i}+1.0;];",
                true, false, NULL, 0);
  /* the producer is a reduction, not an elementwise map */
  check_rewrite("%in A : f32[4,3]\n%out E : f32[4]\n"
                "L^{4}_{i=0}L^{3}_{j=0}[H" F "_{i}=H" F "_{i}+A" F "_{i,j};];L^{4}_{i=0}[E" F "_{i}=H" F "_{i}+1.0;];",
                true, false, NULL, 0);
  /* what the map reads is written between the producer and the reader */
  check_rewrite("%in A : f32[4]\n%out E : f32[4]\n"
                "L^{4}_{i=0}[Q" F "_{i}=A" F "_{i};];L^{4}_{i=0}[H" F "_{i}=Q" F "_{i}*2.0;];"
                "L^{4}_{i=0}[Q" F "_{i}=A" F "_{i}+1.0;];L^{4}_{i=0}[E" F "_{i}=H" F "_{i}+Q" F "_{i};];",
                true, false, NULL, 0);
  /* the producer does not cover H (a loop over half of it) */
  check_rewrite("%tmp H : f32[4]\n%in A : f32[4]\n%out E : f32[2]\n"
                "L^{2}_{i=0}[H" F "_{i}=A" F "_{i}*2.0;];L^{2}_{i=0}[E" F "_{i}=H" F "_{i}+1.0;];",
                true, false, NULL, 0);
}

/* text's outputs from the host JIT, rewritten with CG_EXEC_OUTPUTS, equal
 * the interpreter's byte for byte; the rewrite must change the program
 * (rule 1 sets `once` loops, rule 2 inlines `inl` temporaries). */
static void check_bits(const char *text, int once, int inl) {
  Prog pr;
  if (!prog_load(&pr, text)) fail_msg("does not load: %s", pr.diag);
  int k1 = -1, k2 = -1;
  const IrProgram *q = cg_exec_once(&pr.ctx, pr.p, &k1);
  cg_exec_inline(&pr.ctx, q, NULL, NULL, &k2);
  assert_int_equal(k1, once);
  assert_int_equal(k2, inl);
  InterpProg *ref = interp_new(&pr.ctx, pr.p, NULL), *ip = interp_new(&pr.ctx, pr.p, NULL);
  assert_non_null(ref);
  assert_non_null(ip);
  interp_random_inputs(ref, 7, NULL);
  interp_random_inputs(ip, 7, NULL);
  assert_true(interp_run(ref));
  if (!cg_run_host_interp_exec(&pr.ctx, ip, true, NULL, NULL, CG_EXEC_OUTPUTS, NULL)) fail_msg("host: %s", pr.diag);
  int nout = 0;
  for (int i = 0; i < interp_ntensors(ref); i++) {
    InterpBuf *a = interp_buf(ref, i), *b = interp_buf(ip, i);
    if (a->t->role != ROLE_OUT) continue;
    nout++;
    assert_int_equal(a->nbytes, b->nbytes);
    if (memcmp(a->data, b->data, a->nbytes)) fail_msg("'%s' differs from the interpreter's", a->t->name);
  }
  assert_true(nout > 0);
  interp_free(ref);
  interp_free(ip);
  prog_free(&pr);
}

static void test_bits_2973(void **state) {
  (void)state;
  check_bits(P2973, 0, 1);
}

static void test_bits_2974(void **state) {
  (void)state;
  check_bits("%in A : f32[2,3,5]\n%in C : f32[2,5,4]\n%in D : f32[2,3,5]\n%out G : f32[2,3,4]\n"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c}=E" F "_{tx,a,c}+A" F "_{tx,a,d}*C" F
             "_{tx,d,c};];"
             "L^{5}_{d=0}L^{4}_{c=0}L^{3}_{a=0}B^{2}_{tx=0}[I" F "_{d,c,a,tx}=D" F "_{tx,a,d}*C" F "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F" F "_{tx,a,c}=F" F "_{tx,a,c}+I" F "_{d,c,a,tx};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[G" F "_{tx,a,c}=E" F "_{tx,a,c}+F" F "_{tx,a,c};];",
             0, 1);
}

/* 2975: concatenated copies (H, I ignore a loop each), one batched
   product, its halves copied out under a loop they ignore */
static void test_bits_2975(void **state) {
  (void)state;
  check_bits("%in A : f32[2,3,5]\n%in C : f32[2,5,4]\n%in D : f32[2,3,5]\n%out G : f32[2,3,4]\n"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[H" F "_{tx,d,c}=C" F "_{tx,d,c};I" F "_{tx,a,d}=A" F
             "_{tx,a,d};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[H" F "_{tx+2,d,c}=C" F "_{tx,d,c};I" F "_{tx+2,a,d}=D" F
             "_{tx,a,d};];"
             "B^{4}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[J" F "_{tx,a,c}=J" F "_{tx,a,c}+I" F "_{tx,a,d}*H" F
             "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c}=J" F "_{tx,a,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F" F "_{tx,a,c}=J" F "_{tx+2,a,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[G" F "_{tx,a,c}=E" F "_{tx,a,c}+F" F "_{tx,a,c};];",
             6, 0);
}

/* 2976: C split along c into H and I under a loop they ignore, the
   products, the halves copied back under d */
static void test_bits_2976(void **state) {
  (void)state;
  check_bits("%in A : f32[2,3,5]\n%in C : f32[2,5,4]\n%in D : f32[2,3,5]\n%out G : f32[2,3,4]\n"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{1}_{c=0}L^{5}_{d=0}[H" F "_{tx,d,c}=C" F "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}L^{5}_{d=0}[I" F "_{tx,d,c}=C" F "_{tx,d,c+1};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{1}_{c=0}L^{5}_{d=0}[J" F "_{tx,a,c}=J" F "_{tx,a,c}+A" F "_{tx,a,d}*H" F
             "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}L^{5}_{d=0}[K" F "_{tx,a,c}=K" F "_{tx,a,c}+A" F "_{tx,a,d}*I" F
             "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{1}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c}=J" F "_{tx,a,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{3}_{c=0}L^{5}_{d=0}[E" F "_{tx,a,c+1}=K" F "_{tx,a,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}L^{5}_{d=0}[F" F "_{tx,a,c}=F" F "_{tx,a,c}+D" F "_{tx,a,d}*C" F
             "_{tx,d,c};];"
             "B^{2}_{tx=0}L^{3}_{a=0}L^{4}_{c=0}[G" F "_{tx,a,c}=E" F "_{tx,a,c}+F" F "_{tx,a,c};];",
             4, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_once_single), cmocka_unit_test(test_once_split), cmocka_unit_test(test_once_negative),
      cmocka_unit_test(test_inline),      cmocka_unit_test(test_inline_negative), cmocka_unit_test(test_bits_2973),
      cmocka_unit_test(test_bits_2974),   cmocka_unit_test(test_bits_2975),       cmocka_unit_test(test_bits_2976),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
