/* steps_cache.c -- the verdict memo and the on-disk cache of the outputs
 * of the program before the steps (steps_cache.h). */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/steps_cache.h"
#include "ir/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file's first line; a new layout or key gets a new one. */
static const char magic[] = "leirc-steps-cache 3\n";

bool steps_key(StepsKey *k, const IrProgram *p, uint64_t seed, const char *tag, bool fp_contract, bool unsafe_math) {
  memset(k, 0, sizeof *k);
  SBuf b = {0};
  sbuf_printf(&b, "seed %llu; %s; fp-contract %d; unsafe-math %d\n", (unsigned long long)seed, tag ? tag : "",
              fp_contract, unsafe_math);
  ir_print_decls(&b, p, true);
  ir_print_body(&b, p);
  if (!b.s) return false;
  k->text = b.s; /* taken over from b */
  k->len = b.len;
  k->hash = ir_fnv1a(k->text, k->len);
  return true;
}

void steps_key_free(StepsKey *k) {
  free(k->text);
  memset(k, 0, sizeof *k);
}

static bool key_eq(const StepsKey *a, const StepsKey *b) {
  return a->hash == b->hash && a->len == b->len && !memcmp(a->text, b->text, a->len);
}

const StepsMemoEnt *steps_memo_find(StepsMemo *m, const StepsKey *k) {
  for (int i = 0; i < m->n; i++)
    if (key_eq(&m->v[i].key, k)) {
      m->hits++;
      return &m->v[i];
    }
  m->misses++;
  return NULL;
}

bool steps_memo_add(StepsMemo *m, StepsKey *k, int verdict, const char *text) {
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    StepsMemoEnt *v = realloc(m->v, (size_t)cap * sizeof *v);
    if (!v) {
      steps_key_free(k);
      return false;
    }
    m->v = v;
    m->cap = cap;
  }
  char *t = strdup(text ? text : "");
  if (!t) {
    steps_key_free(k);
    return false;
  }
  m->v[m->n++] = (StepsMemoEnt){*k, verdict, t};
  memset(k, 0, sizeof *k);
  return true;
}

