/* host.c -- the host target layer: the native target machine, `--emit=asm`,
 * and the in-process JIT (ORC LLJIT) that runs a program for
 * `leirc --run --target=host`.
 *
 * Each nest is a function leir_k<i>_entry(bufs, lo, hi).  When the plan
 * found the nest's outermost loop race-free (SPEC §9.8) and the nest is big
 * enough to be worth it (parallel.h: by the cost model), [0, N) is cut into contiguous ranges run by the
 * program's worker pool (pool.h: made at the first parallel nest, kept for
 * every later run); every element is still computed by one thread in loop
 * order, so the results do not depend on the number of threads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#endif
#include "codegen/cg.h"
#include "codegen/costmodel.h"
#include "codegen/host_cache.h"
#include "codegen/parallel.h"
#include "codegen/pool.h"
#include "codegen/slice.h"
#include "ir/buffer.h"
#include "ir/memlimit.h"

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 64

typedef void (*EntryFn)(void **bufs, int64_t lo, int64_t hi, int64_t *err);

struct CgHostProgram {
  LeirCtx *ctx;
  const IrProgram *p;
  LLVMOrcLLJITRef jit; /* its own (NULL when compiled through a cache) */
  CgJitCache *cache;   /* the cache its kernels come from, or NULL */
  CgJitEntry **ents;   /* ... one per kernel, held until cg_host_free */
  int nk;
  EntryFn *entry;
  int64_t *par;  /* extent of the parallel loop, 0 = serial */
  bool *big;     /* the nest is worth the pool (parallel.h) */
  int *clen;      /* per kernel: the kernels run slice by slice with it (slice.h; 1 alone, 0 in a chain) */
  int64_t *chunk; /* per kernel starting a chain: iterations of the parallel loops per slice */
  int nthreads;
  CgPool *pool;  /* nthreads tasks; made at the first parallel nest */
  int ntmp;      /* tmp's length (the program's tensor count) */
  void **tmp;    /* per tensor id: the program's own buffer (intermediates,
                    and tensors the caller gave none for), kept from run to
                    run and zeroed at each (issue 41: no calloc and free of
                    every intermediate, and no page faults, per run) */
  bool *nozero;  /* per tensor id: its own buffer needs no zeroing at a
                    rerun (written_first) */
  size_t *bytes; /* per tensor id: its size (at least 1) */
  void **all;    /* per tensor id: the buffers of the run (issue 41: made
                    at the first run, not allocated and freed at each:
                    Hingeloss runs in 0.13 us) */
  bool dynamic;  /* nthreads was 0: use the CPUs idle now (threads_now) */
  int cur;       /* threads_now's last answer, read at load_at (s) */
  double load_at;
};

int cg_host_cpus(void) {
  cpu_set_t set;
  if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void cg_host_llvm_error(LeirCtx *ctx, const char *what, LLVMErrorRef err) {
  char *msg = LLVMGetErrorMessage(err);
  diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: %s: %s", what, msg);
  LLVMDisposeErrorMessage(msg);
}

/* LLVM's target registry is process-wide: initialised once, so that two
 * threads (two libleir contexts) may compile at the same time. */
static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}

/* LEIRC_HOST_CPU (leirc(1) ENVIRONMENT): host code made for another CPU
 * than this one, to measure on this machine the code paths of an older one
 * (issue 59: the AVX2 forms of the math routines on an AVX-512 machine).
 * Each name: an x86-64 CPU LLVM knows, and whether it has AVX-512F.  The
 * features are the host's, with every AVX-512 one (avx512*, evex512,
 * avx10*, amx*) turned off for a CPU without: never one this host lacks,
 * so the code runs here. */
static const struct {
  const char *name;
  bool avx512;
} host_cpus[] = {
    {"haswell", false},       {"skylake", false},         {"znver2", false}, {"znver3", false},
    {"x86-64-v3", false},     {"skylake-avx512", true},   {"icelake-server", true},
    {"znver4", true},         {"x86-64-v4", true},
};

/* Is the item NAME of the comma-separated features feat on (+NAME)? */
static bool feat_on(const char *feat, const char *name) {
  size_t n = strlen(name);
  for (const char *p = feat; (p = strstr(p, name)); p += n)
    if (p > feat && p[-1] == '+' && (p == feat + 1 || p[-2] == ',') && (p[n] == ',' || !p[n])) return true;
  return false;
}

