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

/* Attention's product as leirc-import writes it (zoo/GQA.py): the keys
 * read through a broadcast head, M_{tx,0,g,f} (an integer-literal item).
 * Matched, with B not packed (the literal item stays where it is). */
static void test_literal_subscript(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, "attn.leir",
                      "%in  E : f32[2,16,4]\n%in  M : f32[2,1,4,8]\n%out N : f32[2,16,8]\n"
                      "B^{2}_{tx=0}L^{16}_{d=0}L^{8}_{f=0}L^{4}_{g=0}[N^{f32,g}_{tx,d,f}=N^{f32,g}_{tx,d,f}+"
                      "E^{f32,g}_{tx,d,g}*M^{f32,g}_{tx,0,g,f};];\n",
                      NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 1);
  SketchMatch *mt = ms.v[0];
  assert_string_equal(mt->a, "E");
  assert_string_equal(mt->b, "M");
  assert_string_equal(mt->li, "d");
  assert_string_equal(mt->lj, "f");
  assert_string_equal(mt->lk, "g");
  assert_int_equal(mt->bj, 3);
  assert_int_equal(mt->bk, 2);
  assert_false(mt->b_input);
  /* 8 columns (one panel) x rows 2, 4, 8 dividing 16 within 64 floats */
  assert_int_equal(mt->nopts, 3);
  assert_false(mt->opts[0].pack);
  assert_int_equal(mt->opts[0].rows, 8);
  assert_int_equal(mt->opts[0].cols, 8);
  int choice = 0;
  PtrVec steps = {0};
  IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
  assert_non_null(q);
  assert_int_equal(steps.n, 3);
  assert_string_equal(((SketchStep *)steps.v[0])->spelling, "loop_split(nest=0,loop=d,factor=2)");
  assert_string_equal(((SketchStep *)steps.v[1])->spelling, "loop_reorder(nest=0,loop1=d,loop2=g)");
  assert_string_equal(((SketchStep *)steps.v[2])->spelling, "loop_reorder(nest=0,loop1=f,loop2=d)");
  SBuf b = {0};
  pass_print_program(&b, q);
  assert_string_equal(b.s, "%in    E : f32[2,16,4]\n%in    M : f32[2,1,4,8]\n%out   N : f32[2,16,8]\n"
                           "B^{2}_{tx=0}L^{2}_{h=0}L^{4}_{g=0}L^{8}_{d=0}L^{8}_{f=0}[N^{f32,g}_{tx,h*8+d,f}="
                           "N^{f32,g}_{tx,h*8+d,f}+E^{f32,g}_{tx,h*8+d,g}*M^{f32,g}_{tx,0,g,f};];\n");
  sbuf_free(&b);
  assert_true(corpus_compare(&ctx, p, q, CMP_EXACT, NULL) == CMP_EQUAL);
  leir_ctx_free(&ctx);
  fclose(null);
}

/* The inline rule: a chain of three elementwise nests (scale, clamp, GELU
 * as the corpus's Gemm_Scaling_Hardtanh_GELU writes its epilogue) after a
 * reduction nest (not in the chain).  Options: 2 producers inlined (the
 * heuristic) or 1. */
