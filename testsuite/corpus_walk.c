/* corpus_walk.c -- see corpus_walk.h. */
#define _POSIX_C_SOURCE 200809L
#include "testsuite/corpus_walk.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "ir/ir.h"

/* Prints into a new buffer of `cap` bytes (enough for what it prints). */
static char *alloc_printf(size_t cap, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *alloc_printf(size_t cap, const char *fmt, ...) {
  char *s = malloc(cap);
  if (!s) abort();
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s, cap, fmt, ap);
  va_end(ap);
  return s;
}

int corpus_walk(const char *corpus, CorpusFn fn, void *arg) {
  int n = 0;
  for (int lv = 1; lv <= 2; lv++) {
    char *dir = alloc_printf(strlen(corpus) + 32, "%s/programs/level%d", corpus, lv);
    DIR *d = opendir(dir);
    if (!d) {
      free(dir);
      continue;
    }
    size_t ldir = strlen(dir);
    struct dirent *de;
    while ((de = readdir(d))) {
      size_t l = strlen(de->d_name);
      if (l < 6 || strcmp(de->d_name + l - 5, ".leir")) continue;
      int stem = (int)(l - 5);
      CorpusEntry e = {lv, de->d_name, NULL, NULL, NULL};
      char *name = alloc_printf(l + 16, "level%d/%.*s", lv, stem, de->d_name);
      char *leir = alloc_printf(ldir + l + 2, "%s/%s", dir, de->d_name);
      char *decls = alloc_printf(ldir + l + 16, "%s/%.*s.decls.json", dir, stem, de->d_name);
      e.name = name;
      e.leir = leir;
      e.decls = decls;
      fn(&e, arg);
      n++;
      free(name);
      free(leir);
      free(decls);
    }
    closedir(d);
    free(dir);
  }
  return n;
}

typedef struct CorpusVec {
  CorpusProg *v;
  int n, cap;
} CorpusVec;

static char *dup(const char *s) { return alloc_printf(strlen(s) + 1, "%s", s); }

static void add_prog(const CorpusEntry *e, void *arg) {
  CorpusVec *l = arg;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
    if (!l->v) abort();
  }
  struct stat st;
  l->v[l->n++] = (CorpusProg){dup(e->name), dup(e->leir), stat(e->decls, &st) == 0 ? dup(e->decls) : NULL};
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const CorpusProg *)a)->name, ((const CorpusProg *)b)->name);
}

int corpus_list(const char *corpus, CorpusProg **out) {
  CorpusVec l = {NULL, 0, 0};
  corpus_walk(corpus, add_prog, &l);
  if (l.n) qsort(l.v, (size_t)l.n, sizeof *l.v, by_name);
  *out = l.v;
  return l.n;
}

void corpus_list_free(CorpusProg *v, int n) {
  for (int i = 0; i < n; i++) {
    free(v[i].name);
    free(v[i].leir);
    free(v[i].decls);
  }
  free(v);
}

IrProgram *corpus_load(LeirCtx *ctx, const char *name, const char *text, const char *decls, FILE *diag) {
  leir_ctx_init(ctx);
  ctx->diag_out = diag;
  ctx->no_warnings = true;
  leir_ctx_set_source(ctx, name, text, strlen(text));
  IrProgram *p = ps_parse(ctx);
  if (!p) return NULL;
  IrDeclList side = {0};
  if (decls && !ir_decls_load_json(ctx, decls, &side)) return NULL;
  if (!ir_sema(ctx, p, decls ? &side : NULL)) return NULL;
  return p;
}

static void count_work(const IrNest *n, int64_t outer, int64_t *w) {
  int64_t e = outer;
  for (int i = 0; i < n->nloops; i++)
    if (__builtin_mul_overflow(e, n->loops[i]->extent, &e)) e = INT64_MAX / 4;
  for (int k = 0; k < n->nitems; k++) {
    if (n->items[k].kind == ITEM_NEST) count_work(n->items[k].u.nest, e, w);
    else if (__builtin_add_overflow(*w, e, w)) *w = INT64_MAX / 4;
  }
}

int64_t corpus_work(const IrProgram *p) {
  int64_t w = 0;
  for (int i = 0; i < p->nnests; i++) count_work(p->nests[i], 1, &w);
  return w;
}

int corpus_compare(LeirCtx *ctx, const IrProgram *a, const IrProgram *b, int tol, FILE *diag) {
  InterpOptions ro = {false, 0};
  FILE *saved = ctx->diag_out;
  if (diag) ctx->diag_out = diag;
  InterpProg *x = interp_new(ctx, a, &ro), *y = x ? interp_new(ctx, b, &ro) : NULL;
  int v = -1;
  if (x && y && interp_same_signature(ctx, a, b, "before", "after")) {
    InterpCompareOpts co = {1, 0, (CmpTolerance)tol, ro, 0, NULL, NULL, NULL};
    InterpDiff d;
    if (interp_compare_progs(x, y, &co, &d) == 0) v = (int)d.verdict;
  }
  if (x) interp_free(x);
  if (y) interp_free(y);
  ctx->diag_out = saved;
  return v;
}