static char *dup_llvm(char *s) {
  char *d = strdup(s ? s : "");
  LLVMDisposeMessage(s);
  return d;
}

/* The CPU name and features the host code is made for (malloc'ed; free):
 * this host's, or with LEIRC_HOST_CPU another x86-64 CPU's (the table
 * above; false with a diagnostic for a name it does not know or a CPU whose
 * code this host cannot run). */
static bool host_cpu(LeirCtx *ctx, char **cpu, char **feat) {
  *cpu = dup_llvm(LLVMGetHostCPUName());
  *feat = dup_llvm(LLVMGetHostCPUFeatures());
  const char *want = getenv("LEIRC_HOST_CPU");
  int k = -1;
  if (*cpu && *feat && want && *want && strcmp(want, "native")) {
    for (size_t i = 0; i < sizeof host_cpus / sizeof *host_cpus; i++)
      if (!strcmp(want, host_cpus[i].name)) k = (int)i;
    const char *lacks = NULL;
    if (k < 0) {
      char known[256] = "";
      for (size_t i = 0; i < sizeof host_cpus / sizeof *host_cpus; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", host_cpus[i].name);
      diag_error(ctx, (IrLoc){0, 0}, "LEIRC_HOST_CPU: unknown CPU '%s' (known: %s, native)", want, known);
    } else if (!feat_on(*feat, lacks = "avx2") || !feat_on(*feat, lacks = "fma") ||
             (host_cpus[k].avx512 && !feat_on(*feat, lacks = "avx512f")))
      diag_error(ctx, (IrLoc){0, 0}, "LEIRC_HOST_CPU=%s: this host (%s) lacks %s, which %s code uses", want, *cpu,
                 lacks, want);
    else
      lacks = NULL;
    if (k < 0 || lacks) {
      free(*cpu);
      free(*feat);
      *cpu = *feat = NULL;
      return false;
    }
    free(*cpu);
    *cpu = strdup(want);
    if (!host_cpus[k].avx512)
      for (char *p = *feat; *p; p++)
        if (*p == '+' && (!strncmp(p + 1, "avx512", 6) || !strncmp(p + 1, "evex512", 7) ||
                          !strncmp(p + 1, "avx10", 5) || !strncmp(p + 1, "amx", 3)))
          *p = '-';
  }
  if (!*cpu || !*feat) {
    free(*cpu);
    free(*feat);
    *cpu = *feat = NULL;
    diag_error(ctx, (IrLoc){0, 0}, "out of memory");
    return false;
  }
  return true;
}

const char *cg_host_cpu_override(void) {
  const char *want = getenv("LEIRC_HOST_CPU");
  return want && *want && strcmp(want, "native") ? want : NULL;
}

LLVMTargetMachineRef cg_host_machine(LeirCtx *ctx, int opt_level, bool jit) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_native);
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef t = NULL;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &t, &msg)) {
    diag_error(ctx, (IrLoc){0, 0}, "the host target is not available: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    LLVMDisposeMessage(triple);
    return NULL;
  }
  char *cpu, *feat;
  if (!host_cpu(ctx, &cpu, &feat)) {
    LLVMDisposeMessage(triple);
    return NULL;
  }
  LLVMCodeGenOptLevel lvl = opt_level <= 0 ? LLVMCodeGenLevelNone
                            : opt_level >= 3 ? LLVMCodeGenLevelAggressive : LLVMCodeGenLevelDefault;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, triple, cpu, feat, lvl, LLVMRelocPIC,
                                                    jit ? LLVMCodeModelJITDefault : LLVMCodeModelDefault);
  free(cpu);
  free(feat);
  LLVMDisposeMessage(triple);
  return tm;
}

