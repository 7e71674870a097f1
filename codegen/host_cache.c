/* host_cache.c -- the host JIT's cache of compiled nests (issue 61): a
 * verification run of --emit-steps or --eval compiles the program after a
 * step (or its nests from the first changed one), and the nests that a
 * program's candidates share with each other and with the before were
 * compiled again at every run.  Through a cache (cg_host_compile_cached)
 * each kernel of the plan (a top-level nest of the fused program,
 * cg_fuse_nests) is a module of its own, and its machine code is reused
 * when a later compile lowers a kernel to the same module.
 *
 * The key is the kernel's module as lowered, before optimisation (its
 * LLVM IR text, the function named alike whatever the kernel's number),
 * with the optimisation level: everything the machine code depends on is
 * in it -- the nest after fusion (cg_fuse_nests decides what is one
 * kernel), the plan's decisions for it (parallel loop, where tensors
 * live), every tensor's dtype and shape (in the offsets and bounds), its
 * id (the slot of bufs, and the out-of-bounds record), the statement ids,
 * the loop hints; the rest is the target machine, the same for every
 * compile of this process.  Lowering is cheap next to LLVM's pipeline and
 * its code generation, which a hit skips.  What a program runs is still
 * decided per compile (host.c: the kernels' parallel rule, cg_slice_chains'
 * chains), and the code is the same whatever kernel number it has.
 *
 * One ORC LLJIT per cache; each entry's code (an object file that the
 * target machine made of the optimised module) is under a resource
 * tracker of its own, removed when the entry is evicted (least recently
 * used, beyond max_entries or max_bytes of keys; never one that a compiled
 * program still uses), and every one when the cache is freed, before the
 * JIT (entry_drop says why).  No global state: a cache per caller (driver: per
 * LeirCtx), one thread at a time.
 *
 * On disk (cg_jit_cache_set_dir): a kernel missing from memory is looked
 * for in DIR/jit/HASH.o, and with cg_jit_cache_set_store the kernels
 * compiled are written there (atomically: a file of its own, renamed), so
 * that another process (a later shard of --emit-steps with --steps-cache)
 * takes the machine code of the nests that a program before compiled.  A
 * file holds its whole key -- the memory key after a header naming leirc's
 * version, LLVM's and the host CPU with its features (the code is made
 * for them) -- and is used only when that is the same byte for byte;
 * anything unreadable is a miss.  The entry function is named by the key's
 * hash, the same in every process. */
#include "config.h"
#include "codegen/host_cache.h"
#include "ir/hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct CgJitEntry {
  uint64_t hash;
  char *key;
  size_t len;
  LLVMOrcResourceTrackerRef rt;
  void *fn;      /* the entry function's address */
  int refs;      /* compiled programs using it */
  uint64_t used; /* tick of the last compile that took it */
};

struct CgJitCache {
  int max_entries;
  size_t max_bytes;
  LLVMOrcLLJITRef jit; /* made at the first miss */
  int opt_level;       /* the JIT's (a compile at another level is not cached) */
  int n, cap;
  CgJitEntry **e;
  size_t bytes; /* of the keys */
  uint64_t tick, serial;
  char *dir;    /* DIR/jit, or NULL */
  bool store;   /* write the kernels compiled into dir */
  char *machine; /* the disk key's header (made at each compile) */
  CgJitCacheStats st;
};

CgJitCache *cg_jit_cache_new(int max_entries, size_t max_bytes) {
  CgJitCache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->max_entries = max_entries > 0 ? max_entries : 1;
  c->max_bytes = max_bytes;
  c->opt_level = -1;
  return c;
}

/* Frees e, its code removed from the JIT first.  A tracker is never
 * released while it still holds code: ORC would then hand its resources
 * to the JITDylib's default tracker (ExecutionSession::
 * destroyResourceTracker), and LLVM 19's ObjectLinkingLayer::
 * handleTransferResources keeps a reference to the source's entry of its
 * DenseMap across the insertion of the destination's key, which grows the
 * map when it holds 47 (95, 191...) trackers: the reference then reads
 * freed memory (valgrind: invalid read), and when that entry is where
 * malloc writes its free-list pointers, std::vector::reserve throws
 * std::length_error (the crash of --emit-steps -j 2 at leir_ctx_free,
 * softmax.leir's 95 kernels).  Removing a tracker only erases its entry. */
static void entry_drop(CgJitEntry *e) {
  if (e->rt) {
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(e->rt);
    if (err) LLVMConsumeError(err); /* the code stays until the JIT goes */
    LLVMOrcReleaseResourceTracker(e->rt);
  }
  free(e->key);
  free(e);
}