static void test_inline(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, "ew.leir",
                      "%in  A : f32[4,8]\n%out F : f32[4]\n"
                      "B^{4}_{tx=0}L^{8}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*0.5;];"
                      "B^{4}_{tx=0}L^{8}_{a=0}[E^{f32,g}_{tx,a}=min(max(D^{f32,g}_{tx,a},-2.0),2.0);];"
                      "B^{4}_{tx=0}L^{8}_{a=0}[G^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}*0.5*(1+erf(E^{f32,g}_{tx,a}/sqrt(2)));];"
                      "B^{4}_{tx=0}L^{8}_{a=0}[F^{f32,g}_{tx}=F^{f32,g}_{tx}+G^{f32,g}_{tx,a};];\n",
                      NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 1);
  SketchMatch *mt = ms.v[0];
  assert_int_equal(mt->rule, SKETCH_INLINE);
  assert_int_equal(mt->nest, 0);
  assert_int_equal(mt->links, 2);
  assert_int_equal(mt->nopts, 2);
  assert_int_equal(mt->opts[0].links, 2);
  assert_int_equal(mt->opts[1].links, 1);
  for (int choice = 0; choice < 2; choice++) {
    PtrVec steps = {0};
    IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
    assert_non_null(q);
    assert_int_equal(steps.n, 2 - choice);
    for (int i = 0; i < steps.n; i++)
      assert_string_equal(((SketchStep *)steps.v[i])->spelling, "compute_inline(nest=0)");
    assert_true(corpus_compare(&ctx, p, q, CMP_EXACT, NULL) == CMP_EQUAL);
    if (choice == 0) {
      SBuf b = {0};
      pass_print_program(&b, q);
      assert_string_equal(b.s, "%in    A : f32[4,8]\n%out   F : f32[4]\n"
                               "B^{4}_{tx=0}L^{8}_{a=0}[G^{f32,g}_{tx,a}=(min(max((A^{f32,g}_{tx,a}*0.5),-2.0),2.0))*0.5*"
                               "(1+erf((min(max((A^{f32,g}_{tx,a}*0.5),-2.0),2.0))/sqrt(2)));];"
                               "B^{4}_{tx=0}L^{8}_{a=0}[F^{f32,g}_{tx}=F^{f32,g}_{tx}+G^{f32,g}_{tx,a};];\n");
      sbuf_free(&b);
    }
  }
  assert_string_equal(search_sketch_describe(&ctx, (SketchMatch *const *)ms.v, 1, (int[]){1}),
                      "nests 0-2: 1 of 2 inlined");
  leir_ctx_free(&ctx);
  fclose(null);
}

/* The conv rule: a 2-D convolution as the corpus writes it (Conv2D_ReLU_
 * BiasAdd, made small: 2 images, 3 -> 8 channels, a 3x3 kernel, 6x16
 * outputs), a tile of output channels x width with the three reductions
 * outside it; the width 16 is a multiple of the 8-float vector.  And a width
 * of 30, no multiple of a vector: the whole width. */