bool cg_emit_asm(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out) {
  CgOptions oo = *o;
  oo.target = CG_TARGET_HOST;
  LLVMTargetMachineRef tm = cg_host_machine(ctx, oo.opt_level, false);
  if (!tm) return false;
  LLVMContextRef C = LLVMContextCreate();
  CgPlan plan;
  LLVMModuleRef M = NULL;
  bool ok = cg_build_module(ctx, p, &oo, C, tm, &plan, &M);
  if (ok) {
    char *msg = NULL;
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, M, LLVMAssemblyFile, &msg, &buf)) {
      diag_error(ctx, (IrLoc){0, 0}, "internal compiler error: assembly emission: %s", msg ? msg : "");
      ok = false;
    } else {
      size_t n = LLVMGetBufferSize(buf);
      const char *s = LLVMGetBufferStart(buf);
      char *cpu = LLVMGetTargetMachineCPU(tm);
      if (cg_host_cpu_override()) sbuf_printf(out, "\t# leirc: host code for %s (LEIRC_HOST_CPU)\n", cpu);
      LLVMDisposeMessage(cpu);
      for (size_t i = 0; i < n; i++) sbuf_putc(out, s[i]);
      LLVMDisposeMemoryBuffer(buf);
    }
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(M);
  }
  LLVMContextDispose(C);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

/* ------------------------------------------------------------ JIT */

int64_t cg_nest_work(const IrNest *n) {
  uint64_t w = ir_nest_execs(n, 1);
  return w > INT64_MAX ? INT64_MAX : (int64_t)w;
}

/* The JIT with process symbols (memset, floor, ... may be called). */
LLVMOrcLLJITRef cg_host_make_jit(LeirCtx *ctx, int opt_level) {
  LLVMTargetMachineRef tm = cg_host_machine(ctx, opt_level, true);
  if (!tm) return NULL;
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
  LLVMOrcLLJITRef jit = NULL;
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, jb);
  if (err) {
    cg_host_llvm_error(ctx, "cannot create the JIT", err);
    return NULL;
  }
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (err) {
    cg_host_llvm_error(ctx, "cannot reach process symbols", err);
    LLVMOrcDisposeLLJIT(jit);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
  return jit;
}

static bool add_module(CgHostProgram *hp, const CgOptions *o, CgPlan *plan) {
  LeirCtx *ctx = hp->ctx;
  LLVMTargetMachineRef tm = cg_host_machine(ctx, o->opt_level, true);
  if (!tm) return false;
#if LEIR_LLVM_MAJOR >= 21
  LLVMContextRef C = LLVMContextCreate();
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(C);
#else
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef C = LLVMOrcThreadSafeContextGetContext(tsc);
#endif
  LLVMModuleRef M = NULL;
  bool ok = cg_build_module(ctx, hp->p, o, C, tm, plan, &M);
  LLVMDisposeTargetMachine(tm);
  if (ok) {
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(M, tsc);
    LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModule(hp->jit, LLVMOrcLLJITGetMainJITDylib(hp->jit), tsm);
    if (err) {
      cg_host_llvm_error(ctx, "cannot add the module to the JIT", err);
      LLVMOrcDisposeThreadSafeModule(tsm);
      ok = false;
    }
  }
  LLVMOrcDisposeThreadSafeContext(tsc);
  return ok;
}

static CgHostProgram *host_new(LeirCtx *ctx, const IrProgram *p, const CgOptions *oo) {
  CgHostProgram *hp = calloc(1, sizeof *hp);
  if (!hp) return NULL;
  hp->ctx = ctx;
  hp->p = p;
  hp->nthreads = oo->nthreads > 0 ? oo->nthreads : cg_host_cpus();
  hp->dynamic = oo->nthreads <= 0;
  if (hp->nthreads < 1) hp->nthreads = 1;
  if (hp->nthreads > MAX_WORKERS) hp->nthreads = MAX_WORKERS;
  return hp;
}

/* What the program runs, from the plan of its kernels: their parallel
 * extents and rule, the chains; the entries are looked up by the caller. */
