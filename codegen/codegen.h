/* codegen.h -- leirc's LLVM back ends (SPEC §13): one lowering from the IR to
 * LLVM IR with two thin target layers, NVPTX (PTX for sm_70 and newer, with
 * the launch plan of codegen/plan.h in front) and the host (x86-64 native
 * code, JIT-compiled in process with ORC LLJIT).
 *
 * Every function takes an analysed program (ir_sema succeeded) and reports
 * problems through diag_error/diag_warn on ctx; it returns false after an
 * error.  Outputs are deterministic: the same program and options give the
 * same bytes.
 */
#ifndef LEIR_CODEGEN_H
#define LEIR_CODEGEN_H

#include "ir/ir.h"

typedef enum CgTarget { CG_TARGET_NVPTX, CG_TARGET_HOST } CgTarget;

typedef struct CgOptions {
  CgTarget target;
  int gpu_sm;    /* NVPTX: 70 .. (default 90) */
  int opt_level; /* LLVM pipeline: 0 .. 3 (default 2 when 0 is not asked) */
  bool opt_given;
  int nthreads;  /* host run: worker threads (0 = the number of CPUs) */
  int64_t par_min_work; /* host run: > 0, a parallel nest with fewer
                           innermost iterations runs on one thread; 0, the
                           cost model decides (CG_PAR_MIN_S,
                           codegen/parallel.h); tests and benchmarks set it */
} CgOptions;

/* Defaults: NVPTX, sm_90, -O2, threads = CPUs. */
void cg_options_init(CgOptions *o);

/* "sm_90" -> 90.  Accepts sm_70 and newer; returns false with a message in
 * err (no trailing newline) otherwise. */
bool cg_parse_gpu_arch(const char *s, int *sm, char *err, size_t errlen);

/* The PTX ISA version (as 10*major+minor, 78 = PTX 7.8) that leirc asks for
 * with --gpu-arch=sm_NN: the lowest one the architecture needs. */
int cg_ptx_isa_for_sm(int sm);

/* Textual LLVM IR of the module for o->target, after the optimisation
 * pipeline (o->opt_level). */
bool cg_emit_llvm(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out);

/* The launch plan comment lines followed by the PTX text (NVPTX):
 *   // leir-plan 1
 *   // leir-tensor NAME ROLE DTYPE DIMS      arguments (in, param, out) in
 *        p->tensors order, then the global intermediates (tmp); DIMS "64,32"
 *        or "-" for a 0-d tensor
 *   // leir-launch KERNEL GX,GY,GZ BX,BY,BZ SHMEM HOSTLOOPS ARGS   per nest,
 *        in order; HOSTLOOPS "-" or "a:8,c:4" (outermost first, one launch
 *        per iteration); ARGS tensor names and %i (host loop values, 64-bit),
 *        in kernel parameter order, or "-" when the kernel takes none.
 * Shared and local (s/l) tensors honoured on the GPU live inside the
 * kernels and are not listed. */
bool cg_emit_ptx(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out);

/* Host assembly (AT&T syntax) of the host module. */
bool cg_emit_asm(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, SBuf *out);

/* ------------------------------------------------------------ host JIT */

typedef struct CgHostProgram CgHostProgram;

/* The CPUs this process may run on (its affinity mask: taskset, cpusets),
 * else those online: the host JIT's default thread count. */
int cg_host_cpus(void);

/* JIT-compiles the program for this machine.  NULL after a diagnostic. */
CgHostProgram *cg_host_compile(LeirCtx *ctx, const IrProgram *p, const CgOptions *o);

/* Runs it once.  bufs[i] is the buffer of p->tensors[i] (dense row-major,
 * f16/bf16 as their 16-bit patterns, bool as one byte 0/1); arguments (in,
 * param, out) must be given, intermediates may be NULL (they are then the
 * program's own buffers, allocated at the first run that needs them, kept
 * until cg_host_free and zero-filled like the interpreter's at every run).
 * Outputs are used as given (the interpreter starts them at zero).  One
 * caller at a time.  Returns false after a diagnostic: memory, or an
 * out-of-bounds access (`file:line:col: error: out-of-bounds read of A:
 * shape is [8]`). */
bool cg_host_run(CgHostProgram *hp, void *const *bufs);

void cg_host_free(CgHostProgram *hp);

/* The nests that run on the worker pool when more than one thread is
 * asked for (codegen/parallel.h's rule, over the plan's fused nests). */
int cg_host_pool_nests(const CgHostProgram *hp);

/* Compile and run in one call. */
bool cg_run_host(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, void *const *bufs);

/* ------------------------------------------------------------ the cache of compiled nests */

