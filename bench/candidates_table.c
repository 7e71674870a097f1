/* candidates_table.c -- the number of candidates and of legal candidates per
 * strategy over the whole corpus (issue 39: the value analysis must not make
 * any strategy lose a legal candidate).  For every corpus program, every
 * implemented pass enumerates its candidates and checks each
 * (pass_enumerate_all, as `leirc --list-applicable` does; nothing applied,
 * nothing interpreted).
 *   bench/candidates_table [CORPUS_DIR]   (default ../shared/corpus)
 * Prints one line per implemented strategy: name, candidates enumerated,
 * legal, and an FNV-1a digest of the legal candidates' spellings (program
 * name + spelling, in corpus order) so that two builds can be compared
 * exactly, then the totals; exit status 77 when the corpus is absent.
 * With CANDIDATES_LIST=1 in the environment, every legal candidate also
 * goes to stderr, one a line: program, strategy, spelling (tab-separated),
 * to find the candidates behind a changed digest. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_prog.h"
#include "ir/ir.h"
#include "passes/pass.h"
#include "testsuite/corpus_walk.h"

typedef struct Row {
  long raw, legal;
  uint64_t digest;
} Row;

static uint64_t fnv(uint64_t h, const char *s) {
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ull;
  }
  h ^= 0xff;
  h *= 1099511628211ull;
  return h;
}

static void table_program(const char *name, const char *leir, const char *decls, Row *rows, bool list) {
  BenchProg bp;
  if (!bench_prog_load(&bp, leir, decls)) return;
  LeirCtx *ctx = &bp.ctx;
  if (bp.p) {
    for (int i = 0; i < pass_table_size; i++) {
      const PassInfo *pass = &pass_table[i];
      if (!pass->impl) continue;
      PtrVec raw = {0}, reasons = {0};
      pass_enumerate_all(ctx, bp.p, pass, &raw, &reasons);
      rows[i].raw += raw.n;
      for (int k = 0; k < raw.n; k++) {
        if (reasons.v[k]) continue;
        rows[i].legal++;
        rows[i].digest = fnv(fnv(rows[i].digest, name), pass_cand_spelling(ctx, raw.v[k]));
        if (list) fprintf(stderr, "%s\t%s\t%s\n", name, pass->name, pass_cand_spelling(ctx, raw.v[k]));
      }
    }
  }
  bench_prog_free(&bp);
}

int main(int argc, char **argv) {
  const char *corpus = argc > 1 ? argv[1] : "../shared/corpus";
  const char *le = getenv("CANDIDATES_LIST");
  bool list = le && *le && strcmp(le, "0");
  Row *rows = calloc((size_t)pass_table_size, sizeof *rows);
  if (!rows) return 1;
  for (int i = 0; i < pass_table_size; i++) rows[i].digest = 14695981039346656037ull;
  /* sorted by name, so that the digests do not depend on the directory
   * order; a program is named by its file name (NAME.leir) in the digests */
  CorpusProg *progs;
  int programs = corpus_list(corpus, &progs);
  for (int k = 0; k < programs; k++) {
    const char *file = strrchr(progs[k].leir, '/');
    table_program(file ? file + 1 : progs[k].leir, progs[k].leir, progs[k].decls, rows, list);
  }
  corpus_list_free(progs, programs);
  if (!programs) {
    fprintf(stderr, "candidates_table: no corpus at %s\n", corpus);
    free(rows);
    return 77;
  }
  printf("%d corpus programs\n", programs);
  printf("%-44s %9s %9s  %s\n", "strategy", "enum", "legal", "digest of legal spellings");
  long traw = 0, tlegal = 0;
  for (int i = 0; i < pass_table_size; i++) {
    if (!pass_table[i].impl) continue;
    printf("%-44s %9ld %9ld  %016llx\n", pass_table[i].name, rows[i].raw, rows[i].legal,
           (unsigned long long)rows[i].digest);
    traw += rows[i].raw;
    tlegal += rows[i].legal;
  }
  printf("%-44s %9ld %9ld\n", "total", traw, tlegal);
  free(rows);
  return 0;
}