static bool host_setup(CgHostProgram *hp, const CgOptions *oo, const CgPlan *plan) {
  LeirCtx *ctx = hp->ctx;
  const IrProgram *p = hp->p;
  hp->nk = plan->nkernels;
  hp->entry = calloc((size_t)hp->nk + 1, sizeof *hp->entry);
  hp->par = calloc((size_t)hp->nk + 1, sizeof *hp->par);
  hp->big = calloc((size_t)hp->nk + 1, sizeof *hp->big);
  hp->clen = calloc((size_t)hp->nk + 1, sizeof *hp->clen);
  hp->chunk = calloc((size_t)hp->nk + 1, sizeof *hp->chunk);
  if (!hp->entry || !hp->par || !hp->big || !hp->clen || !hp->chunk) return false;
  /* parallel.h: by the cost model's compute time of each nest, or with
   * CgOptions.par_min_work by its innermost iterations */
  int64_t min_work = oo->par_min_work > 0 ? oo->par_min_work : CG_PAR_MIN_WORK;
  /* the plan's nests are the fused program's (cg_build_module): the model
     must weigh those, or a fused program falls back to the iteration rule */
  const IrProgram *fp = cg_fuse_nests(ctx, p);
  if (oo->par_min_work > 0 || hp->nk != fp->nnests || !cost_model_host_par(ctx, fp, hp->big))
    for (int i = 0; i < hp->nk; i++) hp->big[i] = cg_nest_work(plan->k[i].nest) >= min_work;
  cg_slice_chains(p, plan, hp->clen, hp->chunk);
  for (int i = 0; i < hp->nk; i++) hp->par[i] = plan->k[i].par ? plan->k[i].par->extent : 0;
  return true;
}

CgHostProgram *cg_host_compile(LeirCtx *ctx, const IrProgram *p, const CgOptions *o) {
  CgOptions oo = *o;
  oo.target = CG_TARGET_HOST;
  CgHostProgram *hp = host_new(ctx, p, &oo);
  if (!hp) return NULL;
  hp->jit = cg_host_make_jit(ctx, oo.opt_level);
  CgPlan plan;
  if (!hp->jit || !add_module(hp, &oo, &plan) || !host_setup(hp, &oo, &plan)) {
    cg_host_free(hp);
    return NULL;
  }
  for (int i = 0; i < hp->nk; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s_entry", plan.k[i].name);
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef err = LLVMOrcLLJITLookup(hp->jit, &addr, name);
    if (err) {
      cg_host_llvm_error(ctx, "JIT lookup", err);
      cg_host_free(hp);
      return NULL;
    }
    hp->entry[i] = (EntryFn)(uintptr_t)addr;
  }
  return hp;
}

CgHostProgram *cg_host_compile_cached(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, CgJitCache *c) {
  int level = c ? cg_jit_cache_opt_level(c) : -1;
  if (!c || (level >= 0 && level != o->opt_level)) return cg_host_compile(ctx, p, o);
  CgOptions oo = *o;
  oo.target = CG_TARGET_HOST;
  CgHostProgram *hp = host_new(ctx, p, &oo);
  if (!hp) return NULL;
  CgPlan plan;
  if (!cg_jit_cache_kernels(c, ctx, p, &oo, &plan, &hp->ents)) {
    cg_host_free(hp);
    return NULL;
  }
  hp->cache = c;
  hp->nk = plan.nkernels;
  if (!host_setup(hp, &oo, &plan)) {
    cg_host_free(hp);
    return NULL;
  }
  for (int i = 0; i < hp->nk; i++) hp->entry[i] = (EntryFn)(uintptr_t)cg_jit_entry_fn(hp->ents[i]);
  return hp;
}

typedef struct Job {
  EntryFn fn;
  void **bufs;
  int64_t n;     /* [0, n) cut into nchunks contiguous ranges */
  int nchunks;
  int64_t *errs; /* one error slot per range */
} Job;

static void run_range(void *arg, int i) {
  const Job *j = arg;
  j->fn(j->bufs, j->n * i / j->nchunks, j->n * (i + 1) / j->nchunks, &j->errs[i]);
}

/* Runs [0, n) over the pool on nt threads, the calling thread's included.
 * The ranges are handed out as threads come (pool.h), CG_PAR_CHUNKS per
 * thread, so that a worker the scheduler is slow to run costs the caller
 * nothing but its share.  The error reported is the last range's that has
 * one: an entry keeps the last out-of-bounds access it meets, so that is the
 * error one thread running [0, n) in order reports, whatever the number of
 * threads or the timing. */
