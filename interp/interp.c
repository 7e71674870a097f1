/* interp.c -- the interpreter's public entry points (interp.h): buffers,
 * runs, error messages. */
#define _POSIX_C_SOURCE 200809L
#include "interp/vm.h"
#include "ir/buffer.h"
#include "ir/memlimit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------ buffers */

/* A buffer of `bytes` from the pool, zeroed unless `zero` is false; NULL
 * when it has none.  The newest of the size first (its pages are the
 * likeliest to be in the caches). */
static void *pool_take(InterpBufPool *pool, size_t bytes, bool zero) {
  if (!pool) return NULL;
  for (int i = pool->n - 1; i >= 0; i--)
    if (pool->nbytes[i] == bytes) {
      void *p = pool->data[i];
      memmove(pool->data + i, pool->data + i + 1, (size_t)(pool->n - 1 - i) * sizeof *pool->data);
      memmove(pool->nbytes + i, pool->nbytes + i + 1, (size_t)(pool->n - 1 - i) * sizeof *pool->nbytes);
      pool->n--;
      pool->bytes -= bytes;
      if (zero) memset(p, 0, bytes);
      pool->reused++;
      return p;
    }
  return NULL;
}

/* At most this many buffers wait in a pool; the oldest go first. */
enum { POOL_MAX = 64 };

static void pool_drop_oldest(InterpBufPool *pool) {
  ir_buffer_free(pool->data[0]);
  pool->bytes -= pool->nbytes[0];
  memmove(pool->data, pool->data + 1, (size_t)(pool->n - 1) * sizeof *pool->data);
  memmove(pool->nbytes, pool->nbytes + 1, (size_t)(pool->n - 1) * sizeof *pool->nbytes);
  pool->n--;
}

static void pool_give(InterpBufPool *pool, void *p, size_t bytes) {
  if (!p) return;
  if (pool->max_bytes && bytes > pool->max_bytes) {
    ir_buffer_free(p);
    return;
  }
  while (pool->n > 0 && (pool->n == POOL_MAX || (pool->max_bytes && pool->bytes + bytes > pool->max_bytes)))
    pool_drop_oldest(pool);
  if (pool->n == pool->cap) {
    int cap = pool->cap ? 2 * pool->cap : 16;
    void **d = realloc(pool->data, (size_t)cap * sizeof *d);
    if (d) pool->data = d;
    size_t *s = d ? realloc(pool->nbytes, (size_t)cap * sizeof *s) : NULL;
    if (s) pool->nbytes = s;
    if (!d || !s) {
      ir_buffer_free(p);
      return;
    }
    pool->cap = cap;
  }
  pool->data[pool->n] = p;
  pool->nbytes[pool->n++] = bytes;
  pool->bytes += bytes;
}

void interp_pool_free(InterpBufPool *pool) {
  for (int i = 0; i < pool->n; i++) ir_buffer_free(pool->data[i]);
  free(pool->data);
  free(pool->nbytes);
  size_t max = pool->max_bytes;
  memset(pool, 0, sizeof *pool);
  pool->max_bytes = max;
}

static bool alloc_bufs(InterpProg *ip) {
  const IrProgram *p = ip->p;
  ip->nbufs = p->ntensors;
  ip->bufs = calloc(p->ntensors > 0 ? (size_t)p->ntensors : 1, sizeof(InterpBuf));
  if (!ip->bufs) return false;
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    InterpBuf *b = &ip->bufs[i];
    b->t = t;
    int64_t n = 1;
    bool big = false;
    for (int d = 0; d < t->rank; d++)
      if (t->shape[d] < 1 || __builtin_mul_overflow(n, t->shape[d], &n)) big = true;
    int64_t bytes;
    if (big || __builtin_mul_overflow(n, (int64_t)ir_dtype_size(t->dtype), &bytes) ||
        bytes > INTERP_MAX_TENSOR_BYTES) {
      diag_error(ip->ctx, t->loc, "tensor '%s' is too large for the interpreter (more than %lld bytes)",
                 t->name, (long long)INTERP_MAX_TENSOR_BYTES);
      return false;
    }
    b->numel = n;
    b->nbytes = (size_t)bytes;
    bool dirty = ip->pool && ip->pool->dirty_ok && ip->pool->dirty_ok[i];
    b->data = pool_take(ip->pool, b->nbytes, !dirty);
    /* zeroed unless dirty_ok, 64-byte aligned (ir/buffer.h) */
    if (!b->data) b->data = dirty ? ir_buffer_alloc_uninit(b->nbytes) : ir_buffer_alloc(b->nbytes);
    if (!b->data) {
      diag_error(ip->ctx, t->loc, "out of memory for tensor '%s' (%lld bytes)", t->name, (long long)bytes);
      return false;
    }
    if (ip->pool && ip->pool->poison_dirty && ip->pool->dirty_ok && ip->pool->dirty_ok[i])
      memset(b->data, 0xFF, b->nbytes);
  }
  return true;
}

