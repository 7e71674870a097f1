/* learned_test.c -- unit tests of the learned cost model's online update
 * (search/learned.h): measurements that invert a ranking flip it; the same
 * observations give bit-identical estimates and byte-identical saved
 * models; a saved model loads and estimates as the updated one; no
 * observation, no change.  The model is the source tree's
 * tools/costmodel/costmodel.json ($top_srcdir, as make check sets it);
 * skipped without XGBoost. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "search/learned.h"
#include "testsuite/unit/unit_prog.h"

/* testsuite/leirc.cost's rowsum-swapped.leir (vectorised, no chain) and
 * colsum-strided.leir (a strided serial chain): measured about 20x apart,
 * and the shipped model ranks them so. */
static const char *FAST = "%in A : f32[512,512]\n%out C : f32[512]\n"
                          "L^{512}_{a=0}L^{512}_{c=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n";
static const char *SLOW = "%in A : f32[512,512]\n%out C : f32[512]\n"
                          "L^{512}_{c=0}L^{512}_{a=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n";

static char model_path[4096];

static int setup(void **state) {
  (void)state;
  const char *top = getenv("top_srcdir");
  snprintf(model_path, sizeof model_path, "%s/tools/costmodel/costmodel.json", top ? top : ".");
  return 0;
}

typedef struct Two {
  Prog fast, slow;
  SearchLearned *m;
} Two;

/* Loads both programs and the model; false (test skipped) without XGBoost. */
static bool two_load(Two *t) {
  assert_true(prog_load(&t->fast, FAST));
  assert_true(prog_load(&t->slow, SLOW));
  if (!search_learned_available()) return false;
  t->m = search_learned_load(&t->fast.ctx, model_path);
  assert_string_equal(t->fast.diag, "");
  assert_non_null(t->m);
  return true;
}

static void two_free(Two *t) {
  search_learned_free(t->m);
  prog_free(&t->fast);
  prog_free(&t->slow);
}

static void estimates(Two *t, double *fast, double *slow) {
  assert_true(search_learned_seconds(&t->fast.ctx, t->m, t->fast.p, fast));
  assert_true(search_learned_seconds(&t->slow.ctx, t->m, t->slow.p, slow));
}

/* Measurements 100x the other way round: after them the model ranks the
 * strided program first, and its estimates come near the measurements. */
static void test_inverted_measurements_flip(void **state) {
  (void)state;
  Two t;
  if (!two_load(&t)) {
    two_free(&t);
    skip();
  }
  double f0, s0, f1, s1;
  estimates(&t, &f0, &s0);
  assert_true(f0 < s0);
  assert_int_equal(search_learned_observed(t.m), 0);
  assert_true(search_learned_observe(&t.fast.ctx, t.m, t.fast.p, 1e-2));
  assert_true(search_learned_observe(&t.slow.ctx, t.m, t.slow.p, 1e-4));
  assert_int_equal(search_learned_observed(t.m), 2);
  estimates(&t, &f1, &s1);
  assert_true(f1 > s1);
  assert_true(f1 > 3e-3 && f1 < 3e-2);
  assert_true(s1 > 3e-5 && s1 < 3e-4);
  two_free(&t);
}

/* Observations that agree with the model's ranking keep it. */
static void test_agreeing_measurements_keep(void **state) {
  (void)state;
  Two t;
  if (!two_load(&t)) {
    two_free(&t);
    skip();
  }
  assert_true(search_learned_observe(&t.fast.ctx, t.m, t.fast.p, 1e-4));
  assert_true(search_learned_observe(&t.slow.ctx, t.m, t.slow.p, 2e-3));
  double f, s;
  estimates(&t, &f, &s);
  assert_true(f < s);
  two_free(&t);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *b = NULL;
  size_t cap = 0;
  *n = 0;
  for (;;) {
    if (*n == cap) b = realloc(b, cap = cap ? 2 * cap : 65536);
    size_t r = fread(b + *n, 1, cap - *n, f);
    *n += r;
    if (!r) break;
  }
  fclose(f);
  return b;
}

/* Two models, the same observations: bit-equal estimates, byte-identical
 * saved files; the saved file loads and estimates as the updated model;
 * saved without observations, the estimates are the shipped model's. */
static void test_deterministic_save(void **state) {
  (void)state;
  Two a, b;
  if (!two_load(&a) || !two_load(&b)) {
    two_free(&a);
    two_free(&b);
    skip();
  }
  /* make check runs the unit tests in the build tree: files go to its
     testsuite/scratch */
  mkdir("testsuite", 0777);
  mkdir("testsuite/scratch", 0777);
  const char *pa = "testsuite/scratch/learned_test_a.json", *pb = "testsuite/scratch/learned_test_b.json",
             *p0 = "testsuite/scratch/learned_test_0.json";
  assert_true(search_learned_save(&a.fast.ctx, a.m, p0));
  Two *both[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    Two *t = both[i];
    assert_true(search_learned_observe(&t->fast.ctx, t->m, t->fast.p, 3e-3));
    assert_true(search_learned_observe(&t->slow.ctx, t->m, t->slow.p, 2e-4));
    assert_true(search_learned_observe(&t->fast.ctx, t->m, t->fast.p, 2.5e-3));
  }
  double fa, sa, fb, sb;
  estimates(&a, &fa, &sa);
  estimates(&b, &fb, &sb);
  assert_memory_equal(&fa, &fb, sizeof fa);
  assert_memory_equal(&sa, &sb, sizeof sa);
  assert_true(search_learned_save(&a.fast.ctx, a.m, pa));
  assert_true(search_learned_save(&b.fast.ctx, b.m, pb));
  size_t na, nb;
  char *ba = slurp(pa, &na), *bb = slurp(pb, &nb);
  assert_true(na > 1000);
  assert_int_equal(na, nb);
  assert_memory_equal(ba, bb, na);
  free(ba);
  free(bb);
  /* the saved model is the updated one */
  SearchLearned *r = search_learned_load(&a.fast.ctx, pa);
  assert_non_null(r);
  double fr, sr;
  assert_true(search_learned_seconds(&a.fast.ctx, r, a.fast.p, &fr));
  assert_true(search_learned_seconds(&a.slow.ctx, r, a.slow.p, &sr));
  assert_memory_equal(&fr, &fa, sizeof fr);
  assert_memory_equal(&sr, &sa, sizeof sr);
  search_learned_free(r);
  /* saved before any observation: the shipped model's estimates */
  Two c;
  assert_true(two_load(&c));
  double fc, sc, f0, s0;
  estimates(&c, &fc, &sc);
  search_learned_free(c.m);
  c.m = search_learned_load(&c.fast.ctx, p0);
  assert_non_null(c.m);
  estimates(&c, &f0, &s0);
  assert_memory_equal(&fc, &f0, sizeof fc);
  assert_memory_equal(&sc, &s0, sizeof sc);
  two_free(&c);
  remove(pa);
  remove(pb);
  remove(p0);
  two_free(&a);
  two_free(&b);
}

/* A file that cannot be written: a diagnostic, no crash. */
static void test_save_error(void **state) {
  (void)state;
  Two t;
  if (!two_load(&t)) {
    two_free(&t);
    skip();
  }
  assert_false(search_learned_save(&t.fast.ctx, t.m, "/nonexistent/dir/model.json"));
  assert_string_equal(t.fast.diag, "t.leir: error: cannot write the learned cost model '/nonexistent/dir/model.json'\n");
  two_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inverted_measurements_flip),
      cmocka_unit_test(test_agreeing_measurements_keep),
      cmocka_unit_test(test_deterministic_save),
      cmocka_unit_test(test_save_error),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