static void run_parallel(CgHostProgram *hp, EntryFn fn, void **bufs, int64_t n, int64_t *err, int nt) {
  if (!hp->pool) hp->pool = cg_pool_new(hp->nthreads);
  int64_t chunks = (int64_t)nt * CG_PAR_CHUNKS;
  if (!hp->pool || n < 2) {
    fn(bufs, 0, n, err);
    return;
  }
  int64_t errs[MAX_WORKERS * CG_PAR_CHUNKS] = {0};
  Job job = {fn, bufs, n, (int)(chunks < n ? chunks : n), errs};
  cg_pool_run(hp->pool, run_range, &job, job.nchunks, nt);
  for (int i = 0; i < job.nchunks; i++)
    if (errs[i]) *err = errs[i];
}

/* Kernels k .. k+m-1 (a chain, slice.c) on [lo, hi) of their parallel
 * loops, slice by slice: each kernel in turn on each slice. */
static void run_chain(const CgHostProgram *hp, int k, void **bufs, int64_t lo, int64_t hi, int64_t *err) {
  int m = hp->clen[k];
  for (int64_t s = lo; s < hi; s += hp->chunk[k]) {
    int64_t e = hi - s > hp->chunk[k] ? s + hp->chunk[k] : hi;
    for (int j = k; j < k + m; j++) hp->entry[j](bufs, s, e, err);
  }
}

typedef struct ChainJob {
  const CgHostProgram *hp;
  int k;
  void **bufs;
  int64_t n;
  int nchunks;
  int64_t *errs;
} ChainJob;

static void run_chain_range(void *arg, int i) {
  const ChainJob *j = arg;
  run_chain(j->hp, j->k, j->bufs, j->n * i / j->nchunks, j->n * (i + 1) / j->nchunks, &j->errs[i]);
}

/* A chain over the pool as run_parallel runs one kernel (at most one range
 * a slice; any split of the parallel loops is legal, slice.c), the error
 * the last range's that has one. */
static void run_chain_parallel(CgHostProgram *hp, int k, void **bufs, int64_t *err, int nt) {
  if (!hp->pool) hp->pool = cg_pool_new(hp->nthreads);
  int64_t n = hp->par[k], slices = (n + hp->chunk[k] - 1) / hp->chunk[k];
  int64_t chunks = (int64_t)nt * CG_PAR_CHUNKS;
  if (!hp->pool || slices < 2) {
    run_chain(hp, k, bufs, 0, n, err);
    return;
  }
  int64_t errs[MAX_WORKERS * CG_PAR_CHUNKS] = {0};
  ChainJob job = {hp, k, bufs, n, (int)(chunks < slices ? chunks : slices), errs};
  cg_pool_run(hp->pool, run_chain_range, &job, job.nchunks, nt);
  for (int i = 0; i < job.nchunks; i++)
    if (errs[i]) *err = errs[i];
}

/* The record of guard_offset (lower.c) as a diagnostic at the statement. */
static bool report_oob(CgHostProgram *hp, int64_t code) {
  const IrProgram *p = hp->p;
  int tid = (int)(code >> 32) - 1, sid = (int)((code & 0xffffffff) >> 1);
  const IrTensor *t = tid >= 0 && tid < p->ntensors ? p->tensors[tid] : NULL;
  IrLoc loc = sid >= 0 && sid < p->nstmts ? p->stmts[sid]->loc : (IrLoc){0, 0};
  SBuf b = {0};
  for (int d = 0; t && d < t->rank; d++) sbuf_printf(&b, "%s%lld", d ? "," : "", (long long)t->shape[d]);
  diag_error(hp->ctx, loc, "out-of-bounds %s of %s: shape is [%s]", code & 1 ? "write" : "read",
             t ? t->name : "?", b.s ? b.s : "");
  sbuf_free(&b);
  return false;
}

/* Issue 41: with the default thread count (0: all CPUs) a parallel nest
 * runs on the CPUs idle now, the CPU count less the 1-minute load average
 * (whole tasks) plus the caller's own: on a machine busy with other work,
 * waking workers that must wait for a CPU costs more than the nest gains
 * (OpenMP's dynamic threads, make -l).  Read at most every 100 ms.  The
 * results do not depend on it (every element is computed by one thread in
 * loop order). */
