/* data.c -- inputs and outputs of interpreted programs (see data.h). */
#include "interp/data.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"
#include "interp/ops.h"
#include "interp/rng.h"

const char *interp_npy_descr(IrDType t) {
  switch (t) {
  case DT_F16: return "f2";
  case DT_BF16: return "u2";
  case DT_F32: return "f4";
  case DT_F64: return "f8";
  case DT_I8: return "i1";
  case DT_I16: return "i2";
  case DT_I32: return "i4";
  case DT_I64: return "i8";
  case DT_U8: return "u1";
  case DT_U16: return "u2";
  case DT_U32: return "u4";
  case DT_U64: return "u8";
  case DT_BOOL: return "b1";
  default: return "?";
  }
}

static void shape_text(char *out, size_t n, int rank, const int64_t *shape) {
  size_t k = (size_t)snprintf(out, n, "[");
  for (int d = 0; d < rank && k < n; d++)
    k += (size_t)snprintf(out + k, n - k, "%s%lld", d ? "," : "", (long long)shape[d]);
  if (k < n) snprintf(out + k, n - k, "]");
}

/* Reports an error about a data file (its name as the diagnostic's file). */
static void file_error(InterpProg *ip, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void file_error(InterpProg *ip, const char *path, const char *fmt, ...) {
  LeirCtx *ctx = interp_ctx(ip);
  LeirSource saved = ctx->src;
  ctx->src.name = path;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(ctx, (IrLoc){0, 0}, fmt, ap);
  va_end(ap);
  ctx->src = saved;
}

bool interp_load_npy(InterpProg *ip, InterpBuf *b, const char *path) {
  NpyArray a;
  char err[512];
  const IrTensor *t = b->t;
  if (npy_read(path, &a, err, sizeof err) != 0) {
    diag_error(interp_ctx(ip), (IrLoc){0, 0}, "cannot read input '%s': %s", t->name, err);
    return false;
  }
  bool ok = true;
  const char *want = interp_npy_descr(t->dtype);
  char have_s[128], want_s[128];
  shape_text(have_s, sizeof have_s, a.ndim, a.shape);
  shape_text(want_s, sizeof want_s, t->rank, t->shape);
  if (strcmp(a.descr, want) != 0) {
    file_error(ip, path, "dtype '%s' does not match input '%s', which is %s (expected '%s'%s)", a.descr,
               t->name, ir_dtype_name(t->dtype), want, t->dtype == DT_BF16 ? ": raw bfloat16 bits" : "");
    ok = false;
  }
  bool same = a.ndim == t->rank;
  for (int d = 0; same && d < t->rank; d++) same = a.shape[d] == t->shape[d];
  if (!same) {
    file_error(ip, path, "shape %s does not match input '%s', which is declared %s%s", have_s, t->name,
               ir_dtype_name(t->dtype), want_s);
    ok = false;
  }
  if (ok) memcpy(b->data, a.data, b->nbytes);
  npy_free(&a);
  return ok;
}

/* ------------------------------------------------------------ random inputs */

typedef struct IdxUse {
  const IrProgram *p;
  int64_t *ext; /* per tensor id: smallest extent indexed, 0 = none */
  int64_t cur;  /* extent of the dimension being walked */
} IdxUse;

static void note_index_read(IrExpr *e, void *user) {
  IdxUse *u = user;
  if (e->kind != E_REF || !e->u.ref->tensor) return;
  int id = e->u.ref->tensor->id;
  if (u->ext[id] == 0 || u->cur < u->ext[id]) u->ext[id] = u->cur;
}

static void scan_ref(IrExpr *e, void *user) {
  IdxUse *u = user;
  if (e->kind != E_REF || !e->u.ref->tensor) return;
  const IrRef *r = e->u.ref;
  for (int d = 0; d < r->nsub && d < r->tensor->rank; d++) {
    u->cur = r->tensor->shape[d];
    ir_walk_expr(r->sub[d], note_index_read, u);
  }
}

/* Smallest extent each tensor is used to index (0 if never in a subscript). */
static int64_t *index_extents(const IrProgram *p) {
  IdxUse u = {p, calloc(p->ntensors > 0 ? (size_t)p->ntensors : 1, sizeof(int64_t)), 0};
  if (!u.ext) return NULL;
  for (int i = 0; i < p->nstmts; i++) {
    IrExpr lhs = {.kind = E_REF};
    lhs.u.ref = p->stmts[i]->lhs;
    ir_walk_expr(&lhs, scan_ref, &u);
    ir_walk_expr(p->stmts[i]->rhs, scan_ref, &u);
  }
  return u.ext;
}

/* The normals of a float tensor are drawn this many at a time
 * (rng_normal_fill: the bits of one rng_normal each). */
enum { FILL_BLOCK = 1024 };

static void fill_float(InterpBuf *b, LeirRng *r) {
  IrDType t = b->t->dtype;
  bool small = true, zero = false;
  double x[FILL_BLOCK];
  for (int64_t k0 = 0; k0 < b->numel; k0 += FILL_BLOCK) {
    int64_t n = b->numel - k0 < FILL_BLOCK ? b->numel - k0 : FILL_BLOCK;
    rng_normal_fill(r, x, (size_t)n);
    if (t == DT_F32) { /* op_convert's (float) and op_store, inline */
      float *o = (float *)b->data + k0;
      for (int64_t i = 0; i < n; i++) {
        float f = (float)x[i];
        o[i] = f;
        small &= fabs((double)f) < 10;
        zero |= f == 0;
      }
    } else if (t == DT_F64) {
      double *o = (double *)b->data + k0;
      for (int64_t i = 0; i < n; i++) {
        o[i] = x[i];
        small &= fabs(x[i]) < 10;
        zero |= x[i] == 0;
      }
    } else {
      for (int64_t i = 0; i < n; i++) {
        IVal v;
        v.d = x[i];
        v = op_convert(v, DT_F64, t);
        op_store(b->data, t, k0 + i, v);
        double y = (double)v.f;
        small &= fabs(y) < 10;
        zero |= y == 0;
      }
    }
  }
  if (!small || zero) return;
  if (t == DT_F32) {
    float *o = b->data;
    for (int64_t k = 0; k < b->numel; k++) o[k] *= 10.0f;
  } else if (t == DT_F64) {
    double *o = b->data;
    for (int64_t k = 0; k < b->numel; k++) o[k] *= 10.0;
  } else {
    IVal ten = op_const(10, t);
    for (int64_t k = 0; k < b->numel; k++)
      op_store(b->data, t, k, op_combine(OP_MUL, t, op_load(b->data, t, k), ten));
  }
}

static void fill_int(InterpBuf *b, LeirRng *r, int64_t extent) {
  IrDType t = b->t->dtype;
  for (int64_t k = 0; k < b->numel; k++) {
    IVal v;
    double u = rng_uniform(r);
    if (t == DT_BOOL) v.i = u >= 0.5;
    else if (extent > 0) v.i = (int64_t)(u * (double)extent);
    else v.i = (int64_t)(u * 16) - (ir_dtype_is_signed_int(t) ? 8 : 0);
    if (extent > 0 && v.i >= extent) v.i = extent - 1;
    op_store(b->data, t, k, op_convert(v, DT_I64, t));
  }
}

static void random_fill(InterpBuf *b, uint64_t seed, int64_t extent) {
  LeirRng r;
  rng_seed(&r, seed, rng_hash_string(b->t->name));
  if (ir_dtype_is_float(b->t->dtype)) fill_float(b, &r);
  else fill_int(b, &r, extent);
}

void interp_random_fill(InterpProg *ip, InterpBuf *b, uint64_t seed) {
  int64_t *ext = index_extents(interp_program(ip));
  random_fill(b, seed, ext ? ext[b->t->id] : 0);
  free(ext);
}

void interp_random_inputs(InterpProg *ip, uint64_t seed, const bool *given) {
  interp_random_inputs_cached(ip, seed, given, NULL);
}

/* ------------------------------------------------------------ the inputs' cache */

/* One input's values as drawn (data), the key everything they depend on;
 * data NULL for an input seen once: its values are kept when it is seen
 * again (an input no later program shares is not copied for nothing). */
struct InterpInputEntry {
  char *name;
  IrDType dtype;
  int rank;
  int64_t *shape;
  uint64_t seed;
  int64_t extent;
  void *data;
  size_t nbytes;
  uint64_t used; /* the cache's clock when last taken */
};

/* At most this many entries, with or without values (the lookup is a
 * linear scan). */
enum { INPUT_CACHE_MAX = 256 };

static void entry_free(struct InterpInputEntry *e) {
  free(e->name);
  free(e->shape);
  free(e->data);
}

static struct InterpInputEntry *cache_find(InterpInputCache *c, const IrTensor *t, uint64_t seed, int64_t extent) {
  for (int i = 0; i < c->n; i++) {
    struct InterpInputEntry *e = &c->e[i];
    if (e->seed != seed || e->dtype != t->dtype || e->rank != t->rank || e->extent != extent ||
        strcmp(e->name, t->name) != 0)
      continue;
    bool same = true;
    for (int d = 0; same && d < t->rank; d++) same = e->shape[d] == t->shape[d];
    if (same) return e;
  }
  return NULL;
}

/* Notes b's key (drawn with seed and extent), with a copy of its values
 * when `values`, dropping the least recently used entries to stay within
 * the bounds; nothing when b alone is over the bound or memory runs out. */
static void cache_put(InterpInputCache *c, const InterpBuf *b, uint64_t seed, int64_t extent, bool values) {
  size_t nb = values ? b->nbytes : 0;
  if (nb > c->max_bytes) return;
  while (c->n > 0 && (c->n == INPUT_CACHE_MAX || c->bytes + nb > c->max_bytes)) {
    int old = 0;
    for (int i = 1; i < c->n; i++)
      if (c->e[i].used < c->e[old].used) old = i;
    c->bytes -= c->e[old].nbytes;
    entry_free(&c->e[old]);
    c->e[old] = c->e[--c->n];
  }
  if (!c->e && !(c->e = calloc(INPUT_CACHE_MAX, sizeof *c->e))) return;
  struct InterpInputEntry e = {.dtype = b->t->dtype, .rank = b->t->rank, .seed = seed, .extent = extent,
                               .nbytes = nb, .used = ++c->clock};
  e.name = strdup(b->t->name);
  e.shape = malloc(((size_t)b->t->rank + 1) * sizeof *e.shape);
  e.data = values ? malloc(nb ? nb : 1) : NULL;
  if (!e.name || !e.shape || (values && !e.data)) {
    entry_free(&e);
    return;
  }
  if (b->t->rank) memcpy(e.shape, b->t->shape, (size_t)b->t->rank * sizeof *e.shape);
  if (values) memcpy(e.data, b->data, nb);
  c->e[c->n++] = e;
  c->bytes += nb;
}

void interp_random_inputs_cached(InterpProg *ip, uint64_t seed, const bool *given, InterpInputCache *cache) {
  int64_t *ext = index_extents(interp_program(ip));
  for (int i = 0; i < interp_ntensors(ip); i++) {
    InterpBuf *b = interp_buf(ip, i);
    if ((b->t->role != ROLE_IN && b->t->role != ROLE_PARAM) || (given && given[i])) continue;
    int64_t extent = ext ? ext[i] : 0;
    struct InterpInputEntry *e = cache && cache->max_bytes ? cache_find(cache, b->t, seed, extent) : NULL;
    if (e && e->data) {
      memcpy(b->data, e->data, b->nbytes);
      e->used = ++cache->clock;
      cache->hits++;
      continue;
    }
    random_fill(b, seed, extent);
    if (!cache || !cache->max_bytes) continue;
    cache->misses++;
    bool seen = e != NULL;
    if (seen) { /* seen before: noted again with its values */
      entry_free(e);
      *e = cache->e[--cache->n];
    }
    cache_put(cache, b, seed, extent, seen);
  }
  free(ext);
}

void interp_input_cache_free(InterpInputCache *cache) {
  for (int i = 0; i < cache->n; i++) entry_free(&cache->e[i]);
  free(cache->e);
  size_t max = cache->max_bytes;
  memset(cache, 0, sizeof *cache);
  cache->max_bytes = max;
}

/* ------------------------------------------------------------ outputs */

bool interp_write_npy(InterpProg *ip, const InterpBuf *b, const char *path) {
  char err[512];
  if (npy_write(path, interp_npy_descr(b->t->dtype), b->t->rank, b->t->shape, b->data, err, sizeof err) != 0) {
    diag_error(interp_ctx(ip), (IrLoc){0, 0}, "cannot write output '%s': %s", b->t->name, err);
    return false;
  }
  return true;
}

bool interp_write_outputs(InterpProg *ip, const char *dir) {
  bool ok = true;
  for (int i = 0; i < interp_ntensors(ip); i++) {
    const InterpBuf *b = interp_buf(ip, i);
    if (b->t->role != ROLE_OUT) continue;
    size_t n = strlen(dir) + strlen(b->t->name) + 8;
    char *path = malloc(n);
    if (!path) return false;
    snprintf(path, n, "%s/%s.npy", dir, b->t->name);
    ok &= interp_write_npy(ip, b, path);
    free(path);
  }
  return ok;
}

void interp_format_elem(char *out, size_t n, IrDType t, const void *data, int64_t k) {
  IVal v = op_load(data, t, k);
  char c = op_class(t);
  if (c != 'i') {
    double x = c == 'd' ? v.d : (double)v.f;
    if (isnan(x)) snprintf(out, n, "nan");
    else if (isinf(x)) snprintf(out, n, "%sinf", x < 0 ? "-" : "");
    else snprintf(out, n, c == 'd' ? "%.17g" : "%.9g", x);
  } else if (op_unsigned(t)) {
    snprintf(out, n, "%llu", (unsigned long long)v.u);
  } else {
    snprintf(out, n, "%lld", (long long)v.i);
  }
}

void interp_print_buf(FILE *f, const InterpBuf *b) {
  const IrTensor *t = b->t;
  char s[128];
  shape_text(s, sizeof s, t->rank, t->shape);
  fprintf(f, "%s %s%s\n", t->name, ir_dtype_name(t->dtype), s);
  int64_t row = t->rank ? t->shape[t->rank - 1] : 1;
  for (int64_t k = 0; k < b->numel; k++) {
    interp_format_elem(s, sizeof s, t->dtype, b->data, k);
    fprintf(f, "%s%s", k % row ? " " : "  ", s);
    if ((k + 1) % row == 0) fputc('\n', f);
  }
}
