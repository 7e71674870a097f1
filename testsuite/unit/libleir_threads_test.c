/* libleir_threads_test.c -- two threads driving libleir at once, each with
 * its own context (leir/leir.h: two contexts share no mutable state).
 *
 * A worker parses two programs, lists their candidates, applies every
 * fifth one, runs each result on the interpreter and on the host JIT
 * (random inputs of the context's seed) and compiled once
 * (leir_program_compile, run twice on fixed inputs, bit-equal to
 * leir_program_run's "host"), prints its canonical text, emits
 * its PTX and asks the cost model; it folds everything it sees
 * (spellings, classes, texts, output bytes, PTX, estimates) into
 * one hash per round.  The hashes are first computed by one thread alone,
 * then by two threads started together; every round of both must equal
 * the single-threaded ones bit for bit, and every call must succeed. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <leir/leir.h>

static const char *const programs[] = {
  "%in  A : f32[64,32]\n%in  C : f32[32,48]\n%out D : f32[64,48]\n"
  "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];\n",
  /* a row softmax: max, exp-sum, divide */
  "%in X : f32[8,16]\n%out Y : f32[8,16]\n"
  "L^{8}_{i=0}[L^{16}_{j=0}[M^{f32,g}_{i}=max(M^{f32,g}_{i},X^{f32,g}_{i,j});];"
  "L^{16}_{j=0}[S^{f32,g}_{i}=S^{f32,g}_{i}+exp(X^{f32,g}_{i,j}-M^{f32,g}_{i});];"
  "L^{16}_{j=0}[Y^{f32,g}_{i,j}=exp(X^{f32,g}_{i,j}-M^{f32,g}_{i})/S^{f32,g}_{i};];];\n",
};
enum { NPROG = 2, ROUNDS = 2, EVERY = 5 };

typedef struct Work {
  uint64_t hash[ROUNDS];
  int failures;  /* calls that did not succeed */
  int steps;     /* candidates applied and run, all rounds */
} Work;

static void mix(uint64_t *h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) *h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void mix_str(uint64_t *h, const char *s) { mix(h, s, strlen(s) + 1); }

/* Runs p on target; its outputs into the hash. */
static void run(leir_context *ctx, const leir_program *p, const char *target, Work *w, uint64_t *h) {
  size_t n = leir_program_ntensors(p);
  void **bufs = calloc(n, sizeof *bufs);
  size_t *sz = calloc(n, sizeof *sz);
  for (size_t i = 0; i < n; i++) {
    leir_tensor_info ti;
    if (leir_program_tensor(p, i, &ti) != LEIR_OK) w->failures++;
    sz[i] = ti.nbytes;
    if (ti.role == LEIR_OUT) bufs[i] = calloc(1, ti.nbytes);
  }
  if (leir_program_run(ctx, p, target, bufs) != LEIR_OK) w->failures++;
  for (size_t i = 0; i < n; i++)
    if (bufs[i]) mix(h, bufs[i], sz[i]);
  for (size_t i = 0; i < n; i++) free(bufs[i]);
  free(bufs);
  free(sz);
}

/* Compiles p once and runs it twice on fixed inputs (every argument is f32
 * here); both runs and leir_program_run's "host" must agree bit for bit. */