static void test_conv(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, "conv.leir",
                      "%in  A : f32[2,3,8,18]\n%in  W : f32[8,3,3,3]\n%out C : f32[2,8,6,16]\n"
                      "B^{2}_{tx=0}L^{8}_{a=0}L^{6}_{c=0}L^{16}_{d=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}["
                      "C^{f32,g}_{tx,a,c,d}=C^{f32,g}_{tx,a,c,d}+W^{f32,g}_{a,f,g,h}*A^{f32,g}_{tx,f,c+g,d+h};];\n",
                      NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 1);
  SketchMatch *mt = ms.v[0];
  assert_int_equal(mt->rule, SKETCH_CONV);
  assert_string_equal(mt->a, "W");
  assert_string_equal(mt->b, "A");
  assert_string_equal(mt->li, "a");
  assert_string_equal(mt->lj, "d");
  /* 8 columns x rows 2, 4, 8; 16 columns x rows 2, 4 (within 64 floats) */
  assert_int_equal(mt->nopts, 5);
  assert_int_equal(mt->opts[0].rows, 4);
  assert_int_equal(mt->opts[0].cols, 16);
  int choice = 0;
  PtrVec steps = {0};
  IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
  assert_non_null(q);
  static const char *const want[] = {
    "loop_split(nest=0,loop=a,factor=2)",   "loop_reorder(nest=0,loop1=a,loop2=c)",
    "loop_reorder(nest=0,loop1=a,loop2=f)", "loop_reorder(nest=0,loop1=d,loop2=g)",
    "loop_reorder(nest=0,loop1=a,loop2=h)", "loop_reorder(nest=0,loop1=d,loop2=a)",
  };
  assert_int_equal(steps.n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < steps.n; i++) assert_string_equal(((SketchStep *)steps.v[i])->spelling, want[i]);
  SBuf b = {0};
  pass_print_program(&b, q);
  assert_string_equal(b.s, "%in    A : f32[2,3,8,18]\n%in    W : f32[8,3,3,3]\n%out   C : f32[2,8,6,16]\n"
                           "B^{2}_{tx=0}L^{2}_{k=0}L^{6}_{c=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}L^{4}_{a=0}L^{16}_{d=0}["
                           "C^{f32,g}_{tx,k*4+a,c,d}=C^{f32,g}_{tx,k*4+a,c,d}+W^{f32,g}_{k*4+a,f,g,h}*"
                           "A^{f32,g}_{tx,f,c+g,d+h};];\n");
  sbuf_free(&b);
  assert_true(corpus_compare(&ctx, p, q, CMP_EXACT, NULL) == CMP_EQUAL);
  assert_string_equal(search_sketch_describe(&ctx, (SketchMatch *const *)ms.v, 1, &choice),
                      "nest 0: 4x16 tile of C over the reductions");
  leir_ctx_free(&ctx);
  /* width 30: no multiple of 8 divides it; the whole width, 30 columns, at
     most 4 vectors: rows 2 (60 floats) */
  p = corpus_load(&ctx, "conv30.leir",
           "%in  A : f32[2,3,8,32]\n%in  W : f32[8,3,3,3]\n%out C : f32[2,8,6,30]\n"
           "B^{2}_{tx=0}L^{8}_{a=0}L^{6}_{c=0}L^{30}_{d=0}L^{3}_{f=0}L^{3}_{g=0}L^{3}_{h=0}["
           "C^{f32,g}_{tx,a,c,d}=C^{f32,g}_{tx,a,c,d}+W^{f32,g}_{a,f,g,h}*A^{f32,g}_{tx,f,c+g,d+h};];\n",
           NULL, null);
  assert_non_null(p);
  ms = (PtrVec){0};
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 1);
  mt = ms.v[0];
  assert_int_equal(mt->nopts, 1);
  assert_int_equal(mt->opts[0].rows, 2);
  assert_int_equal(mt->opts[0].cols, 30);
  steps = (PtrVec){0};
  q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
  assert_non_null(q);
  assert_true(corpus_compare(&ctx, p, q, CMP_EXACT, NULL) == CMP_EQUAL);
  leir_ctx_free(&ctx);
  fclose(null);
}

/* The rfactor rule: a squared-distance row sum over a contiguous axis of
 * 128 (TripletMarginLoss's, made small) takes one reduction_rfactor step;
 * lanes 16, 8, 32 (16 first); the result within the tolerance (class T).
 * A row of 32 (under 64), a max over a non-contiguous axis, and a sum whose
 * innermost loop is not its reduction are not the rule's. */