void cg_jit_cache_free(CgJitCache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) entry_drop(c->e[i]);
  free(c->e);
  if (c->jit) LLVMOrcDisposeLLJIT(c->jit);
  free(c->dir);
  free(c->machine);
  free(c);
}

void cg_jit_cache_set_dir(CgJitCache *c, const char *dir) {
  free(c->dir);
  c->dir = NULL;
  if (!dir) return;
  size_t n = strlen(dir) + 5;
  if ((c->dir = malloc(n))) snprintf(c->dir, n, "%s/jit", dir);
}

void cg_jit_cache_set_store(CgJitCache *c, bool store) { c->store = store; }

void cg_jit_cache_stats(const CgJitCache *c, CgJitCacheStats *s) {
  *s = c->st;
  s->entries = c->n;
  s->bytes = c->bytes;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Evicts least recently used entries that no program uses until the
 * bounds hold (or only used entries are left). */
static void evict(CgJitCache *c) {
  while (c->n > c->max_entries || (c->bytes > c->max_bytes && c->n > 0)) {
    int v = -1;
    for (int i = 0; i < c->n; i++)
      if (!c->e[i]->refs && (v < 0 || c->e[i]->used < c->e[v]->used)) v = i;
    if (v < 0) return;
    CgJitEntry *e = c->e[v];
    c->bytes -= e->len;
    entry_drop(e);
    c->e[v] = c->e[--c->n];
    c->st.evictions++;
  }
}

void cg_jit_cache_release(CgJitCache *c, CgJitEntry **ents, int n) {
  for (int i = 0; ents && i < n; i++)
    if (ents[i]) ents[i]->refs--;
  evict(c);
}

/* The entry of key, or NULL; *clash: another key of the same hash is in
 * memory (its entry function has the name this key's would get). */
static CgJitEntry *lookup(CgJitCache *c, uint64_t h, const char *key, size_t len, bool *clash) {
  *clash = false;
  for (int i = 0; i < c->n; i++) {
    CgJitEntry *e = c->e[i];
    if (e->hash != h) continue;
    if (e->len == len && !memcmp(e->key, key, len)) return e;
    *clash = true;
  }
  return NULL;
}

/* The disk key's header: what the machine code depends on besides the
 * module (malloc'ed): tm's CPU and features, those cg_host_machine made it
 * with (LEIRC_HOST_CPU's when set, host.c). */
static char *machine_of(LLVMTargetMachineRef tm) {
  unsigned a = 0, b = 0, d = 0;
  LLVMGetVersion(&a, &b, &d);
  char *cpu = LLVMGetTargetMachineCPU(tm), *feat = LLVMGetTargetMachineFeatureString(tm);
  size_t n = strlen(cpu) + strlen(feat) + 128;
  char *s = malloc(n);
  if (s) snprintf(s, n, "leirc %s\nllvm %u.%u.%u\ncpu %s\nfeatures %s\n", PACKAGE_VERSION, a, b, d, cpu, feat);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(feat);
  return s;
}

/* DIR/jit/HASH.o of the key (malloc'ed), or NULL. */
static char *disk_path(CgJitCache *c, uint64_t h) {
  size_t n = strlen(c->dir) + 24;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%016llx.o", c->dir, (unsigned long long)h);
  return p;
}

static const char magic[8] = {'L', 'E', 'I', 'R', 'J', 'I', 'T', '1'};

/* The object file of key from the disk (NULL: none, or not readable). */
static LLVMMemoryBufferRef disk_read(CgJitCache *c, uint64_t h, const char *key, size_t len) {
  char *path = disk_path(c, h);
  FILE *f = path ? fopen(path, "rb") : NULL;
  free(path);
  if (!f) return NULL;
  size_t ml = strlen(c->machine);
  char m[8];
  uint64_t kl = 0, ol = 0;
  char *k = NULL, *o = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (fread(m, 1, 8, f) == 8 && !memcmp(m, magic, 8) && fread(&kl, sizeof kl, 1, f) == 1 && kl == ml + len &&
      (k = malloc(kl + 1)) && fread(k, 1, kl, f) == kl && !memcmp(k, c->machine, ml) && !memcmp(k + ml, key, len) &&
      fread(&ol, sizeof ol, 1, f) == 1 && ol > 0 && ol < ((uint64_t)1 << 32) && (o = malloc(ol)) &&
      fread(o, 1, ol, f) == ol && fgetc(f) == EOF)
    buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(o, ol, "leir-jit");
  fclose(f);
  free(k);
  free(o);
  return buf;
}

/* Writes key's object file to the disk (no diagnostic: a cache). */
static void disk_write(CgJitCache *c, uint64_t h, const char *key, size_t len, LLVMMemoryBufferRef obj) {
  char *path = disk_path(c, h);
  if (!path) return;
  struct stat st;
  if (!stat(path, &st)) { /* there already */
    free(path);
    return;
  }
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp || (mkdir(c->dir, 0777) && errno != EEXIST)) {
    free(tmp);
    free(path);
    return;
  }
  snprintf(tmp, n, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  size_t ml = strlen(c->machine);
  uint64_t kl = ml + len, ol = LLVMGetBufferSize(obj);
  bool ok = f && fwrite(magic, 1, 8, f) == 8 && fwrite(&kl, sizeof kl, 1, f) == 1 &&
            fwrite(c->machine, 1, ml, f) == ml && fwrite(key, 1, len, f) == len && fwrite(&ol, sizeof ol, 1, f) == 1 &&
            fwrite(LLVMGetBufferStart(obj), 1, ol, f) == ol;
  if (f && fclose(f)) ok = false;
  if (!ok || rename(tmp, path)) remove(tmp);
  free(tmp);
  free(path);
  c->st.stored += ok;
}

/* The machine code of m's module: optimised, the entry renamed `name`,
 * made into an object file by tm.  Disposes the module; NULL after a
 * diagnostic. */
static LLVMMemoryBufferRef compile(CgJitCache *c, LeirCtx *ctx, CgModule *m, LLVMTargetMachineRef tm,
                                   const CgKernel *k, const char *name) {
  double t0 = cpu_now();
  bool ok = cg_optimize(m, tm, m->o->opt_level);
  cg_module_dispose_builder(m);
  double t1 = cpu_now();
  c->st.opt_s += t1 - t0;
  char old[80];
  snprintf(old, sizeof old, "%s_entry", k->name);
  LLVMValueRef fn = ok ? LLVMGetNamedFunction(m->M, old) : NULL;
  LLVMMemoryBufferRef obj = NULL;
  if (fn) {
    LLVMSetValueName2(fn, name, strlen(name));
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m->M, LLVMObjectFile, &msg, &obj)) {
      diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: machine code: %s", msg ? msg : "");
      obj = NULL;
    }
    LLVMDisposeMessage(msg);
  } else if (ok) {
    diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: no entry function %s", old);
  }
  LLVMDisposeModule(m->M);
  m->M = NULL;
  c->st.code_s += cpu_now() - t1;
  return obj;
}