/* The poison pattern of one element of dtype t (see interp.h). */
static void poison_elem(IrDType t, unsigned char *out) {
  uint64_t v;
  switch (t) {
  case DT_F64: v = 0x7FF4A5A5A5A5A5A5ull; break;
  case DT_F32: v = 0x7FA5A5A5u; break;
  case DT_F16: v = 0x7CAAu; break;
  case DT_BF16: v = 0x7FA5u; break;
  default: v = 0xAAAAAAAAAAAAAAAAull; break;
  }
  memcpy(out, &v, (size_t)ir_dtype_size(t)); /* little-endian hosts (as npy) */
}

static void reset_buf(InterpBuf *b, bool poison) {
  if (!poison) {
    memset(b->data, 0, b->nbytes);
    return;
  }
  unsigned char pat[8];
  size_t sz = (size_t)ir_dtype_size(b->t->dtype);
  poison_elem(b->t->dtype, pat);
  unsigned char *p = b->data;
  for (int64_t i = 0; i < b->numel; i++) memcpy(p + (size_t)i * sz, pat, sz);
}

static int64_t count_poison(const InterpBuf *b) {
  unsigned char pat[8];
  size_t sz = (size_t)ir_dtype_size(b->t->dtype);
  poison_elem(b->t->dtype, pat);
  const unsigned char *p = b->data;
  int64_t n = 0;
  for (int64_t i = 0; i < b->numel; i++) n += !memcmp(p + (size_t)i * sz, pat, sz);
  return n;
}

/* ------------------------------------------------------------ lifecycle */

InterpProg *interp_new(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts) {
  return interp_new_pooled(ctx, p, opts, NULL);
}

InterpProg *interp_new_pooled(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts, InterpBufPool *pool) {
  InterpProg *ip = calloc(1, sizeof *ip);
  if (!ip) return NULL;
  ip->ctx = ctx;
  ip->p = p;
  ip->pool = pool;
  ip->opt.max_steps = INTERP_DEFAULT_MAX_STEPS;
  if (opts) ip->opt = *opts;
  for (int i = 0; i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    if (t->id != i || !t->shape_known || t->rank < 0 || t->dtype == DT_NONE) {
      diag_error(ctx, t->loc, "internal compiler error: tensor '%s' is not analysed", t->name);
      interp_free(ip);
      return NULL;
    }
  }
  /* --max-memory, before anything is allocated */
  if (!leir_check_memory(ctx, p) || !alloc_bufs(ip) || !vm_compile(ip)) {
    interp_free(ip);
    return NULL;
  }
  ip->regs = malloc(sizeof(IVal) * (size_t)(ip->nregs ? ip->nregs : 1));
  if (!ip->regs) {
    interp_free(ip);
    return NULL;
  }
  return ip;
}

InterpProg *interp_new_uninit(LeirCtx *ctx, const IrProgram *p, const InterpOptions *opts,
                              const unsigned char *dirty_ok, bool poison) {
  InterpBufPool none = {.dirty_ok = dirty_ok, .poison_dirty = poison}; /* empty: every buffer fresh */
  InterpProg *ip = interp_new_pooled(ctx, p, opts, &none);
  if (ip) ip->pool = NULL;
  interp_pool_free(&none); /* a failed one's buffers */
  return ip;
}

void interp_free(InterpProg *ip) {
  if (!ip) return;
  for (int i = 0; i < ip->ntrees; i++) {
    free(ip->trees[i]->row_of);
    free(ip->trees[i]->touched);
    free(ip->trees[i]->rows);
  }
  if (ip->bufs)
    for (int i = 0; i < ip->nbufs; i++) {
      if (ip->bufs[i].mapped) munmap(ip->bufs[i].data, ip->bufs[i].nbytes);
      else if (ip->pool) pool_give(ip->pool, ip->bufs[i].data, ip->bufs[i].nbytes);
      else ir_buffer_free(ip->bufs[i].data);
    }
  free(ip->bufs);
  free(ip->code);
  free(ip->init);
  free(ip->regs);
  arena_free_all(&ip->arena);
  free(ip);
}

