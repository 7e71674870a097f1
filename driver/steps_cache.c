/* steps_cache.c -- the verdict memo and the on-disk cache of the outputs
 * of the program before the steps (steps_cache.h). */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "driver/steps_cache.h"
#include "ir/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

/* The file's first line; a new layout or key gets a new one. */
static const char magic[] = "leirc-steps-cache 4\n";

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
 * else 0, the size (u64) of each tensor held in tensor order; then the
 * bytes of each tensor held, in tensor order, each from the next multiple
 * of 64 bytes, or of ENTRY_PAGE bytes when it has at least
 * STEPS_CACHE_MAP_BYTES (zero bytes in between), nothing after the last:
 * those are mapped into the buffers of the program that reads them
 * (interp_buf_map: no copy, no fresh zeroed pages), the small ones read. */
enum { ENTRY_PAGE = 4096 };

static uint64_t entry_place(uint64_t at, size_t nbytes) {
  uint64_t al = nbytes >= STEPS_CACHE_MAP_BYTES ? ENTRY_PAGE : 64;
  return (at + al - 1) / al * al;
}

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

/* n bytes at off of fd into p; false when they are not all there. */
static bool pread_all(int fd, void *p, size_t n, uint64_t off) {
  unsigned char *q = p;
  while (n > 0) {
    ssize_t r = pread(fd, q, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    q += r;
    n -= (size_t)r;
    off += (uint64_t)r;
  }
  return true;
}

/* Whether fd's file may be mapped: not on a network or FUSE file system,
 * where a file replaced or removed by another machine can make a mapped
 * page unreadable (SIGBUS) where read(2) reports an error. */
static bool may_map(int fd) {
#ifdef __linux__
  static const unsigned long remote[] = {
      0x6969,     /* NFS */
      0x517B,     /* SMB */
      0xFF534D42, /* CIFS */
      0xFE534D42, /* SMB2 */
      0x65735546, /* FUSE */
      0x00C36400, /* Ceph */
      0x5346414F, /* AFS */
      0x01021997, /* 9P */
      0x01161970, /* GFS2 */
      0x7461636F, /* OCFS2 */
      0x0BD00BD0, /* Lustre */
  };
  struct statfs sf;
  if (fstatfs(fd, &sf) != 0) return false;
  for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++)
    if ((unsigned long)(uint32_t)sf.f_type == remote[i]) return false;
  return true;
#else
  (void)fd;
  return true;
#endif
}

/* Tensor i of `a` from its bytes at off of fd: mapped when it is large
 * enough (and map), else (or when it cannot be mapped) read. */
static bool entry_take(int fd, bool map, InterpProg *a, int i, uint64_t off, int64_t *at) {
  InterpBuf *b = interp_buf(a, i);
  if (map && b->nbytes >= STEPS_CACHE_MAP_BYTES && interp_buf_map(a, i, fd, (int64_t)off)) {
    if (at) at[i] = (int64_t)off;
    return true;
  }
  return pread_all(fd, b->data, b->nbytes, off);
}

bool steps_cache_open(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known,
                      StepsEntry *e) {
  if (e) memset(e, 0, sizeof *e);
  char *path = entry_path(dir, k, ".out");
  int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  free(path);
  if (fd < 0) return false;
  bool ok = false, all = true;
  char m[sizeof magic];
  uint64_t len = 0, nt = 0, at = 0, end;
  int n = interp_ntensors(a);
  char *key = NULL;
  unsigned char *held = malloc((size_t)n + 1);
  uint64_t *sz = malloc(((size_t)n + 1) * sizeof *sz), *off = malloc(((size_t)n + 1) * sizeof *off);
  int64_t *mat = e ? malloc(((size_t)n + 1) * sizeof *mat) : NULL;
  struct stat st;
  if (!held || !sz || !off || (e && !mat) || fstat(fd, &st) != 0) goto out;
  for (int i = 0; mat && i < n; i++) mat[i] = -1;
  bool map = may_map(fd);
  if (!pread_all(fd, m, sizeof magic - 1, at) || memcmp(m, magic, sizeof magic - 1)) goto out;
  at += sizeof magic - 1;
  if (!pread_all(fd, &len, sizeof len, at) || len != k->len) goto out;
  at += sizeof len;
  if (!(key = malloc(k->len + 1)) || !pread_all(fd, key, k->len, at) || memcmp(key, k->text, k->len)) goto out;
  at += k->len;
  if (!pread_all(fd, &nt, sizeof nt, at) || nt != (uint64_t)n || !pread_all(fd, held, (size_t)n, at + sizeof nt))
    goto out;
  at += sizeof nt + (uint64_t)n;
  int nh = 0;
  for (int i = 0; i < n; i++) {
    IrRole r = interp_buf(a, i)->t->role;
    if (held[i] > 1 || (held[i] && r != ROLE_OUT && r != ROLE_TMP) || (!held[i] && r == ROLE_OUT)) goto out;
    if (r == ROLE_TMP && !held[i]) all = false;
    nh += held[i];
  }
  if (!pread_all(fd, sz, (size_t)nh * sizeof *sz, at)) goto out;
  end = at + (uint64_t)nh * sizeof *sz;
  for (int i = 0, h = 0; i < n; i++) {
    off[i] = UINT64_MAX;
    if (!held[i]) continue;
    if (sz[h++] != interp_buf(a, i)->nbytes) goto out;
    off[i] = entry_place(end, interp_buf(a, i)->nbytes);
    end = off[i] + interp_buf(a, i)->nbytes;
  }
  /* nothing after the last tensor; the intermediates read later may be
     cut short (their fetch fails), the outputs (and all when read now)
     not */
  if ((uint64_t)st.st_size > end || (!e && (uint64_t)st.st_size != end)) goto out;
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(a, i);
    if (!held[i] || (e && b->t->role == ROLE_TMP)) continue; /* read when needed */
    if (off[i] + b->nbytes > (uint64_t)st.st_size || !entry_take(fd, map, a, i, off[i], mat)) goto out;
  }
  ok = true;
  if (tmps) *tmps = all;
  for (int i = 0; known && i < n; i++) known[i] = held[i] && interp_buf(a, i)->t->role == ROLE_TMP;