/* A new entry for key (taken on success) whose code is obj (taken),
 * added to the JIT under a tracker of its own; NULL after a diagnostic. */
static CgJitEntry *add(CgJitCache *c, LeirCtx *ctx, LLVMMemoryBufferRef obj, const char *name, uint64_t h, char *key,
                       size_t len) {
  double t0 = cpu_now();
  CgJitEntry *e = calloc(1, sizeof *e);
  if (!e || (c->n == c->cap && c->cap > INT32_MAX / 4)) {
    diag_error(ctx, (IrLoc){0, 0}, "out of memory for the JIT cache");
    LLVMDisposeMemoryBuffer(obj);
    free(e);
    return NULL;
  }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;
    CgJitEntry **v = realloc(c->e, (size_t)cap * sizeof *v);
    if (!v) {
      diag_error(ctx, (IrLoc){0, 0}, "out of memory for the JIT cache");
      LLVMDisposeMemoryBuffer(obj);
      free(e);
      return NULL;
    }
    c->e = v;
    c->cap = cap;
  }
  e->rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(c->jit));
  LLVMErrorRef err = LLVMOrcLLJITAddObjectFileWithRT(c->jit, e->rt, obj);
  LLVMOrcExecutorAddress addr = 0;
  if (err) cg_host_llvm_error(ctx, "cannot add the code to the JIT", err);
  else if ((err = LLVMOrcLLJITLookup(c->jit, &addr, name))) cg_host_llvm_error(ctx, "JIT lookup", err);
  c->st.code_s += cpu_now() - t0;
  if (!addr) {
    entry_drop(e);
    return NULL;
  }
  e->hash = h;
  e->key = key;
  e->len = len;
  e->fn = (void *)(uintptr_t)addr;
  c->e[c->n++] = e;
  c->bytes += len;
  return e;
}

/* The entry function's name for a key of hash h (serial: another key of
 * that hash is in memory, a name apart), into buf. */