void steps_memo_free(StepsMemo *m) {
  for (int i = 0; i < m->n; i++) {
    steps_key_free(&m->v[i].key);
    free(m->v[i].text);
  }
  free(m->v);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ in memory */

/* What an in-memory entry holds of `a`: its outputs, and its intermediates
 * when they fit in STEPS_CACHE_TMP_BYTES (as an entry on disk). */
static bool tmps_fit(InterpProg *a);
static bool on_disk(const InterpBuf *b, bool tmps);

static size_t outputs_bytes(InterpProg *a, bool tmps) {
  size_t n = 0;
  for (int i = 0; i < interp_ntensors(a); i++)
    if (on_disk(interp_buf(a, i), tmps)) n += interp_buf(a, i)->nbytes;
  return n;
}

bool steps_outs_load(StepsOuts *c, const StepsKey *k, InterpProg *a, bool *tmps) {
  for (int e = 0; e < c->n; e++) {
    StepsOutsEnt *x = &c->v[e];
    if (!key_eq(&x->key, k) || x->nbytes != outputs_bytes(a, x->tmps)) continue;
    size_t at = 0;
    for (int i = 0; i < interp_ntensors(a); i++) {
      InterpBuf *b = interp_buf(a, i);
      if (!on_disk(b, x->tmps)) continue;
      memcpy(b->data, x->data + at, b->nbytes);
      at += b->nbytes;
    }
    x->used = ++c->clock;
    c->hits++;
    if (tmps) *tmps = x->tmps;
    return true;
  }
  c->misses++;
  return false;
}

static void outs_drop(StepsOuts *c, int e) {
  steps_key_free(&c->v[e].key);
  free(c->v[e].data);
  c->v[e] = c->v[--c->n];
}

void steps_outs_store(StepsOuts *c, StepsKey *k, InterpProg *a) {
  bool with = tmps_fit(a);
  size_t n = outputs_bytes(a, with), total = n;
  for (int e = 0; e < c->n; e++)
    if (key_eq(&c->v[e].key, k)) { /* already kept */
      steps_key_free(k);
      return;
    }
  unsigned char *data = n <= STEPS_OUTS_BYTES ? malloc(n ? n : 1) : NULL;
  if (!data) {
    steps_key_free(k);
    return;
  }
  size_t at = 0;
  for (int i = 0; i < interp_ntensors(a); i++) {
    InterpBuf *b = interp_buf(a, i);
    if (!on_disk(b, with)) continue;
    memcpy(data + at, b->data, b->nbytes);
    at += b->nbytes;
  }
  for (int e = 0; e < c->n; e++) total += c->v[e].nbytes;
  /* room: the least recently used entries go */
  while (c->n > 0 && (c->n == STEPS_OUTS_MAX || total > STEPS_OUTS_BYTES)) {
    int lru = 0;
    for (int e = 1; e < c->n; e++)
      if (c->v[e].used < c->v[lru].used) lru = e;
    total -= c->v[lru].nbytes;
    outs_drop(c, lru);
  }
  c->v[c->n++] = (StepsOutsEnt){*k, data, n, ++c->clock, with};
  memset(k, 0, sizeof *k);
}

void steps_outs_free(StepsOuts *c) {
  while (c->n > 0) outs_drop(c, c->n - 1);
  memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ on disk */

/* DIR/HASH.out: the magic line, the key's length (u64) and bytes, the
 * number of tensors (u64) and one byte per tensor in tensor order, 1 where
 * the entry holds its final value (every output, the intermediates kept),
 * else 0; then for each tensor held, in tensor order, its size (u64) and
 * bytes. */
static char *entry_path(const char *dir, const StepsKey *k, const char *suffix) {
  size_t n = strlen(dir) + strlen(suffix) + 64;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%016llx%s", dir, (unsigned long long)k->hash, suffix);
  return s;
}

/* Whether an entry of `a` keeps all its intermediates: when they are at
 * most STEPS_CACHE_TMP_BYTES in all. */
static bool tmps_fit(InterpProg *a) {
  size_t n = 0;
  for (int i = 0; i < interp_ntensors(a); i++)
    if (interp_buf(a, i)->t->role == ROLE_TMP) n += interp_buf(a, i)->nbytes;
  return n <= STEPS_CACHE_TMP_BYTES;
}

/* What an entry holds of a tensor: the outputs, and the intermediates
 * with `tmps`. */
static bool on_disk(const InterpBuf *b, bool tmps) {
  return b->t->role == ROLE_OUT || (tmps && b->t->role == ROLE_TMP);
}

bool steps_cache_open(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known,
                      StepsEntry *e) {
  if (e) memset(e, 0, sizeof *e);
  char *path = entry_path(dir, k, ".out");
  FILE *f = path ? fopen(path, "rb") : NULL;
  free(path);
  if (!f) return false;
  bool ok = false, all = true;
  char m[sizeof magic];
  uint64_t len = 0, nt = 0;
  int n = interp_ntensors(a);
  char *key = NULL;
  unsigned char *held = malloc((size_t)n + 1);
  long *off = e ? malloc(((size_t)n + 1) * sizeof *off) : NULL;
  if (!held || (e && !off)) goto out;
  if (fread(m, 1, sizeof magic - 1, f) != sizeof magic - 1 || memcmp(m, magic, sizeof magic - 1)) goto out;
  if (fread(&len, sizeof len, 1, f) != 1 || len != k->len) goto out;
  if (!(key = malloc(k->len + 1)) || fread(key, 1, k->len, f) != k->len || memcmp(key, k->text, k->len)) goto out;
  if (fread(&nt, sizeof nt, 1, f) != 1 || nt != (uint64_t)n || fread(held, 1, (size_t)n, f) != (size_t)n) goto out;
  for (int i = 0; i < n; i++) {
    IrRole r = interp_buf(a, i)->t->role;
    if (held[i] > 1 || (held[i] && r != ROLE_OUT && r != ROLE_TMP) || (!held[i] && r == ROLE_OUT)) goto out;
    if (r == ROLE_TMP && !held[i]) all = false;
  }
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(a, i);
    if (off) off[i] = -1;
    if (!held[i]) continue;
    uint64_t sz = 0;
    if (fread(&sz, sizeof sz, 1, f) != 1 || sz != b->nbytes) goto out;
    if (off && b->t->role == ROLE_TMP) { /* read when needed: its place */
      off[i] = ftell(f);
      if (off[i] < 0 || fseek(f, (long)b->nbytes, SEEK_CUR) != 0) goto out;
      continue;
    }
    if (fread(b->data, 1, b->nbytes, f) != b->nbytes) goto out;
  }
  ok = fgetc(f) == EOF; /* nothing after the last tensor */
  if (ok && tmps) *tmps = all;
  for (int i = 0; ok && known && i < n; i++) known[i] = held[i] && interp_buf(a, i)->t->role == ROLE_TMP;
out:
  free(key);
  free(held);
  if (ok && e) {
    e->f = f;
    e->off = off;
    e->n = n;
  } else {
    free(off);
    fclose(f);
  }
  return ok;
}

bool steps_cache_load(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known) {
  return steps_cache_open(dir, k, a, tmps, known, NULL);
}

bool steps_cache_fetch(StepsEntry *e, InterpProg *a, const unsigned char *want) {
  bool ok = true;
  for (int i = 0; e->f && i < e->n && i < interp_ntensors(a); i++) {
    if (!want[i] || e->off[i] < 0) continue;
    InterpBuf *b = interp_buf(a, i);
    if (fseek(e->f, e->off[i], SEEK_SET) != 0 || fread(b->data, 1, b->nbytes, e->f) != b->nbytes) ok = false;
    else e->off[i] = -1;
  }
  return ok;
}

void steps_cache_close(StepsEntry *e) {
  if (e->f) fclose(e->f);
  free(e->off);
  memset(e, 0, sizeof *e);
}

/* Per tensor of `a`, whether an entry holds it: the outputs; every
 * intermediate when they fit in STEPS_CACHE_TMP_BYTES, else with live
 * those it marks, in tensor order while they fit in
 * STEPS_CACHE_KEEP_BYTES in all. */
static void entry_held(InterpProg *a, const unsigned char *live, unsigned char *held) {
  bool with = tmps_fit(a);
  size_t kept = 0;
  for (int i = 0; i < interp_ntensors(a); i++) {
    InterpBuf *b = interp_buf(a, i);
    held[i] = on_disk(b, with);
    if (held[i] || !live || !live[i] || b->t->role != ROLE_TMP || b->nbytes > STEPS_CACHE_KEEP_BYTES - kept) continue;
    held[i] = 1;
    kept += b->nbytes;
  }
}

bool steps_cache_store(const char *dir, const StepsKey *k, InterpProg *a, const unsigned char *live) {
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
  char *tmp = entry_path(dir, k, suffix), *path = entry_path(dir, k, ".out");
  int n = interp_ntensors(a);
  unsigned char *held = malloc((size_t)n + 1);
  FILE *f = tmp && path && held ? fopen(tmp, "wb") : NULL;
  bool ok = f != NULL;
  if (f) {
    entry_held(a, live, held);
    uint64_t len = k->len, nt = (uint64_t)n;
    ok = fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 && fwrite(&len, sizeof len, 1, f) == 1 &&
         fwrite(k->text, 1, k->len, f) == k->len && fwrite(&nt, sizeof nt, 1, f) == 1 &&
         fwrite(held, 1, (size_t)n, f) == (size_t)n;
    for (int i = 0; ok && i < n; i++) {
      InterpBuf *b = interp_buf(a, i);
      if (!held[i]) continue;
      uint64_t sz = b->nbytes;
      ok = fwrite(&sz, sizeof sz, 1, f) == 1 && fwrite(b->data, 1, b->nbytes, f) == b->nbytes;
    }
    ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) remove(tmp);
  }
  free(held);
  free(tmp);
  free(path);
  return ok;
}
