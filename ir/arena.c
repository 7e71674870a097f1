/* arena.c -- bump allocation for IR objects; everything is freed at once. */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  ArenaChunk *c = a->head;
  if (!c || c->size - c->used < size) {
    size_t sz = size > ARENA_CHUNK ? size : ARENA_CHUNK;
    c = malloc(sizeof(ArenaChunk) + sz);
    if (!c) {
      fputs("leirc: out of memory\n", stderr);
      exit(2);
    }
    c->used = 0;
    c->size = sz;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  a->total += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

void arena_free_all(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *n = c->next;
    free(c);
    c = n;
  }
  a->head = NULL;
  a->total = 0;
}

void ptrvec_push(Arena *a, PtrVec *pv, void *p) {
  if (pv->n == pv->cap) {
    int cap = pv->cap ? pv->cap * 2 : 8;
    void **v = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (pv->n) memcpy(v, pv->v, sizeof(void *) * (size_t)pv->n);
    pv->v = v;
    pv->cap = cap;
  }
  pv->v[pv->n++] = p;
}