static int threads_now(CgHostProgram *hp) {
  if (!hp->dynamic || hp->nthreads <= 1) return hp->nthreads;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
  if (hp->cur == 0 || t - hp->load_at > 0.1) {
    double l;
    int n = hp->nthreads;
    if (getloadavg(&l, 1) == 1 && l >= 0 && l < 1e6) n = hp->nthreads - (int)l + 1;
    hp->cur = n < 1 ? 1 : n > hp->nthreads ? hp->nthreads : n;
    hp->load_at = t;
  }
  return hp->cur;
}

/* Does e (or a subscript in it) read tensor t other than at the
 * subscripts of `at` (NULL: anywhere)? */
static bool reads_tensor_off(const IrExpr *e, const IrTensor *t, const IrRef *at) {
  if (!e) return false;
  switch (e->kind) {
  case E_PAREN: return reads_tensor_off(e->u.paren, t, at);
  case E_REF:
    if (e->u.ref->tensor == t && !(at && ir_ref_same_subscript(e->u.ref, at))) return true;
    for (int i = 0; i < e->u.ref->nsub; i++)
      if (reads_tensor_off(e->u.ref->sub[i], t, at)) return true;
    return false;
  case E_UNARY: return reads_tensor_off(e->u.unary.a, t, at);
  case E_BINARY: return reads_tensor_off(e->u.bin.a, t, at) || reads_tensor_off(e->u.bin.b, t, at);
  case E_CMP:
    for (int i = 0; i < e->u.cmp.n; i++)
      if (reads_tensor_off(e->u.cmp.operand[i], t, at)) return true;
    return false;
  case E_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (reads_tensor_off(e->u.call.args[i], t, at)) return true;
    return false;
  default: return false;
  }
}

/* Does e (or a subscript in it) read tensor t? */
static bool mentions_tensor(const IrExpr *e, const IrTensor *t) { return reads_tensor_off(e, t, NULL); }

/* The statements of nest n that mention t (left side or right), and the
 * last of them. */
static int nest_mentions(const IrNest *n, const IrTensor *t, const IrStmt **last) {
  int k = 0;
  for (int i = 0; i < n->nitems; i++) {
    if (n->items[i].kind == ITEM_NEST) {
      k += nest_mentions(n->items[i].u.nest, t, last);
      continue;
    }
    const IrStmt *s = n->items[i].u.stmt;
    bool m = s->lhs->tensor == t || mentions_tensor(s->rhs, t);
    for (int d = 0; !m && d < s->lhs->nsub; d++) m = mentions_tensor(s->lhs->sub[d], t);
    if (m) k++, *last = s;
  }
  return k;
}

/* Is every element of t written before anything reads it, so that its
 * zeroing at a rerun is never seen?  Yes when the first top-level nest
 * that mentions t mentions it in one statement only whose left subscripts
 * are distinct loop indices over t's whole extents, and that statement is
 *  - a plain assignment (no §9.5 initialisation, no read of t): the nest
 *    writes every element and reads none; or
 *  - a §9.5 reduction that reads t only at its own left subscripts
 *    (`D=D+E`): an element's first update is the one where every
 *    enclosing loop but the left side's is at 0 (loops start at 0,
 *    extents are at least 1: SPEC §4, ir_verify), so every reduction
 *    index is 0 and the identity is stored before the element is read
 *    (issue 41: Average_Pooling_1D zeroed its 128 KiB window sums at
 *    every run, 13 % of its time);
 * and the nests after it run after it (fusion keeps their order of reads
 * and writes).  Otherwise false. */
bool cg_written_first(const IrProgram *p, const IrTensor *t) {
  for (int i = 0; i < p->nnests; i++) {
    const IrStmt *s = NULL;
    int k = nest_mentions(p->nests[i], t, &s);
    if (!k) continue;
    if (k != 1 || s->lhs->tensor != t || s->lhs->nsub != t->rank) return false;
    bool plain = s->init == INIT_NONE && s->redop == RED_NONE && !s->self_ref && !mentions_tensor(s->rhs, t);
    if (!plain && !(s->init == INIT_REDUCE && !reads_tensor_off(s->rhs, t, s->lhs))) return false;
    for (int d = 0; d < t->rank; d++) {
      const IrExpr *x = ir_expr_unparen(s->lhs->sub[d]);
      if (x->kind != E_INDEX || x->u.index.loop->extent != t->shape[d]) return false;
      for (int e = 0; e < d; e++) {
        const IrExpr *y = ir_expr_unparen(s->lhs->sub[e]);
        if (y->u.index.loop == x->u.index.loop) return false;
      }
    }
    return true;
  }
  return false;
}

