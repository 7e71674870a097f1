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
 * One ORC LLJIT per cache; each entry's code is under a resource tracker
 * of its own, removed when the entry is evicted (least recently used,
 * beyond max_entries or max_bytes of keys; never one that a compiled
 * program still uses).  No global state: a cache per caller (driver: per
 * LeirCtx), one thread at a time. */
#include "codegen/host_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void entry_drop(CgJitEntry *e) {
  if (e->rt) LLVMOrcReleaseResourceTracker(e->rt);
  free(e->key);
  free(e);
}

void cg_jit_cache_free(CgJitCache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) entry_drop(c->e[i]);
  free(c->e);
  if (c->jit) LLVMOrcDisposeLLJIT(c->jit);
  free(c);
}

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

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
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
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(e->rt);
    if (err) LLVMConsumeError(err); /* the code stays until the JIT goes */
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

static CgJitEntry *lookup(CgJitCache *c, uint64_t h, const char *key, size_t len) {
  for (int i = 0; i < c->n; i++) {
    CgJitEntry *e = c->e[i];
    if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) return e;
  }
  return NULL;
}

/* Optimises m's module, adds it to the JIT under a tracker of its own with
 * the entry renamed apart, and looks the entry up (the machine code is
 * made then).  Takes the module and tsc. */
static CgJitEntry *add(CgJitCache *c, LeirCtx *ctx, CgModule *m, LLVMTargetMachineRef tm, const CgKernel *k,
                       LLVMOrcThreadSafeContextRef tsc, uint64_t h, char *key, size_t len) {
  double t0 = cpu_now();
  bool ok = cg_optimize(m, tm, m->o->opt_level);
  cg_module_dispose_builder(m);
  double t1 = cpu_now();
  c->st.opt_s += t1 - t0;
  char old[80], name[80];
  snprintf(old, sizeof old, "%s_entry", k->name);
  snprintf(name, sizeof name, "leir_c%llu_entry", (unsigned long long)++c->serial);
  LLVMValueRef fn = LLVMGetNamedFunction(m->M, old);
  CgJitEntry *e = calloc(1, sizeof *e);
  if (!ok || !fn || !e) {
    if (ok) diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: %s", e ? "no entry function" : "out of memory");
    free(e);
    LLVMDisposeModule(m->M);
    LLVMOrcDisposeThreadSafeContext(tsc);
    return NULL;
  }
  LLVMSetValueName2(fn, name, strlen(name));
  e->rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(c->jit));
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m->M, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModuleWithRT(c->jit, e->rt, tsm);
  LLVMOrcExecutorAddress addr = 0;
  if (err) {
    cg_host_llvm_error(ctx, "cannot add the module to the JIT", err);
    LLVMOrcDisposeThreadSafeModule(tsm);
  } else if ((err = LLVMOrcLLJITLookup(c->jit, &addr, name))) {
    cg_host_llvm_error(ctx, "JIT lookup", err);
  }
  c->st.code_s += cpu_now() - t1;
  if (!addr) {
    err = LLVMOrcResourceTrackerRemove(e->rt);
    if (err) LLVMConsumeError(err);
    entry_drop(e);
    return NULL;
  }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;
    CgJitEntry **v = realloc(c->e, (size_t)cap * sizeof *v);
    if (!v) {
      diag_error(ctx, (IrLoc){0, 0}, "out of memory for the JIT cache");
      err = LLVMOrcResourceTrackerRemove(e->rt);
      if (err) LLVMConsumeError(err);
      entry_drop(e);
      return NULL;
    }
    c->e = v;
    c->cap = cap;
  }
  e->hash = h;
  e->key = key;
  e->len = len;
  e->fn = (void *)(uintptr_t)addr;
  c->e[c->n++] = e;
  c->bytes += len;
  return e;
}

/* The key of the lowered module: "O<level>\n" and its text. */
static char *key_of(LLVMModuleRef M, int level, size_t *len) {
  char *s = LLVMPrintModuleToString(M), pre[16];
  int np = snprintf(pre, sizeof pre, "O%d\n", level);
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
  c->tick++;
  c->st.lower_s += cpu_now() - t0;
  for (int i = 0; ok && i < plan->nkernels; i++) {
    t0 = cpu_now();
    CgKernel k = plan->k[i];
    k.name = "leir_k"; /* the same code whatever the kernel's number */
#if LEIR_LLVM_MAJOR >= 21
    LLVMContextRef C = LLVMContextCreate();
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(C);
#else
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef C = LLVMOrcThreadSafeContextGetContext(tsc);
#endif
    CgModule m;
    size_t len = 0;
    char *key = NULL;
    if (!cg_lower_kernel_module(&m, ctx, fp, o, plan, &k, C, tm) || !(key = key_of(m.M, o->opt_level, &len))) {
      if (m.M) {
        cg_module_dispose_builder(&m);
        LLVMDisposeModule(m.M);
      }
      LLVMOrcDisposeThreadSafeContext(tsc);
      ok = false;
      break;
    }
    uint64_t h = fnv1a(key, len);
    CgJitEntry *e = lookup(c, h, key, len);
    c->st.lower_s += cpu_now() - t0;
    if (e) {
      c->st.hits++;
      free(key);
      cg_module_dispose_builder(&m);
      LLVMDisposeModule(m.M);
      LLVMOrcDisposeThreadSafeContext(tsc);
    } else {
      c->st.misses++;
      if (!(e = add(c, ctx, &m, tm, &k, tsc, h, key, len))) {
        free(key);
        ok = false;
        break;
      }
    }
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