bool interp_buf_map(InterpProg *ip, int i, int fd, int64_t off) {
  if (i < 0 || i >= ip->nbufs || off < 0) return false;
  InterpBuf *b = &ip->bufs[i];
  long page = sysconf(_SC_PAGESIZE);
  if (b->nbytes == 0 || page <= 0 || off % page != 0 || (off_t)off != off) return false;
  void *m = mmap(NULL, b->nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)off);
  if (m == MAP_FAILED) return false;
  /* the compiled code holds the buffers' addresses (compile.c's buf_of):
     the old one's become the mapping's */
  void *old = b->data;
  for (int k = 0; k < ip->ncode; k++) {
    Ins *in = &ip->code[k];
    if (in->buf == old) in->buf = m;
    if (in->buf2 == old) in->buf2 = m;
    if (in->buf3 == old) in->buf3 = m;
  }
  for (int k = 0; k < ip->ntrees; k++)
    if (ip->trees[k]->buf == old) ip->trees[k]->buf = m;
  if (b->mapped) munmap(old, b->nbytes);
  else if (ip->pool) pool_give(ip->pool, old, b->nbytes);
  else ir_buffer_free(old);
  b->data = m;
  b->mapped = true;
  return true;
}

int interp_ntensors(const InterpProg *ip) { return ip->nbufs; }
void interp_set_kept(InterpProg *ip, const unsigned char *kept) { ip->kept = kept; }
bool interp_kept(const InterpProg *ip, int id) { return ip->kept && id >= 0 && id < ip->nbufs && ip->kept[id]; }
InterpBuf *interp_buf(InterpProg *ip, int id) { return id >= 0 && id < ip->nbufs ? &ip->bufs[id] : NULL; }
const IrProgram *interp_program(const InterpProg *ip) { return ip->p; }
LeirCtx *interp_ctx(const InterpProg *ip) { return ip->ctx; }
uint64_t interp_steps(const InterpProg *ip) { return ip->steps; }
int interp_ntree_stmts(const InterpProg *ip) { return ip->ntrees; }

InterpBuf *interp_find(InterpProg *ip, const char *name) {
  for (int i = 0; i < ip->nbufs; i++)
    if (!strcmp(ip->bufs[i].t->name, name)) return &ip->bufs[i];
  return NULL;
}

/* ------------------------------------------------------------ errors */

static void print_shape(SBuf *b, int rank, const int64_t *shape) {
  sbuf_putc(b, '[');
  for (int d = 0; d < rank; d++) sbuf_printf(b, "%s%lld", d ? "," : "", (long long)shape[d]);
  sbuf_putc(b, ']');
}

static void report_oob(InterpProg *ip) {
  const RefInfo *ri = ip->err.ref;
  SBuf b = {0};
  sbuf_printf(&b, "out-of-bounds %s of %s[", ri->write ? "write" : "read", ri->ref->tensor->name);
  for (int d = 0; d < ri->rank; d++)
    sbuf_printf(&b, "%s%lld", d ? "," : "", (long long)ip->regs[ri->dimreg[d]].i);
  sbuf_puts(&b, "]: shape is ");
  print_shape(&b, ri->rank, ri->shape);
  if (ri->nloops) {
    sbuf_puts(&b, " (at ");
    for (int k = 0; k < ri->nloops; k++)
      sbuf_printf(&b, "%s%s=%lld", k ? ", " : "", ri->loops[k]->index, (long long)ip->regs[ri->loopreg[k]].i);
    sbuf_putc(&b, ')');
  }
  diag_error(ip->ctx, ri->stmt->loc, "%s", b.s);
  if (ri->ref->loc.line && (ri->ref->loc.line != ri->stmt->loc.line || ri->ref->loc.col != ri->stmt->loc.col))
    diag_note(ip->ctx, ri->ref->loc, "dimension %d of this reference is out of range", ip->err.dim + 1);
  sbuf_free(&b);
}

static void report(InterpProg *ip) {
  const IrStmt *s = ip->err.kind != VM_OOB && ip->err.stmt >= 0 && ip->err.stmt < ip->p->nstmts
                        ? ip->p->stmts[ip->err.stmt]
                        : NULL;
  IrLoc loc = s ? s->loc : (IrLoc){0, 0};
  switch (ip->err.kind) {
  case VM_OOB: report_oob(ip); break;
  case VM_STEPS:
    diag_error(ip->ctx, loc, "the program did not finish within %llu statement executions (--max-steps)",
               (unsigned long long)ip->opt.max_steps);
    break;
  case VM_NOMEM:
    diag_error(ip->ctx, loc, "out of memory for the partial sums of this thread-bound reduction");
    break;
  case VM_OK: break;
  }
}

/* ------------------------------------------------------------ running */