/* A cache of the host JIT's compiled kernels (codegen/host_cache.c, issue
 * 61): a compile through it reuses the machine code of every kernel (a
 * top-level nest after cg_fuse_nests) that an earlier compile lowered to
 * the same LLVM module -- same nest text, statement and tensor ids, every
 * tensor's dtype and shape, plan, optimisation level.  At most max_entries
 * kernels and max_bytes of keys (their module text), least recently used
 * evicted first.  One thread at a time; the compiled programs that use it
 * are freed before it. */
typedef struct CgJitCache CgJitCache;

typedef struct CgJitCacheStats {
  uint64_t hits, misses, evictions; /* kernels of compiles, since it was made:
                                       found in memory, compiled, evicted */
  uint64_t disk_hits, stored;       /* read from the disk, written there */
  int entries;                      /* now */
  size_t bytes;                     /* of the keys now */
  double lower_s, opt_s, code_s;    /* process CPU seconds: planning and
                                       lowering (every kernel), LLVM's
                                       pipeline and machine code (misses) */
} CgJitCacheStats;

CgJitCache *cg_jit_cache_new(int max_entries, size_t max_bytes);
void cg_jit_cache_free(CgJitCache *c);
void cg_jit_cache_stats(const CgJitCache *c, CgJitCacheStats *s);
/* The cache's directory on disk (DIR/jit, made when first written;
 * NULL: none): a kernel not in memory is looked for there.  With store,
 * the kernels compiled from then on are written there too.  Any number of
 * processes may share it; nothing is ever removed from it. */
void cg_jit_cache_set_dir(CgJitCache *c, const char *dir);
void cg_jit_cache_set_store(CgJitCache *c, bool store);

/* cg_host_compile through cache c (NULL: cg_host_compile).  The program
 * runs the same code and gives the same bits either way; each kernel is
 * compiled as a module of its own.  A compile at another optimisation
 * level than the cache's first is not cached. */
CgHostProgram *cg_host_compile_cached(LeirCtx *ctx, const IrProgram *p, const CgOptions *o, CgJitCache *c);

/* Runs p JIT-compiled on the buffers of the interpreter's InterpProg ip
 * (interp/interp.h), outputs and intermediates zero-filled first, as an
 * interpreter run without poison (codegen/host_interp.c): `leirc --run
 * --target=host` and libleir's "host" target.  False after a diagnostic. */
struct InterpProg;
bool cg_run_host_interp(LeirCtx *ctx, struct InterpProg *ip);
/* cg_run_host_interp for a caller that has zeroed them already: the
 * outputs and intermediates are used as they are, except those that
 * zero[id] marks (NULL: none), which are zero-filled first; a tensor that
 * cg_written_first accepts may hold anything (--emit-steps: one zeroing
 * per run, none for a tensor written first). */
bool cg_run_host_interp_zeroed(LeirCtx *ctx, struct InterpProg *ip, const unsigned char *zero);
/* cg_run_host_interp (all: true) or cg_run_host_interp_zeroed (all:
 * false, zero) compiled through cache c (NULL: none). */
bool cg_run_host_interp_cached(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero,
                               CgJitCache *c);
/* What a run on the interpreter's buffers compiles (codegen/exec.h):
 * the program as written (every run that is timed or whose tensors the
 * user sees: --run, --cost=measure, --tune's measurements), or rewritten
 * for a verification run that compares outputs -- CG_EXEC_SAME_STATE:
 * every tensor's final bytes the program's (rule 1: a loop whose index a
 * statement does not mention runs once); CG_EXEC_OUTPUTS: only the
 * outputs' and the kept tensors' (interp_kept) bytes are the program's,
 * the caller reads no other intermediate after the run (rules 1 and 2:
 * a temporary read once is computed where it is read). */
typedef enum CgExecMode { CG_EXEC_AS_WRITTEN, CG_EXEC_SAME_STATE, CG_EXEC_OUTPUTS } CgExecMode;
/* cg_run_host_interp_cached with the program rewritten as mode says;
 * with CG_EXEC_OUTPUTS, live[id] (may be NULL) marks more tensors whose
 * final bytes the caller reads.  An intermediate that rule 2 drops is not
 * zeroed (its bytes are left as they were). */
bool cg_run_host_interp_exec(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero, CgJitCache *c,
                             CgExecMode mode, const unsigned char *live);

/* Does the host JIT's code of p write every element of t before it reads
 * one (so that t's old bytes are never seen and need no zeroing)?  See
 * codegen/host.c for the rule. */
bool cg_written_first(const IrProgram *p, const IrTensor *t);

/* The same on the GPU: the PTX for sm_`gpu_sm` run by libleirrt
 * (codegen/cuda_interp.c).  0 on success, 1 after a diagnostic, 77 when no
 * CUDA driver is found (the runtime's message into nodriver[n], no
 * diagnostic). */
int cg_run_cuda_interp(LeirCtx *ctx, struct InterpProg *ip, int gpu_sm, char *nodriver, size_t n);

#endif /* LEIR_CODEGEN_H */
