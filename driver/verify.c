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

#include <stdlib.h>

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

bool drv_jit_runner(void *ctx, struct InterpProg *ip) { return cg_run_host_interp(ctx, ip); }

bool drv_jit_runner_zeroed(void *ctx, struct InterpProg *ip) { return cg_run_host_interp_zeroed(ctx, ip, NULL); }

unsigned char *drv_jit_dirty_ok(const IrProgram *p, const unsigned char *kept) {
  unsigned char *ok = calloc((size_t)p->ntensors + 1, 1);
  for (int i = 0; ok && i < p->ntensors; i++) {
    const IrTensor *t = p->tensors[i];
    ok[i] = (t->role == ROLE_OUT || t->role == ROLE_TMP) && !(kept && kept[i]) && cg_written_first(p, t);
  }
  return ok;
}

int drv_fused_step_check(LeirCtx *ctx, const DrvOptions *o, const IrProgram *before, const IrProgram *after, int tol,
                         bool jit, InterpDiff *d) {
  InterpCompareOpts co = {1, o->run.seed, (CmpTolerance)tol, {false, jit ? 0 : drv_interp_budget(o)}, 0, NULL, NULL};
  return interp_fused_step_check(ctx, before, after, &co, jit ? drv_jit_runner : NULL, ctx, d);
}