bool cg_host_run(CgHostProgram *hp, void *const *bufs) {
  const IrProgram *p = hp->p;
  if (!hp->tmp) {
    size_t n = (size_t)p->ntensors + 1;
    hp->tmp = calloc(n, sizeof *hp->tmp);
    hp->nozero = calloc(n, sizeof *hp->nozero);
    hp->bytes = calloc(n, sizeof *hp->bytes);
    hp->all = calloc(n, sizeof *hp->all);
    hp->ntmp = hp->tmp && hp->nozero && hp->bytes && hp->all ? p->ntensors : 0;
    for (int i = 0; i < hp->ntmp; i++) {
      const IrTensor *t = p->tensors[i];
      hp->nozero[i] = cg_written_first(p, t);
      size_t b = (size_t)ir_tensor_numel(t) * (size_t)ir_dtype_size(t->dtype);
      hp->bytes[i] = b ? b : 1;
    }
  }
  void **all = hp->all;
  /* --max-memory: the whole program, before its intermediates are allocated */
  bool ok = all && hp->ntmp == p->ntensors && leir_check_memory(hp->ctx, p);
  for (int i = 0; ok && i < p->ntensors; i++) {
    all[i] = bufs[i];
    if (all[i]) continue;
    if (hp->tmp[i]) {
      if (!hp->nozero[i]) memset(hp->tmp[i], 0, hp->bytes[i]); /* zero, as the interpreter starts them */
    } else if (!(hp->tmp[i] = ir_buffer_alloc(hp->bytes[i]))) { /* zeroed, 64-byte aligned */
      diag_error(hp->ctx, (IrLoc){0, 0}, "out of memory for intermediate '%s' (%zu bytes)", p->tensors[i]->name,
                 hp->bytes[i]);
      ok = false;
    }
    all[i] = hp->tmp[i];
  }
  int64_t err = 0;
  int nt = 0;
  for (int k = 0; ok && k < hp->nk; k++) {
    if (hp->clen[k] > 1) { /* a chain (slice.c): on the pool when one of its kernels is worth it (parallel.h) */
      bool big = false;
      for (int j = k; j < k + hp->clen[k]; j++) big |= hp->big[j];
      int n = hp->nthreads > 1 && big ? (nt ? nt : (nt = threads_now(hp))) : 1;
      if (n > 1) run_chain_parallel(hp, k, all, &err, n);
      else run_chain(hp, k, all, 0, hp->par[k], &err);
      k += hp->clen[k] - 1;
      if (err) ok = report_oob(hp, err);
      continue;
    }
    bool par = hp->par[k] > 1 && hp->nthreads > 1 && hp->big[k];
    if (par && !nt) nt = threads_now(hp);
    if (par && nt > 1)
      run_parallel(hp, hp->entry[k], all, hp->par[k], &err, nt);
    else
      hp->entry[k](all, 0, hp->par[k], &err);
    if (err) ok = report_oob(hp, err);
  }
  return ok;
}

int cg_host_pool_nests(const CgHostProgram *hp) {
  int n = 0;
  for (int k = 0; k < hp->nk; k++) n += hp->par[k] > 1 && hp->big[k];
  return n;
}

void cg_host_free(CgHostProgram *hp) {
  if (!hp) return;
  cg_pool_free(hp->pool);
  for (int i = 0; i < hp->ntmp; i++) ir_buffer_free(hp->tmp[i]);
  free(hp->tmp);
  free(hp->nozero);
  free(hp->bytes);
  free(hp->all);
  if (hp->jit) LLVMOrcDisposeLLJIT(hp->jit);
  if (hp->cache) cg_jit_cache_release(hp->cache, hp->ents, hp->nk);
  free(hp->ents);
  free(hp->entry);
  free(hp->par);
  free(hp->big);
  free(hp->clen);
  free(hp->chunk);
  free(hp);
}

bool cg_run_host(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, void *const *bufs) {
  CgHostProgram *hp = cg_host_compile(ctx, p, o);
  if (!hp) return false;
  bool ok = cg_host_run(hp, bufs);
  cg_host_free(hp);
  return ok;
}
