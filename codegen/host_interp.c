/* host_interp.c -- the host JIT on the interpreter's buffers: what
 * `leirc --run --target=host` and libleir's "host" target run, so that
 * both give the interpreter's inputs to the same compiled code. */
#include "codegen/codegen.h"
#include "codegen/exec.h"
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>

/* The program that ip's run compiles: as written, or rewritten for a
 * verification run (exec.h) -- rule 1 for any mode but CG_EXEC_AS_WRITTEN,
 * rule 2 for CG_EXEC_OUTPUTS with the outputs, the tensors kept by the
 * caller (interp_kept) and those `more` marks live; dropped[id] marks the tensors it no longer
 * mentions (their buffers are neither zeroed nor touched). */
static const IrProgram *exec_program(LeirCtx *ctx, struct InterpProg *ip, CgExecMode mode, const unsigned char *more,
                                     unsigned char *dropped) {
  const IrProgram *p = interp_program(ip);
  if (mode == CG_EXEC_AS_WRITTEN) return p;
  p = cg_exec_once(ctx, p, NULL);
  if (mode != CG_EXEC_OUTPUTS) return p;
  int n = interp_ntensors(ip);
  unsigned char *live = calloc((size_t)n + 1, 1);
  if (!live) return p;
  for (int i = 0; i < n; i++)
    live[i] = interp_buf(ip, i)->t->role != ROLE_TMP || interp_kept(ip, i) || (more && more[i]);
  p = cg_exec_inline(ctx, p, live, dropped, NULL);
  free(live);
  return p;
}

static bool run(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero, CgJitCache *c,
                CgExecMode mode, const unsigned char *live) {
  int n = interp_ntensors(ip);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  unsigned char *dropped = calloc((size_t)n + 1, 1);
  if (!bufs || !dropped) {
    free(bufs);
    free(dropped);
    diag_error(ctx, (IrLoc){0, 0}, "cannot run the program: out of memory");
    return false;
  }
  const IrProgram *p = exec_program(ctx, ip, mode, live, dropped);
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    bool z = all ? (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) && !interp_kept(ip, i) : zero && zero[i];
    if (z && !dropped[i]) memset(b->data, 0, b->nbytes);
    bufs[i] = b->data;
  }
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  CgHostProgram *hp = cg_host_compile_cached(ctx, p, &co, c);
  bool ok = hp && cg_host_run(hp, bufs);
  cg_host_free(hp);
  free(bufs);
  free(dropped);
  return ok;
}

bool cg_run_host_interp(LeirCtx *ctx, struct InterpProg *ip) { return run(ctx, ip, true, NULL, NULL, CG_EXEC_AS_WRITTEN, NULL); }

bool cg_run_host_interp_zeroed(LeirCtx *ctx, struct InterpProg *ip, const unsigned char *zero) {
  return run(ctx, ip, false, zero, NULL, CG_EXEC_AS_WRITTEN, NULL);
}

bool cg_run_host_interp_cached(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero,
                               CgJitCache *c) {
  return run(ctx, ip, all, zero, c, CG_EXEC_AS_WRITTEN, NULL);
}

bool cg_run_host_interp_exec(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero, CgJitCache *c,
                             CgExecMode mode, const unsigned char *live) {
  return run(ctx, ip, all, zero, c, mode, live);
}