static void name_of(char *buf, size_t n, uint64_t h, uint64_t serial) {
  if (serial) snprintf(buf, n, "leir_h%016llx_%llu_entry", (unsigned long long)h, (unsigned long long)serial);
  else snprintf(buf, n, "leir_h%016llx_entry", (unsigned long long)h);
}

/* The key of the lowered module: "O<level> <cpu>\n" (tm's CPU: another
 * with LEIRC_HOST_CPU, and the IR may be the same) and its text. */
static char *key_of(LLVMModuleRef M, int level, LLVMTargetMachineRef tm, size_t *len) {
  char *s = LLVMPrintModuleToString(M), *cpu = LLVMGetTargetMachineCPU(tm), pre[80];
  int np = snprintf(pre, sizeof pre, "O%d %.60s\n", level, cpu);
  LLVMDisposeMessage(cpu);
  size_t n = strlen(s);
  char *k = malloc((size_t)np + n + 1);
  if (k) {
    memcpy(k, pre, (size_t)np);
    memcpy(k + np, s, n + 1);
    *len = (size_t)np + n;
  }
  LLVMDisposeMessage(s);
  return k;
}

bool cg_jit_cache_kernels(CgJitCache *c, LeirCtx *ctx, const IrProgram *p, const CgOptions *o, CgPlan *plan,
                          CgJitEntry ***out) {
  *out = NULL;
  double t0 = cpu_now();
  int errors = ctx->nerrors;
  const IrProgram *fp = cg_fuse_nests(ctx, p); /* as cg_build_module */
  if (!cg_plan_build(ctx, fp, CG_TARGET_HOST, plan) || ctx->nerrors > errors) return false;
  if (!c->jit) {
    if (!(c->jit = cg_host_make_jit(ctx, o->opt_level))) return false;
    c->opt_level = o->opt_level;
  }
  LLVMTargetMachineRef tm = cg_host_machine(ctx, o->opt_level, true);
  CgJitEntry **ents = calloc((size_t)plan->nkernels + 1, sizeof *ents);
  bool ok = tm && ents;
  if (ok && c->dir) { /* the disk key's header, of this compile's CPU (LEIRC_HOST_CPU may change) */
    free(c->machine);
    c->machine = machine_of(tm);
  }
  c->tick++;
  c->st.lower_s += cpu_now() - t0;
  for (int i = 0; ok && i < plan->nkernels; i++) {
    t0 = cpu_now();
    CgKernel k = plan->k[i];
    k.name = "leir_k"; /* the same code whatever the kernel's number */
    LLVMContextRef C = LLVMContextCreate();
    CgModule m;
    memset(&m, 0, sizeof m);
    char name[80];
    size_t len = 0;
    char *key = NULL;
    if (!cg_lower_kernel_module(&m, ctx, fp, o, plan, &k, C, tm) || !(key = key_of(m.M, o->opt_level, tm, &len))) {
      if (m.M) {
        cg_module_dispose_builder(&m);
        LLVMDisposeModule(m.M);
      }
      LLVMContextDispose(C);
      ok = false;
      break;
    }
    uint64_t h = ir_fnv1a(key, len);
    bool clash;
    CgJitEntry *e = lookup(c, h, key, len, &clash);
    /* the disk only where the name is the key's alone */
    bool disk = c->dir && !clash && c->machine;
    LLVMMemoryBufferRef obj = !e && disk ? disk_read(c, h, key, len) : NULL;
    name_of(name, sizeof name, h, clash ? ++c->serial : 0);
    c->st.lower_s += cpu_now() - t0;
    if (e || obj) {
      if (e) c->st.hits++;
      else c->st.disk_hits++;
      cg_module_dispose_builder(&m);
      LLVMDisposeModule(m.M);
    } else {
      c->st.misses++;
      obj = compile(c, ctx, &m, tm, &k, name);
      if (obj && disk && c->store) disk_write(c, h, key, len, obj);
    }
    LLVMContextDispose(C);
    if (!e && obj) e = add(c, ctx, obj, name, h, key, len);
    if (!e) {
      free(key);
      ok = false;
      break;
    }
    if (e->key != key) free(key);
    e->refs++;
    e->used = c->tick;
    ents[i] = e;
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  if (!ok) {
    cg_jit_cache_release(c, ents, plan->nkernels);
    free(ents);
    return false;
  }
  evict(c);
  *out = ents;
  return true;
}

void *cg_jit_entry_fn(const CgJitEntry *e) { return e->fn; }

int cg_jit_cache_opt_level(const CgJitCache *c) { return c->opt_level; }
