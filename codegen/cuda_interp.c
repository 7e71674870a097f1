/* cuda_interp.c -- the program's PTX (launch plan included) run by
 * libleirrt on the interpreter's buffers: `leirc --run --target=cuda` and
 * libleir's "cuda" target. */
#include "codegen/codegen.h"
#include "interp/interp.h"
#include "leir/runtime.h"

#include <stdio.h>
#include <stdlib.h>

int cg_run_cuda_interp(LeirCtx *ctx, struct InterpProg *ip, int gpu_sm, char *nodriver, size_t n) {
  static const IrLoc noloc;
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_NVPTX;
  co.gpu_sm = gpu_sm;
  SBuf ptx = {0};
  if (!cg_emit_ptx(ctx, interp_program(ip), &co, &ptx)) return 1;
  char err[4096];
  RtPlan *plan = NULL;
  RtDevice *dev = NULL;
  RtModule *m = NULL;
  void **args = NULL;
  int rc = 1;
  if (rt_plan_parse(ptx.s, &plan, err, sizeof err)) {
    diag_error(ctx, noloc, "internal compiler error: launch plan: %s", err);
    goto out;
  }
  int st = rt_open(&dev, 0, err, sizeof err);
  if (st == RT_ENODRIVER) {
    snprintf(nodriver, n, "%s", err);
    rc = 77;
    goto out;
  }
  if (st) {
    diag_error(ctx, noloc, "%s", err);
    goto out;
  }
  if (rt_module_load(dev, ptx.s, &m, err, sizeof err)) {
    diag_error(ctx, noloc, "the CUDA driver rejected the PTX: %s", err);
    goto out;
  }
  size_t na = rt_plan_arg_count(plan);
  args = calloc(na + 1, sizeof *args);
  for (size_t i = 0; args && i < na; i++) {
    RtTensorInfo ti;
    InterpBuf *b = rt_plan_tensor(plan, i, &ti) ? NULL : interp_find(ip, ti.name);
    if (!b || b->nbytes != ti.bytes) {
      diag_error(ctx, noloc, "internal compiler error: launch plan argument %zu does not match the program", i);
      goto out;
    }
    args[i] = b->data;
  }
  if (args && !rt_run_plan(dev, m, plan, args, NULL, err, sizeof err))
    rc = 0;
  else
    diag_error(ctx, noloc, "running on the GPU failed: %s", args ? err : "out of memory");
out:
  free(args);
  if (m) rt_module_unload(m);
  if (dev) rt_close(dev);
  if (plan) rt_plan_free(plan);
  sbuf_free(&ptx);
  return rc;
}