bool interp_run(InterpProg *ip) {
  for (int i = 0; i < ip->nbufs; i++) {
    IrRole r = ip->bufs[i].t->role;
    if ((r == ROLE_OUT || r == ROLE_TMP) && !interp_kept(ip, i)) reset_buf(&ip->bufs[i], ip->opt.poison);
  }
  memcpy(ip->regs, ip->init, sizeof(IVal) * (size_t)ip->nregs);
  for (int i = 0; i < ip->ntrees; i++) {
    TreeInfo *ti = ip->trees[i];
    if (ti->row_of)
      for (int64_t k = 0; k < ti->ntouched; k++) ti->row_of[ti->touched[k]] = -1;
    ti->ntouched = 0;
  }
  if (!vm_exec(ip)) {
    report(ip);
    return false;
  }
  if (ip->opt.poison) {
    for (int i = 0; i < ip->nbufs; i++) {
      const InterpBuf *b = &ip->bufs[i];
      if (b->t->role != ROLE_OUT) continue;
      int64_t n = count_poison(b);
      if (n)
        diag_warn(ip->ctx, b->t->decl_loc, "%lld of the %lld elements of output '%s' were never written",
                  (long long)n, (long long)b->numel, b->t->name);
    }
  }
  return true;
}

/* ------------------------------------------------------------ dump */

static const char *const opnames[I__COUNT] = {
  [I_HALT] = "halt", [I_NEXT] = "next", [I_JMP] = "jmp", [I_JZ] = "jz", [I_JNZ] = "jnz",
  [I_INIT] = "init", [I_INITCHK] = "initchk", [I_INITCHK1] = "initchk1", [I_LD] = "ld",
  [I_LD_F32] = "ld.f32", [I_LD_F64] = "ld.f64", [I_ST] = "st", [I_ST_F32] = "st.f32",
  [I_ST_F64] = "st.f64", [I_ADDR] = "addr", [I_TREE_ACC] = "tree.acc", [I_TREE_FLUSH] = "tree.flush",
  [I_MOV] = "mov", [I_CVT] = "cvt", [I_RND] = "rnd", [I_TRUTH] = "truth",
  [I_ADD_D] = "add.d", [I_SUB_D] = "sub.d", [I_MUL_D] = "mul.d", [I_DIV_D] = "div.d",
  [I_FDIV_D] = "floordiv.d", [I_MOD_D] = "mod.d", [I_POW_D] = "pow.d", [I_MAX_D] = "max.d",
  [I_MIN_D] = "min.d", [I_NEG_D] = "neg.d", [I_ABS_D] = "abs.d", [I_SQRT_D] = "sqrt.d",
  [I_EXP_D] = "exp.d", [I_LOG_D] = "log.d", [I_ERF_D] = "erf.d",
  [I_ADD_F] = "add.f", [I_SUB_F] = "sub.f", [I_MUL_F] = "mul.f", [I_DIV_F] = "div.f",
  [I_FDIV_F] = "floordiv.f", [I_MOD_F] = "mod.f", [I_POW_F] = "pow.f", [I_MAX_F] = "max.f",
  [I_MIN_F] = "min.f", [I_NEG_F] = "neg.f", [I_ABS_F] = "abs.f", [I_SQRT_F] = "sqrt.f",
  [I_EXP_F] = "exp.f", [I_LOG_F] = "log.f", [I_ERF_F] = "erf.f",
  [I_ADD_I] = "add.i", [I_SUB_I] = "sub.i", [I_MUL_I] = "mul.i", [I_DIV_I] = "div.i",
  [I_FDIV_I] = "floordiv.i", [I_MOD_I] = "mod.i", [I_POW_I] = "pow.i", [I_MAX_I] = "max.i",
  [I_MIN_I] = "min.i", [I_NEG_I] = "neg.i", [I_ABS_I] = "abs.i",
  [I_ADD_L] = "add.l", [I_SUB_L] = "sub.l", [I_MUL_L] = "mul.l",
  [I_CMP_D] = "cmp.d", [I_CMP_F] = "cmp.f", [I_CMP_I] = "cmp.i",
  [I_MUL_F_MM] = "mul.f.mm", [I_MUL_D_MM] = "mul.d.mm", [I_ACC_F] = "acc.f", [I_ACC_D] = "acc.d", [I_FMA_D] = "fma.d", [I_FMA_F] = "fma.f",
  [I_MAC_F] = "mac.f", [I_MAC_D] = "mac.d",
};

void interp_dump(const InterpProg *ip, FILE *f) {
  for (int i = 0; i < ip->ncode; i++) {
    const Ins *in = &ip->code[i];
    fprintf(f, "%4d  %-10s d=%d a=%d b=%d c=%d x=%d", i, opnames[in->op] ? opnames[in->op] : "?", in->d, in->a,
            in->b, in->c, in->x);
    if (in->op == I_NEXT) fprintf(f, " extent=%lld deltas=%d", (long long)in->imm, in->p.dl->n);
    fputc('\n', f);
  }
}