out:
  free(key);
  free(sz);
  if (ok && e) {
    e->open = true;
    e->fd = fd;
    e->n = n;
    e->off = (int64_t *)off; /* the same bytes: -1 where not held */
    e->at = mat;
    e->map = map;
    for (int i = 0; i < n; i++)
      if (!held[i] || interp_buf(a, i)->t->role != ROLE_TMP) e->off[i] = -1;
  } else {
    free(off);
    free(mat);
    close(fd);
  }
  free(held);
  return ok;
}

bool steps_cache_load(const char *dir, const StepsKey *k, InterpProg *a, bool *tmps, unsigned char *known) {
  return steps_cache_open(dir, k, a, tmps, known, NULL);
}

bool steps_cache_fetch(StepsEntry *e, InterpProg *a, const unsigned char *want) {
  bool ok = true;
  struct stat st;
  if (e->open && fstat(e->fd, &st) != 0) return false;
  for (int i = 0; e->open && i < e->n && i < interp_ntensors(a); i++) {
    if (!want[i] || e->off[i] < 0) continue;
    InterpBuf *b = interp_buf(a, i);
    /* cut short meanwhile (in place, by another process): not read, and
       never mapped past the file's end */
    if ((uint64_t)e->off[i] + b->nbytes > (uint64_t)st.st_size || !entry_take(e->fd, e->map, a, i, (uint64_t)e->off[i], e->at))
      ok = false;
    else e->off[i] = -1;
  }
  return ok;
}

bool steps_cache_share(const StepsEntry *e, InterpProg *a, int ai, InterpProg *b, int bi) {
  if (!e->open || ai < 0 || ai >= e->n || ai >= interp_ntensors(a) || e->at[ai] < 0) return false;
  InterpBuf *x = interp_buf(a, ai), *y = interp_buf(b, bi);
  return x->mapped && y->nbytes == x->nbytes && interp_buf_map(b, bi, e->fd, e->at[ai]);
}

void steps_cache_close(StepsEntry *e) {
  if (e->open) close(e->fd);
  free(e->off);
  free(e->at);
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

/* n zero bytes to f (padding); false on a write error. */
static bool put_zeros(FILE *f, uint64_t n) {
  static const unsigned char zero[ENTRY_PAGE];
  while (n > 0) {
    size_t c = n < sizeof zero ? (size_t)n : sizeof zero;
    if (fwrite(zero, 1, c, f) != c) return false;
    n -= c;
  }
  return true;
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
    uint64_t len = k->len, nt = (uint64_t)n, at;
    ok = fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 && fwrite(&len, sizeof len, 1, f) == 1 &&
         fwrite(k->text, 1, k->len, f) == k->len && fwrite(&nt, sizeof nt, 1, f) == 1 &&
         fwrite(held, 1, (size_t)n, f) == (size_t)n;
    at = sizeof magic - 1 + sizeof len + k->len + sizeof nt + (uint64_t)n;
    for (int i = 0; ok && i < n; i++) {
      uint64_t sz = interp_buf(a, i)->nbytes;
      if (held[i]) ok = fwrite(&sz, sizeof sz, 1, f) == 1, at += sizeof sz;
    }
    for (int i = 0; ok && i < n; i++) {
      InterpBuf *b = interp_buf(a, i);
      if (!held[i]) continue;
      uint64_t to = entry_place(at, b->nbytes);
      ok = put_zeros(f, to - at) && fwrite(b->data, 1, b->nbytes, f) == b->nbytes;
      at = to + b->nbytes;
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