static void run_compiled(leir_context *ctx, const leir_program *p, Work *w, uint64_t *h) {
  size_t n = leir_program_ntensors(p);
  void **bufs = calloc(n, sizeof *bufs);
  void **again = calloc(n, sizeof *again);
  leir_tensor_info *ti = calloc(n, sizeof *ti);
  for (size_t i = 0; i < n; i++) {
    if (leir_program_tensor(p, i, &ti[i]) != LEIR_OK) w->failures++;
    bufs[i] = calloc(1, ti[i].nbytes + 4);
    again[i] = bufs[i];
    if (ti[i].role == LEIR_OUT) {
      again[i] = malloc(ti[i].nbytes + 4);
      memset(again[i], 0x55, ti[i].nbytes); /* zeroed by the run */
    } else {
      float *f = bufs[i];
      for (size_t j = 0; j < ti[i].nbytes / sizeof *f; j++) f[j] = (float)((j * 7) % 11) * 0.25f - 1.0f;
    }
  }
  leir_compiled *c = leir_program_compile(ctx, p, "host");
  if (!c || leir_compiled_run(c, bufs) != LEIR_OK || leir_compiled_run(c, again) != LEIR_OK) w->failures++;
  leir_compiled_free(c);
  for (size_t i = 0; i < n; i++) {
    if (ti[i].role != LEIR_OUT) continue;
    if (memcmp(bufs[i], again[i], ti[i].nbytes)) w->failures++;
    mix(h, bufs[i], ti[i].nbytes);
  }
  if (leir_program_run(ctx, p, "host", again) != LEIR_OK) w->failures++;
  for (size_t i = 0; i < n; i++)
    if (ti[i].role == LEIR_OUT && memcmp(bufs[i], again[i], ti[i].nbytes)) w->failures++;
  for (size_t i = 0; i < n; i++) {
    if (again[i] != bufs[i]) free(again[i]);
    free(bufs[i]);
  }
  free(bufs);
  free(again);
  free(ti);
}

static void one_round(leir_context *ctx, Work *w, uint64_t *h) {
  for (int k = 0; k < NPROG; k++) {
    leir_program *p = leir_program_parse(ctx, "t.leir", programs[k], NULL);
    if (!p) {
      w->failures++;
      continue;
    }
    leir_candidates *c = leir_candidates_list(ctx, p, NULL);
    if (!c) w->failures++;
    size_t n = leir_candidates_count(c);
    mix(h, &n, sizeof n);
    for (size_t i = 0; i < n; i++) {
      leir_candidate cand;
      if (leir_candidate_get(c, i, &cand) != LEIR_OK) w->failures++;
      mix_str(h, cand.spelling);
      if (i % EVERY) continue;
      const char *cls = NULL;
      leir_program *q = leir_program_apply(ctx, p, cand.spelling, &cls);
      if (!q) {
        w->failures++;
        continue;
      }
      mix_str(h, cls);
      char *t = leir_program_text(q, 1);
      mix_str(h, t);
      leir_free(t);
      run(ctx, q, "interp", w, h);
      run(ctx, q, "host", w, h);
      run_compiled(ctx, q, w, h);
      char *ptx = leir_program_emit(ctx, q, "ptx");
      if (!ptx) w->failures++;
      else mix_str(h, ptx);
      leir_free(ptx);
      double sec = 0;
      if (leir_program_cost(ctx, q, "cuda", &sec) != LEIR_OK) w->failures++;
      mix(h, &sec, sizeof sec);
      w->steps++;
      leir_program_free(q);
    }
    leir_candidates_free(c);
    run(ctx, p, "host", w, h);
    leir_program_free(p);
  }
}

static void *worker(void *arg) {
  Work *w = arg;
  leir_context *ctx = leir_context_new();
  if (!ctx || leir_context_set_option(ctx, "seed", "3") != LEIR_OK) {
    w->failures++;
    return NULL;
  }
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t h = 0xcbf29ce484222325ull;
    one_round(ctx, w, &h);
    w->hash[r] = h;
  }
  leir_context_free(ctx);
  return NULL;
}

static void test_two_threads(void **state) {
  (void)state;
  Work alone = {0};
  worker(&alone);
  assert_int_equal(alone.failures, 0);
  assert_true(alone.steps >= 2 * ROUNDS);
  assert_true(alone.hash[0] == alone.hash[1]);

  Work w[2];
  memset(w, 0, sizeof w);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, worker, &w[i]), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(w[i].failures, 0);
    assert_int_equal(w[i].steps, alone.steps);
    for (int r = 0; r < ROUNDS; r++) assert_true(w[i].hash[r] == alone.hash[r]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