static void test_rfactor(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  IrProgram *p = corpus_load(&ctx, "tml.leir",
                             "%in  A : f32[4,128]\n%in  C : f32[4,128]\n%out D : f32[4]\n"
                             "B^{4}_{tx=0}L^{128}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+(A^{f32,g}_{tx,a}-C^{f32,g}_{tx,a})*"
                             "(A^{f32,g}_{tx,a}-C^{f32,g}_{tx,a});];\n",
                             NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 1);
  SketchMatch *mt = ms.v[0];
  assert_int_equal(mt->rule, SKETCH_RFACTOR);
  assert_string_equal(mt->lk, "a");
  assert_int_equal(mt->nk, 128);
  assert_int_equal(mt->nopts, 3);
  assert_int_equal(mt->opts[0].cols, 16);
  assert_int_equal(mt->opts[1].cols, 8);
  assert_int_equal(mt->opts[2].cols, 32);
  int choice = 0;
  PtrVec steps = {0};
  IrProgram *q = search_sketch_apply(&ctx, p, (SketchMatch *const *)ms.v, 1, &choice, &steps, &why);
  assert_non_null(q);
  assert_int_equal(steps.n, 1);
  assert_string_equal(((SketchStep *)steps.v[0])->spelling, "reduction_rfactor(nest=0,loop=a,lanes=16)");
  assert_int_equal(((SketchStep *)steps.v[0])->cand->cls, PASS_T);
  SBuf b = {0};
  pass_print_program(&b, q);
  assert_string_equal(b.s, "%in    A : f32[4,128]\n%in    C : f32[4,128]\n%out   D : f32[4]\n"
                           "B^{4}_{tx=0}L^{8}_{f=0}L^{16}_{a=0}[E^{f32,g}_{tx,a}=E^{f32,g}_{tx,a}+(A^{f32,g}_{tx,f*16+a}-"
                           "C^{f32,g}_{tx,f*16+a})*(A^{f32,g}_{tx,f*16+a}-C^{f32,g}_{tx,f*16+a});];"
                           "B^{4}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+E^{f32,g}_{tx,a};];\n");
  sbuf_free(&b);
  assert_true(corpus_compare(&ctx, p, q, CMP_DEFAULT, NULL) != CMP_DIFFER);
  assert_true(corpus_compare(&ctx, p, q, CMP_EXACT, NULL) != CMP_EQUAL); /* the lanes re-associate */
  assert_string_equal(search_sketch_describe(&ctx, (SketchMatch *const *)ms.v, 1, &choice),
                      "nest 0: D reduced over a in 16 lanes");
  leir_ctx_free(&ctx);
  static const char *const none[] = {
    "%in  A : f32[4,32]\n%out D : f32[4]\nB^{4}_{tx=0}L^{32}_{a=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];\n",
    "%in  A : f32[128,4]\n%out D : f32[4]\nB^{4}_{tx=0}L^{128}_{a=0}[D^{f32,g}_{tx}=max(D^{f32,g}_{tx},A^{f32,g}_{a,tx});];\n",
    "%in  A : f32[4,128]\n%out D : f32[4]\nL^{128}_{a=0}B^{4}_{tx=0}[D^{f32,g}_{tx}=D^{f32,g}_{tx}+A^{f32,g}_{tx,a};];\n",
  };
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    p = corpus_load(&ctx, "none.leir", none[i], NULL, null);
    assert_non_null(p);
    ms = (PtrVec){0};
    assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 0);
    leir_ctx_free(&ctx);
  }
  fclose(null);
}

/* ------------------------------------------------------------ evolve */

/* search_sketch_evolve with a fake model and fake measurements, both
 * functions of the text (FNV-1a): the instances measured, in order, and
 * the statistics are exact for a seed. */
typedef struct Evo {
  LeirCtx *ctx;
  char log[64][96];
  int gen[64];
  double est[64];
  int n;
  int stop_rank_after; /* rank calls before SEARCH_STOP (0: never) */
  int ranks;
} Evo;

static double fnv01(const char *s) {
  uint64_t h = 1469598103934665603u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (double)(h >> 11) / 9007199254740992.0;
}

static SearchVerdict evo_rank(void *user, const IrProgram *q, double *est) {
  Evo *e = user;
  if (e->stop_rank_after && ++e->ranks > e->stop_rank_after) return SEARCH_STOP;
  SBuf b = {0};
  pass_print_program(&b, q);
  *est = fnv01(b.s ? b.s : "");
  sbuf_free(&b);
  return SEARCH_COSTED;
}

static SearchStats *evo_st;

