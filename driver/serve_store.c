/* serve_store.c -- the programs `leirc --serve` keeps between requests: a
 * bounded table of canonical texts by id, least recently used evicted
 * first (leirc(1), SERVER). */
#define _POSIX_C_SOURCE 200809L
#include "driver/serve.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void srv_store_init(SrvStore *st, int max) {
  memset(st, 0, sizeof *st);
  st->max = max > 0 ? max : SRV_DEFAULT_MAX_PROGRAMS;
  st->next_id = 1;
}

static void drop(SrvStore *st, int i) {
  st->bytes -= strlen(st->v[i].text);
  free(st->v[i].text);
  json_decref(st->v[i].history);
  st->v[i] = st->v[--st->n];
}

void srv_store_free(SrvStore *st) {
  while (st->n) drop(st, st->n - 1);
  free(st->v);
  memset(st, 0, sizeof *st);
}

static void evict_oldest(SrvStore *st) {
  int old = 0;
  for (int i = 1; i < st->n; i++)
    if (st->v[i].used < st->v[old].used) old = i;
  drop(st, old);
}

const char *srv_store_add(SrvStore *st, const char *text, json_t *history) {
  size_t len = strlen(text);
  while (st->n && (st->n >= st->max || st->bytes + len > SRV_MAX_STORE_BYTES)) evict_oldest(st);
  if (st->n == st->cap) {
    int cap = st->cap ? st->cap * 2 : 16;
    SrvProgram *v = realloc(st->v, (size_t)cap * sizeof *v);
    if (!v) return NULL;
    st->v = v;
    st->cap = cap;
  }
  char *copy = strdup(text);
  if (!copy) return NULL;
  SrvProgram *p = &st->v[st->n++];
  snprintf(p->id, sizeof p->id, "p%" PRIu64, st->next_id++);
  p->text = copy;
  p->history = history;
  p->used = ++st->clock;
  st->bytes += len;
  return p->id;
}

SrvProgram *srv_store_get(SrvStore *st, const char *id, char *why, size_t n) {
  for (int i = 0; i < st->n; i++)
    if (!strcmp(st->v[i].id, id)) {
      st->v[i].used = ++st->clock;
      return &st->v[i];
    }
  char *end;
  uint64_t k = id[0] == 'p' && id[1] >= '1' && id[1] <= '9' ? strtoull(id + 1, &end, 10) : 0;
  if (k && !*end && k < st->next_id)
    snprintf(why, n, "program '%s' was evicted: the server keeps the %d programs used last (--max-programs)", id,
             st->max);
  else
    snprintf(why, n, "unknown program '%.64s' (ids are the 'program' values of load_program and apply_step)", id);
  return NULL;
}
