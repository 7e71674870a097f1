/* corpus_walk.h -- the programs of the corpus (../shared/corpus), for the
 * tests and tools that run over all of them (passes_corpus_test,
 * passes_graph_test, sketch_test, testsuite/fuzz/campaign): where the
 * corpus is, its programs, and loading one.  corpus_walk.c's loading
 * helpers need libleircore. */
#ifndef LEIR_TESTSUITE_CORPUS_WALK_H
#define LEIR_TESTSUITE_CORPUS_WALK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The corpus the tests read, into buf: $LEIR_CORPUS (testsuite/check.sh sets
 * it; configure's LEIR_CORPUS, e.g. for make distcheck, whose source tree
 * has no ../shared), else $top_srcdir/../shared/corpus, `dflt_top` standing
 * in for an unset top_srcdir. */
static inline const char *corpus_dir(char *buf, size_t n, const char *dflt_top) {
  const char *env = getenv("LEIR_CORPUS");
  const char *top = getenv("top_srcdir");
  if (env && *env)
    snprintf(buf, n, "%s", env);
  else
    snprintf(buf, n, "%s/../shared/corpus", top && *top ? top : dflt_top);
  return buf;
}

/* One program: CORPUS/programs/levelN/NAME.leir. */
typedef struct CorpusEntry {
  int level;         /* N: 1 or 2 */
  const char *file;  /* NAME.leir, as the directory lists it */
  const char *name;  /* levelN/NAME */
  const char *leir;  /* CORPUS/programs/levelN/NAME.leir */
  const char *decls; /* CORPUS/programs/levelN/NAME.decls.json (whether it exists or not) */
} CorpusEntry;

/* Called once per program; `e` and its strings last until it returns. */
typedef void (*CorpusFn)(const CorpusEntry *e, void *arg);

/* Calls fn(e, arg) for every file NAME.leir (NAME not empty) of
 * CORPUS/programs/level1, then of CORPUS/programs/level2, in the order the
 * directory lists them (not sorted); a level whose directory does not open
 * is skipped.  Returns the number of calls. */
int corpus_walk(const char *corpus, CorpusFn fn, void *arg);

/* A program of corpus_list: owned copies of the entry's strings. */
typedef struct CorpusProg {
  char *name, *leir;
  char *decls; /* NULL when the file does not exist */
} CorpusProg;

/* Every program corpus_walk visits, sorted by name, into *out (malloc'ed,
 * NULL when none); returns their number.  corpus_list_free frees them. */
int corpus_list(const char *corpus, CorpusProg **out);
void corpus_list_free(CorpusProg *v, int n);

struct LeirCtx;
struct IrProgram;

/* Initialises *ctx (diagnostics to `diag`, warnings off), parses `text`
 * as the source `name` and analyses it with the declarations of the
 * sidecar file `decls` (NULL: none).  NULL after a diagnostic.  The
 * caller frees ctx (leir_ctx_free) in either case; the context keeps a
 * copy of `text`. */
struct IrProgram *corpus_load(struct LeirCtx *ctx, const char *name, const char *text, const char *decls,
                              FILE *diag);

/* The interpreter's verdict (CmpVerdict: CMP_EQUAL, CMP_CLOSE or
 * CMP_DIFFER) on b's outputs against a's, both run on the random inputs of
 * seed 0 and compared under `tol` (a CmpTolerance, interp/compare.h); -1
 * when either cannot run or their signatures differ.  The diagnostics of
 * the runs go to `diag`, or where ctx sends them when `diag` is NULL. */
int corpus_compare(struct LeirCtx *ctx, const struct IrProgram *a, const struct IrProgram *b, int tol, FILE *diag);

/* Statement executions of one run of p: each statement counted once per
 * iteration of the loops around it (INT64_MAX / 4 on overflow). */
int64_t corpus_work(const struct IrProgram *p);

#endif
