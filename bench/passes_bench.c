/* passes_bench.c -- the pass manager's speed over the whole corpus, on one
 * core: for every program, every implemented pass enumerates its
 * candidates, checks each, and every legal candidate is applied (a copy of
 * the program, the rewrite, re-analysis and the IR verifier).  This is the
 * work of `leirc --list-applicable` followed by applying every listed
 * spelling.  No interpreter runs (the reference's ~76 candidates/s are also
 * without verification).
 *   bench/passes_bench [CORPUS_DIR]   (default ../shared/corpus)
 * Prints, for the operator+memory passes and for all implemented passes,
 * candidates enumerated, legal, applied, seconds and candidates per second;
 * exit status 77 when the corpus is absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_prog.h"
#include "ir/ir.h"
#include "passes/pass.h"
#include "testsuite/corpus_walk.h"

/* CPU time of the process: the machine may be shared, and wall time would
 * count other processes' turns. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct Tally {
  long raw, legal, applied, failed;
  double t_enum, t_apply;
} Tally;

static void bench_program(const char *leir, const char *decls, Tally *om, Tally *all) {
  BenchProg bp;
  if (!bench_prog_load(&bp, leir, decls)) return;
  LeirCtx *ctx = &bp.ctx;
  IrProgram *p = bp.p;
  if (p) {
    for (int i = 0; i < pass_table_size; i++) {
      const PassInfo *pass = &pass_table[i];
      if (!pass->impl) continue;
      bool opmem = pass->level == PASS_OPERATOR || pass->level == PASS_MEMORY;
      double t0 = now();
      PtrVec raw = {0}, reasons = {0};
      pass_enumerate_all(ctx, p, pass, &raw, &reasons);
      double t1 = now();
      long legal = 0, applied = 0, failed = 0;
      for (int k = 0; k < raw.n; k++) {
        if (reasons.v[k]) continue;
        legal++;
        const char *why;
        if (pass_apply(ctx, p, raw.v[k], &why)) applied++;
        else failed++;
      }
      double t2 = now();
      for (int w = 0; w < 2; w++) {
        Tally *t = w ? all : om;
        if (!w && !opmem) continue;
        t->raw += raw.n;
        t->legal += legal;
        t->applied += applied;
        t->failed += failed;
        t->t_enum += t1 - t0;
        t->t_apply += t2 - t1;
      }
    }
  }
  bench_prog_free(&bp);
}

static void report(const char *what, const Tally *t) {
  double secs = t->t_enum + t->t_apply;
  printf("%s: %ld candidates enumerated and checked, %ld legal, %ld applied (%ld failed) in %.2f s "
         "of CPU time (enumerate+check %.2f s, apply %.2f s): %.0f legal candidates/s enumerated and applied, "
         "%.0f applications/s\n",
         what, t->raw, t->legal, t->applied, t->failed, secs, t->t_enum, t->t_apply,
         secs > 0 ? (double)t->applied / secs : 0.0, t->t_apply > 0 ? (double)t->applied / t->t_apply : 0.0);
}

/* The tallies corpus_walk's callback adds to. */
typedef struct Tallies {
  Tally om, all;
} Tallies;

static void bench_entry(const CorpusEntry *e, void *arg) {
  Tallies *t = arg;
  bench_program(e->leir, e->decls, &t->om, &t->all);
}

int main(int argc, char **argv) {
  const char *corpus = argc > 1 ? argv[1] : "../shared/corpus";
  Tallies t = {{0}, {0}};
  int programs = corpus_walk(corpus, bench_entry, &t);
  Tally om = t.om, all = t.all;
  if (!programs) {
    fprintf(stderr, "passes_bench: no corpus at %s\n", corpus);
    return 77;
  }
  printf("%d corpus programs\n", programs);
  report("operator+memory passes", &om);
  report("all implemented passes", &all);
  return om.failed || all.failed ? 1 : 0;
}