static SearchVerdict evo_eval(void *user, const PtrVec *steps, const char *desc, double *cost) {
  Evo *e = user;
  assert_true(steps->n > 0);
  if (e->n >= 64) return SEARCH_STOP;
  snprintf(e->log[e->n], sizeof e->log[0], "%s", desc);
  e->gen[e->n] = evo_st->generation;
  e->est[e->n] = evo_st->estimate;
  e->n++;
  *cost = fnv01(desc); /* "measured" */
  return SEARCH_COSTED;
}

static void test_evolve(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  LeirCtx ctx;
  /* two products (128x64 by 64x96, 256-bit vectors): 2 nests' options */
  IrProgram *p = corpus_load(&ctx, "mm2.leir",
                             "%in  A : f32[128,64]\n%in  C : f32[64,96]\n%out D : f32[128,96]\n%out F : f32[128,96]\n"
                             "B^{128}_{tx=0}L^{96}_{a=0}L^{64}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*"
                             "C^{f32,g}_{c,a};];\n"
                             "B^{128}_{tx=0}L^{96}_{a=0}L^{64}_{c=0}[F^{f32,g}_{tx,a}=F^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*"
                             "C^{f32,g}_{c,a};];\n",
                             NULL, null);
  assert_non_null(p);
  PtrVec ms = {0};
  const char *why = NULL;
  assert_int_equal(search_sketch_matches(&ctx, p, &m32, &ms, &why), 2);
  SketchMatch *const *mv = (SketchMatch *const *)ms.v;
  const char *heur = search_sketch_describe(&ctx, mv, 2, (int[]){0, 0});
  Evo e1 = {.ctx = &ctx}, e2 = {.ctx = &ctx};
  SearchStats st1, st2;
  evo_st = &st1;
  search_sketch_evolve(&ctx, p, mv, 2, 7, 12, evo_rank, evo_eval, &e1, &st1);
  evo_st = &st2;
  search_sketch_evolve(&ctx, p, mv, 2, 7, 12, evo_rank, evo_eval, &e2, &st2);
  /* at most max_measured, SEARCH_EVO_MEASURE a generation, the heuristic
     instance first; the same seed: the same instances */
  assert_true(st1.evolved);
  assert_int_equal(st1.measured, 12);
  assert_int_equal(st1.costed, 12);
  assert_int_equal(e1.n, 12);
  assert_string_equal(e1.log[0], heur);
  for (int i = 0; i < e1.n; i++) {
    assert_int_equal(e1.gen[i], 1 + i / SEARCH_EVO_MEASURE);
    assert_string_equal(e1.log[i], e2.log[i]);
  }
  assert_int_equal(e2.n, e1.n);
  assert_int_equal(st2.ranked, st1.ranked);
  /* 3 generations of 32 ranked, 4 measured each: in the first the
     heuristic instance, then the best ranked; later ones bred from the 4
     best measured (mutations, crossovers, random) */
  assert_int_equal(st1.generations, 3);
  assert_int_equal(st1.instances, 96);
  assert_int_equal(st1.ranked, 96);
  assert_int_equal(st1.refused, 0);
  assert_false(st1.exhausted);
  static const char *const want[12] = {
    "nest 0: packed, 2x32 tile, 3 panels a group; nest 1: packed, 2x32 tile, 3 panels a group",
    "nest 0: packed, 8x8 tile, 2 panels a group; nest 1: packed, 2x8 tile, 1 panel a group",
    "nest 0: packed, 8x8 tile, 12 panels a group; nest 1: packed, 2x16 tile, 6 panels a group",
    "nest 0: 4x8 tile, 12 panels a group; nest 1: 4x8 tile, 4 panels a group",
    "nest 0: 2x8 tile, 12 panels a group; nest 1: packed, 2x8 tile, 3 panels a group",
    "nest 0: packed, 2x8 tile, 3 panels a group; nest 1: packed, 2x32 tile, 3 panels a group",
    "nest 0: packed, 2x8 tile, 3 panels a group; nest 1: packed, 2x32 tile, 1 panel a group",
    "nest 0: packed, 4x8 tile, 4 panels a group; nest 1: packed, 4x8 tile, 6 panels a group",
    "nest 0: packed, 2x8 tile, 3 panels a group; nest 1: 2x32 tile, 3 panels a group",
    "nest 0: packed, 4x16 tile, 1 panel a group; nest 1: 2x8 tile, 3 panels a group",
    "nest 0: 2x24 tile, 4 panels a group; nest 1: packed, 2x24 tile, 2 panels a group",
    "nest 0: 2x8 tile, 3 panels a group; nest 1: 4x8 tile, 3 panels a group",
  };
  for (int i = 0; i < 12; i++) assert_string_equal(e1.log[i], want[i]);
  /* within the first two generations the best ranked first (no random
     pick there; the first generation's estimates the model's, the
     second's anchored to the nearest measured); the third's third pick
     drawn at random, ranked far below the fourth */
  for (int i = 2; i < 8; i++)
    if (e1.gen[i] == e1.gen[i - 1]) assert_true(e1.est[i] >= e1.est[i - 1]);
  assert_true(e1.est[10] > 10 * e1.est[11]);
  /* another seed, other instances (the heuristic one first still) */
  Evo e3 = {.ctx = &ctx};
  SearchStats st3;
  evo_st = &st3;
  search_sketch_evolve(&ctx, p, mv, 2, 8, 12, evo_rank, evo_eval, &e3, &st3);
  assert_string_equal(e3.log[0], heur);
  bool differ = false;
  for (int i = 0; i < 12; i++) differ |= strcmp(e3.log[i], e1.log[i]) != 0;
  assert_true(differ);
  /* the ranking stops the search: nothing measured */
  Evo e4 = {.ctx = &ctx, .stop_rank_after = 5};
  SearchStats st4;
  evo_st = &st4;
  search_sketch_evolve(&ctx, p, mv, 2, 7, 0, evo_rank, evo_eval, &e4, &st4);
  assert_int_equal(e4.n, 0);
  assert_int_equal(st4.ranked, 5);
  assert_int_equal(st4.measured, 0);
  /* a space of 18 instances (the 64x32 by 32x48 product, 512-bit
     vectors): ranked in the first generation, every one measured, 4 a
     generation, then exhausted */
  /* (a context of its own: corpus_load initialises the one it is given) */
  LeirCtx ctx1;
  IrProgram *p1 = corpus_load(&ctx1, "mm.leir",
                              "%in  A : f32[64,32]\n%in  C : f32[32,48]\n%out D : f32[64,48]\n"
                              "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*"
                              "C^{f32,g}_{c,a};];\n",
                              NULL, null);
  assert_non_null(p1);
  PtrVec ms1 = {0};
  assert_int_equal(search_sketch_matches(&ctx1, p1, &m64, &ms1, &why), 1);
  Evo e5 = {.ctx = &ctx1};
  SearchStats st5;
  evo_st = &st5;
  search_sketch_evolve(&ctx1, p1, (SketchMatch *const *)ms1.v, 1, 7, 0, evo_rank, evo_eval, &e5, &st5);
  assert_true(st5.exhausted);
  assert_int_equal(st5.instances, 18);
  assert_int_equal(st5.ranked, 18);
  assert_int_equal(st5.measured, 18);
  assert_int_equal(st5.generations, 5);
  assert_int_equal(e5.gen[17], 5);
  leir_ctx_free(&ctx1);
  leir_ctx_free(&ctx);
  fclose(null);
}

