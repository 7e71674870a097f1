/* corpus_walk.c -- see corpus_walk.h. */
#define _POSIX_C_SOURCE 200809L
#include "testsuite/corpus_walk.h"

#include <dirent.h>
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
