/* corpus_walk.c -- see corpus_walk.h. */
#define _POSIX_C_SOURCE 200809L
#include "testsuite/corpus_walk.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
