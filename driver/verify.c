/* verify.c -- which engine runs a program that --emit-steps or --eval
 * checks: the interpreter within its budget (--max-steps; without it
 * DRV_STEPS_DEFAULT_MAX_STEPS), the host JIT above it within
 * --jit-max-steps (default DRV_JIT_DEFAULT_MAX_STEPS; 0: never), else
 * none (the run is not made).  The JIT runs the same program on the
 * interpreter's buffers (codegen/host_interp.c) and is bit-identical to
 * it, so a comparison mixes the two freely and its rules are those of
 * --compare and --verify (interp_compare_ran_with, interp/check.h).
 */
#include "config.h"
#include "driver/driver.h"

#include "codegen/codegen.h"
#include "interp/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t drv_interp_budget(const DrvOptions *o) {
  return o->steps.max_steps_given ? o->run.max_steps : DRV_STEPS_DEFAULT_MAX_STEPS;
}

uint64_t drv_jit_budget(const DrvOptions *o) {
  return o->steps.jit_max_steps_given ? o->steps.jit_max_steps : DRV_JIT_DEFAULT_MAX_STEPS;
}

DrvEngine drv_engine_for(const DrvOptions *o, uint64_t work) {
  uint64_t b = drv_interp_budget(o), j = drv_jit_budget(o);
  if (!b || work <= b) return ENGINE_INTERP;
  if (j && work <= j) return ENGINE_JIT;
  return ENGINE_NONE;
}

uint64_t drv_verify_limit(const DrvOptions *o) {
  uint64_t b = drv_interp_budget(o), j = drv_jit_budget(o);
  return b && j > b ? j : b;
}

static void cache_free(void *c) { cg_jit_cache_free(c); }

/* The context's cache of compiled nests (codegen/host_cache.c), made at its
 * first JIT run and freed with it; none with LEIRC_JIT_CACHE=0. */
static CgJitCache *cache_of(LeirCtx *ctx) {
  if (!ctx->jit_cache) {
    const char *e = getenv("LEIRC_JIT_CACHE");
    if (e && !strcmp(e, "0")) return NULL;
    ctx->jit_cache = cg_jit_cache_new(DRV_JIT_CACHE_ENTRIES, DRV_JIT_CACHE_BYTES);
    ctx->jit_cache_free = cache_free;
  }
  return ctx->jit_cache;
}

void drv_jit_cache_dir(LeirCtx *ctx, const char *dir) {
  CgJitCache *c = cache_of(ctx);
  if (c) cg_jit_cache_set_dir(c, dir);
}

/* A JIT run through the cache (store: the kernels it compiles written to
 * the cache's directory); with LEIRC_INCR_STATS, one line on stderr:
 * `jitc HITS MISSES LOWER_S OPT_S CODE_S DISK` (its kernels found in the
 * cache, compiled, the CPU seconds of its compile, CgJitCacheStats, and
 * the kernels read from the disk). */
static bool jit_run(LeirCtx *ctx, struct InterpProg *ip, bool all, bool store, CgExecMode mode,
                    const unsigned char *live) {
  CgJitCache *c = cache_of(ctx);
  CgJitCacheStats a, b;
  bool stats = c && getenv("LEIRC_INCR_STATS");
  if (stats) cg_jit_cache_stats(c, &a);
  if (c && store) cg_jit_cache_set_store(c, true);
  bool ok = cg_run_host_interp_exec(ctx, ip, all, NULL, c, mode, live);
  if (c && store) cg_jit_cache_set_store(c, false);
  if (stats) {
    cg_jit_cache_stats(c, &b);
    fprintf(stderr, "jitc %llu %llu %.4f %.4f %.4f %llu\n", (unsigned long long)(b.hits - a.hits),
            (unsigned long long)(b.misses - a.misses), b.lower_s - a.lower_s, b.opt_s - a.opt_s, b.code_s - a.code_s,
            (unsigned long long)(b.disk_hits - a.disk_hits));
  }
  return ok;
}

/* Every verification run is rewritten (codegen/exec.h): rule 1 always,
 * since every tensor keeps its bytes (a before's intermediates may be kept
 * for later records, a tail's checked and taken); rule 2 only where the
 * caller reads nothing but the outputs afterwards (the _outputs runners).
 * Timed runs never come here (cg_host_measure, --tune's measurements), nor
 * --run (cg_run_host_interp): they run the program as written. */
bool drv_jit_runner(void *ctx, struct InterpProg *ip) { return jit_run(ctx, ip, true, false, CG_EXEC_SAME_STATE, NULL); }

bool drv_jit_runner_outputs(void *ctx, struct InterpProg *ip) {
  return jit_run(ctx, ip, true, false, CG_EXEC_OUTPUTS, NULL);
}

bool drv_jit_runner_zeroed(void *ctx, struct InterpProg *ip) {
  return jit_run(ctx, ip, false, false, CG_EXEC_SAME_STATE, NULL);
}

bool drv_jit_runner_zeroed_outputs(void *ctx, struct InterpProg *ip) {
  return jit_run(ctx, ip, false, false, CG_EXEC_OUTPUTS, NULL);
}

bool drv_jit_runner_live(void *ctx, struct InterpProg *ip, const unsigned char *live) {
  return jit_run(ctx, ip, true, false, CG_EXEC_OUTPUTS, live);
}

bool drv_jit_runner_zeroed_live(void *ctx, struct InterpProg *ip, const unsigned char *live) {
  return jit_run(ctx, ip, false, false, CG_EXEC_OUTPUTS, live);
}

bool drv_jit_runner_store(void *ctx, struct InterpProg *ip) {
  return jit_run(ctx, ip, true, true, CG_EXEC_SAME_STATE, NULL);
}

unsigned char *drv_jit_dirty_ok(const IrProgram *p, const unsigned char *kept) {
  unsigned char *ok = calloc((size_t)p->ntensors + 1, 1);
  for (int i = 0; ok && i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    ok[i] = (t->role == ROLE_OUT || t->role == ROLE_TMP) && !(kept && kept[i]) && cg_written_first(p, t);
  }
  return ok;
}

int drv_fused_step_check(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, int tol,
                         bool jit, struct InterpProg *inputs, InterpDiff *d) {
  InterpCompareOpts co = {1, o->run.seed, (CmpTolerance)tol, {false, jit ? 0 : drv_interp_budget(o)}, 0, NULL, NULL,
                          inputs};
  return interp_fused_step_check(ctx, before, after, &co, jit ? drv_jit_runner : NULL, ctx, d);
}
