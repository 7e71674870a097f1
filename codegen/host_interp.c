/* host_interp.c -- the host JIT on the interpreter's buffers: what
 * `leirc --run --target=host` and libleir's "host" target run, so that
 * both give the interpreter's inputs to the same compiled code. */
#include "codegen/codegen.h"
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>

static bool run(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero, CgJitCache *c) {
  int n = interp_ntensors(ip);
  void **bufs = calloc((size_t)n + 1, sizeof *bufs);
  if (!bufs) {
    diag_error(ctx, (IrLoc){0, 0}, "cannot run the program: out of memory");
    return false;
  }
  for (int i = 0; i < n; i++) {
    InterpBuf *b = interp_buf(ip, i);
    bool z = all ? (b->t->role == ROLE_OUT || b->t->role == ROLE_TMP) && !interp_kept(ip, i) : zero && zero[i];
    if (z) memset(b->data, 0, b->nbytes);
    bufs[i] = b->data;
  }
  CgOptions co;
  cg_options_init(&co);
  co.target = CG_TARGET_HOST;
  CgHostProgram *hp = cg_host_compile_cached(ctx, interp_program(ip), &co, c);
  bool ok = hp && cg_host_run(hp, bufs);
  cg_host_free(hp);
  free(bufs);
  return ok;
}

bool cg_run_host_interp(LeirCtx *ctx, struct InterpProg *ip) { return run(ctx, ip, true, NULL, NULL); }

bool cg_run_host_interp_zeroed(LeirCtx *ctx, struct InterpProg *ip, const unsigned char *zero) {
  return run(ctx, ip, false, zero, NULL);
}

bool cg_run_host_interp_cached(LeirCtx *ctx, struct InterpProg *ip, bool all, const unsigned char *zero,
                               CgJitCache *c) {
  return run(ctx, ip, all, zero, c);
}