static void test_no_match(void **state) {
  (void)state;
  FILE *null = fopen("/dev/null", "w");
  static const char *const progs[][2] = {
    /* an elementwise product: no reduction */
    {"%in  A : f32[8,16]\n%out D : f32[8,16]\nB^{8}_{tx=0}L^{16}_{a=0}[D^{f32,g}_{tx,a}=A^{f32,g}_{tx,a}*A^{f32,g}_{tx,a};];\n",
     "no nest is a reduction D[..,i,j] += A[..,i,k] * B[..,k,j], a convolution or a serial reduction over a "
     "contiguous axis of 64 or more, no chain of elementwise nests to inline"},
    /* an elementwise chain whose inline is class T (the f64 intermediate's
       rounding to f32 would move): not the inline rule's */
    {"%in  A : f32[8,16]\n%out E : f32[8,16]\nB^{8}_{tx=0}L^{16}_{a=0}[D^{f64,g}_{tx,a}=A^{f32,g}_{tx,a}*0.1;];"
     "B^{8}_{tx=0}L^{16}_{a=0}[E^{f32,g}_{tx,a}=D^{f64,g}_{tx,a}+1;];\n",
     "no nest is a reduction D[..,i,j] += A[..,i,k] * B[..,k,j], a convolution or a serial reduction over a "
     "contiguous axis of 64 or more, no chain of elementwise nests to inline"},
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
  int programs, matched, nests, convs, chains, rfactors, instances, interpreted, close, failures;
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
      for (int i = 0; i < nm; i++)
        if (((SketchMatch *)ms.v[i])->rule == SKETCH_INLINE)
          c->chains++;
        else if (((SketchMatch *)ms.v[i])->rule == SKETCH_CONV)
          c->convs++;
        else if (((SketchMatch *)ms.v[i])->rule == SKETCH_RFACTOR)
          c->rfactors++;
        else
          c->nests++;
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
          /* class E steps bit for bit; an instance with a class T step
             (reduction_rfactor's lanes of a sum) within the tolerance of
             STRATEGIES 0.4, or, counted apart, only within the reference's
             acceptance rule (a mixed-sign sum near 0: --tune verifies and
             drops those) */
          bool t = false;
          for (int k = 0; k < steps.n; k++) t |= ((SketchStep *)steps.v[k])->cand->cls == PASS_T;
          c->interpreted++;
          if (!t) {
            if (corpus_compare(&ctx, p, q, CMP_EXACT, NULL) != CMP_EQUAL) fail_note(c, e->name, "an instance's outputs differ");
          } else if (corpus_compare(&ctx, p, q, CMP_DEFAULT, NULL) == CMP_DIFFER) {
            c->close++;
            if (corpus_compare(&ctx, p, q, CMP_REFERENCE, NULL) == CMP_DIFFER)
              fail_note(c, e->name, "a class T instance's outputs differ beyond the reference's rule");
          }
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
  print_message("# count: sketch: programs %d, matched %d (matmul nests %d, convolutions %d, elementwise chains %d, "
                "serial reductions %d), instances applied %d, interpreted %d (class T outside the f32 tolerance, "
                "within the reference's rule: %d), failures %d\n",
                c.programs, c.matched, c.nests, c.convs, c.chains, c.rfactors, c.instances, c.interpreted, c.close,
                c.failures);
  assert_int_equal(c.failures, 0);
  /* the corpus of 146 programs: 60 with matmul-like nests, 192 nests; 107
     with a match of any rule, 25 convolutions, 183 chains of elementwise
     nests, 77 serial reductions over a contiguous axis of 64 or more (the
     rfactor rule; 101 programs matched before it) */
  assert_int_equal(c.matched, 107);
  assert_int_equal(c.nests, 192);
  assert_int_equal(c.convs, 25);
  assert_int_equal(c.chains, 183);
  assert_int_equal(c.rfactors, 77);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_machine),
    cmocka_unit_test(test_matmul),
    cmocka_unit_test(test_literal_subscript),
    cmocka_unit_test(test_inline),
    cmocka_unit_test(test_conv),
    cmocka_unit_test(test_rfactor),
    cmocka_unit_test(test_evolve),
    cmocka_unit_test(test_no_match),
    cmocka_unit_test(test_corpus),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
