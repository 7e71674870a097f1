/* readfile.c -- see readfile.h. */
#include "ir/readfile.h"

#include <stdio.h>
#include <stdlib.h>

char *leir_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 14, n = 0, got;
  char *b = malloc(cap);
  /* read until the end, growing the buffer (no seeking: pipes work too) */
  while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      char *nb = cap <= (size_t)-1 / 2 ? realloc(b, cap * 2) : NULL;
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap *= 2;
    }
  }
  if (b && ferror(f)) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (!b) return NULL;
  b[n] = '\0';
  if (len) *len = n;
  return b;
}
