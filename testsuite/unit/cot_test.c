/* cot_test.c -- passes/cot.c, the CoT text of the steptp/chat records of
 * `leirc --emit-steps` (issue 40).
 *
 * test_templates: every strategy of passes/table.c has its own template
 * (no two alike, none falls back to the plain text), and every template
 * says what the check established ({why}), what changed ({counts},
 * {tensors}) and the transition ({transition}), and names the class.
 *
 * test_pinned: for each strategy, the first legal candidate on the
 * programs of examples/ (those that have one: all strategies that occur
 * there) and the first on testsuite/leirc.passes/STRATEGY-1.leir (every
 * strategy) are applied and their CoT compared, byte for byte, with their
 * lines of testsuite/unit/cot.expected
 * ("STRATEGY<TAB>FILE<TAB>SPELLING<TAB>COT"); the number of lines is pinned
 * too.  The text is computed twice and
 * must be identical (deterministic).  LEIR_COT_WRITE=PATH writes the lines
 * computed (to review a deliberate change of the templates).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/readfile.h"
#include "passes/cot.h"
#include "passes/pass.h"

static char top[4096];

static int setup(void **state) {
  (void)state;
  const char *t = getenv("top_srcdir");
  snprintf(top, sizeof top, "%s", t ? t : ".");
  return 0;
}

static void test_templates(void **state) {
  (void)state;
  for (int i = 0; i < pass_table_size; i++) {
    const char *t = cot_template(pass_table[i].name);
    if (!t) print_message("no template: %s\n", pass_table[i].name);
    assert_non_null(t);
    const char *must[] = {"{why}", "{counts}", "{tensors}", "{transition}", "{cls}"};
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++) assert_non_null(strstr(t, must[k]));
    for (int j = 0; j < i; j++) assert_string_not_equal(t, cot_template(pass_table[j].name));
  }
  assert_null(cot_template("no_such_strategy"));
}

/* Appends "STRATEGY\tFILE\tSPELLING\tCOT\n" to *out for every strategy not
 * yet in done[] (only strategy `only` if >= 0) that has a legal candidate
 * on the program `file`. */
static void one_program(const char *dir, const char *file, int only, bool *done, SBuf *out) {
  char path[8300];
  snprintf(path, sizeof path, "%s/%s/%s", top, dir, file);
  char *text = leir_read_file(path, NULL);
  assert_non_null(text);
  LeirCtx ctx;
  leir_ctx_init(&ctx);
  FILE *devnull = fopen("/dev/null", "w");
  ctx.diag_out = devnull;
  ctx.no_warnings = true;
  leir_ctx_set_source(&ctx, file, text, strlen(text));
  IrProgram *p = ps_parse(&ctx);
  assert_non_null(p);
  assert_true(ir_sema(&ctx, p, NULL));
  for (int s = 0; s < pass_table_size; s++) {
    if (done[s] || (only >= 0 && s != only)) continue;
    PtrVec legal = {0};
    pass_enumerate_legal(&ctx, p, &pass_table[s], &legal);
    for (int i = 0; i < legal.n; i++) {
      PassCand *c = legal.v[i];
      const char *why;
      IrProgram *q = pass_apply(&ctx, p, c, &why);
      if (!q) continue;
      char *a = cot_text(&ctx, p, q, c), *b = cot_text(&ctx, p, q, c);
      assert_string_equal(a, b);
      assert_null(strchr(a, '\n'));
      assert_null(strchr(a, '\t'));
      sbuf_printf(out, "%s\t%s/%s\t%s\t%s\n", pass_table[s].name, dir, file, pass_cand_spelling(&ctx, c), a);
      done[s] = true;
      break;
    }
  }
  leir_ctx_free(&ctx);
  fclose(devnull);
  free(text);
}

static void test_pinned(void **state) {
  (void)state;
  const char *examples[] = {"matmul.leir", "softmax.leir", "layernorm.leir", "conv2d.leir", "attention.leir"};
  bool done[128] = {0}, own[128] = {0};
  SBuf got = {0};
  for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
    one_program("examples", examples[i], -1, done, &got);
  int met = 0;
  for (int s = 0; s < pass_table_size; s++) met += done[s];
  /* every strategy on the first program of its own DejaGnu tests */
  for (int s = 0; s < pass_table_size; s++) {
    char file[256];
    snprintf(file, sizeof file, "%s-1.leir", pass_table[s].name);
    one_program("testsuite/leirc.passes", file, s, own, &got);
    if (!own[s]) print_message("no legal candidate: %s on %s\n", pass_table[s].name, file);
    assert_true(own[s]);
  }
  const char *w = getenv("LEIR_COT_WRITE");
  if (w) {
    FILE *f = fopen(w, "w");
    assert_non_null(f);
    fputs(got.s, f);
    fclose(f);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/testsuite/unit/cot.expected", top);
  char *want = leir_read_file(path, NULL);
  assert_non_null(want);
  /* line by line, to name the strategy whose text differs */
  char *g = got.s, *x = want;
  int n = 0;
  while (*g || *x) {
    char *ge = strchr(g, '\n'), *xe = strchr(x, '\n');
    size_t gl = ge ? (size_t)(ge - g) : strlen(g), xl = xe ? (size_t)(xe - x) : strlen(x);
    if (gl != xl || memcmp(g, x, gl)) {
      print_message("line %d differs:\n  got:  %.*s\n  want: %.*s\n", n + 1, (int)gl, g, (int)xl, x);
      fail();
    }
    n++;
    g += gl + (ge ? 1 : 0);
    x += xl + (xe ? 1 : 0);
  }
  print_message("# count: CoT pinned: %d lines, %d strategies on examples/, all %d on testsuite/leirc.passes\n", n,
                met, pass_table_size);
  assert_int_equal(met + pass_table_size, n);
  free(want);
  sbuf_free(&got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_templates),
    cmocka_unit_test(test_pinned),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
