/* sketch_test.c -- the matmul sketch rule of search/ (search/search.h):
 * what it matches and the options it has on small programs (exact), and
 * over the corpus every matching nest's instances applied through the
 * pass manager (heuristic instance and a spread of the others), none
 * refused, each re-parsing to itself, and the interpreter bit-equal to
 * the original on the programs small enough to run. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/check.h"
#include "ir/ir.h"
#include "search/search.h"
#include "testsuite/corpus_walk.h"

static char corpus[4096];

static int64_t work(const IrProgram *p) {
  int64_t w = 0;
  for (int i = 0; i < p->nnests; i++) {
    int64_t e = 1;
    for (int k = 0; k < p->nests[i]->nloops; k++)
      if (__builtin_mul_overflow(e, p->nests[i]->loops[k]->extent, &e)) return INT64_MAX;
    w += e;
  }
  return w;
}

/* ------------------------------------------------------------ small */

static SearchMachine m64, m32;

static int setup(void **state) {
  (void)state;
  corpus_dir(corpus, sizeof corpus, ".");
  search_machine_of_bytes(64, &m64);
  search_machine_of_bytes(32, &m32);
  return 0;
}

static void test_machine(void **state) {
  (void)state;
  SearchMachine m;
  assert_false(search_machine_of_bytes(8, &m));
  assert_int_equal(m64.vec_bytes, 64);
  assert_int_equal(m64.nregs, 32);
  assert_int_equal(m32.nregs, 16);
}

static void test_matmul(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, "mm.leir",
                      "%in  A : f32[64,32]\n%in  C : f32[32,48]\n%out D : f32[64,48]\n"
                      "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*"
                      "C^{f32,g}_{c,a};];\n",
                      NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m64, &ms, &why), 1);
  SketchMatch *mt = ms.v[0];
  assert_string_equal(mt->d, "D");
  assert_string_equal(mt->a, "A");
  assert_string_equal(mt->b, "C");
  assert_string_equal(mt->li, "tx");
  assert_string_equal(mt->lj, "a");
  assert_string_equal(mt->lk, "c");
  assert_int_equal(mt->bj, 1);
  assert_int_equal(mt->bk, 0);
  assert_true(mt->b_input);
  /* 16 columns (3 panels; groups 1, 3) x rows 2..16 dividing 64 (2, 4, 8,
     16), packed or not: 16; 48 columns (1 panel, not packed: C is not read
     transposed) x rows 2, 4: 2 */
  assert_int_equal(mt->nopts, 18);
  assert_true(mt->opts[0].pack);
  assert_int_equal(mt->opts[0].rows, 16);
  assert_int_equal(mt->opts[0].cols, 16);
  assert_int_equal(mt->opts[0].group, 3);
  int choice = 0;
  PtrVec steps = {0};
  IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
  assert_non_null(q);
  assert_int_equal(steps.n, 7);
  assert_string_equal(((SketchStep *)steps.v[0])->spelling,
                      "layout_transformation(nest=0,tensor=C,kind=reshape1,item=1,factor=3)");
  assert_string_equal(((SketchStep *)steps.v[6])->spelling, "loop_reorder(nest=1,loop1=a,loop2=tx)");
  assert_int_equal(corpus_compare(&ctx, p, q, CMP_EXACT, NULL), CMP_EQUAL);
  assert_string_equal(search_sketch_describe(&ctx, (SketchMatch *const *)ms.v, 1, &choice),
                      "nest 0: packed, 16x16 tile, 3 panels a group");
  leir_ctx_free(&ctx);
  fclose(null);
}

static void test_no_match(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  static const char *const progs[][2] = {
    /* an elementwise product: no reduction */
    {"%in  A : f32[8,16]\n%out D : f32[8,16]\nB^{8}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*A^{f32,g}_{tx,a};];\n",
     "no nest is a reduction D[..,i,j] += A[..,i,k] * B[..,k,j]"},
    /* a product of 5 columns: no tile of 16-float vectors divides 5 */
    {"%in  A : f32[8,4]\n%in  C : f32[4,5]\n%out D : f32[8,5]\n"
     "B^{8}_{tx=0}L^{5}_{a=0}L^{4}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n",
     "nest 0 (D[..,tx,a] += A * C) has no register tile of 64-byte vectors that divides 8 x 5"},
  };
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    LeirCtx ctx;
    IrProgram *p = corpus_load(&ctx, "t.leir", progs[i][0], NULL, null);
    assert_non_null(p);
    PtrVec ms = {0};
    const char *why = NULL;
    assert_int_equal(search_sketch_matches(&ctx, p, &m64, &ms, &why), 0);
    assert_string_equal(why, progs[i][1]);
    leir_ctx_free(&ctx);
  }
  fclose(null);
}

/* ------------------------------------------------------------ corpus */

typedef struct Counts {
  int programs, matched, nests, instances, interpreted, failures;
  FILE *null;
} Counts;

static void fail_note(Counts *c, const char *prog, const char *what) {
  c->failures++;
  print_message("FAIL %s: %s\n", prog, what);
}

static void one_program(const CorpusEntry *e, void *arg) {
  Counts *c = arg;
  FILE *f = fopen(e->leir, "rb");
  if (!f) return;
  char *text = malloc(1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 1, f);
  text[n] = 0;
  fclose(f);
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, e->leir, text, e->decls, c->null);
  if (p) {
    c->programs++;
    PtrVec ms = {0};
    int nm = search_sketch_matches(&ctx, p, &m64, &ms, NULL);
    if (nm) {
      c->matched++;
      c->nests += nm;
      int *choice = calloc((size_t)nm, sizeof *choice);
      bool small = work(p) <= 200000;
      /* the heuristic instance, then options spread over the first nest's */
      SketchMatch *m0 = ms.v[0];
      int step = m0->nopts > 6 ? m0->nopts / 6 : 1;
      for (int o = 0; o < m0->nopts; o += step) {
        choice[0] = o;
        PtrVec steps = {0};
        const char *why = NULL;
        IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, nm, choice, &steps, &why);
        c->instances++;
        if (!q) {
          fail_note(c, e->name, why);
          continue;
        }
        SBuf b = {0};
        pass_print_program(&b, q);
        LeirCtx c2;
        if (!corpus_load(&c2, "reparse", b.s, e->decls, c->null)) fail_note(c, e->name, "an instance does not re-parse");
        leir_ctx_free(&c2);
        sbuf_free(&b);
        if (small) {
          c->interpreted++;
          if (corpus_compare(&ctx, p, q, CMP_EXACT, NULL) != CMP_EQUAL) fail_note(c, e->name, "an instance's outputs differ");
        }
      }
      free(choice);
    }
  }
  leir_ctx_free(&ctx);
  free(text);
}

static void test_corpus(void **state) {
  (void)state;
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/programs", corpus);
  if (stat(path, &st)) skip();
  Counts c = {0};
  c.null = fopen("/dev/null", "w");
  corpus_walk(corpus, one_program, &c);
  fclose(c.null);
  print_message("# count: sketch: programs %d, matched %d (nests %d), instances applied %d, interpreted %d, "
                "failures %d\n",
                c.programs, c.matched, c.nests, c.instances, c.interpreted, c.failures);
  assert_int_equal(c.failures, 0);
  /* the corpus of 146 programs: 60 with matmul-like nests, 192 nests */
  assert_int_equal(c.matched, 60);
  assert_int_equal(c.nests, 192);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_machine),
    cmocka_unit_test(test_matmul),
    cmocka_unit_test(test_no_match),
    cmocka_unit_test(test_corpus),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
