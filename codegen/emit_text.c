/* emit_text.c -- `--emit=KIND` for every kind but leir: one dispatch over
 * the back ends, shared by leirc and libleir. */
#include "codegen/codegen.h"
#include "codegen/emit.h"

#include <string.h>

bool cg_emit_text(LeirCtx *ctx, const IrProgram *p, const char *kind, bool host, int gpu_sm, SBuf *out) {
  CgOptions co;
  cg_options_init(&co);
  co.gpu_sm = gpu_sm;
  bool asm_ = !strcmp(kind, "asm");
  co.target = host || asm_ ? CG_TARGET_HOST : CG_TARGET_NVPTX;
  if (!strcmp(kind, "tir") || !strcmp(kind, "tirx")) {
    EmitTirOptions to = {host, !strcmp(kind, "tirx")};
    return emit_tir(ctx, p, &to, out);
  }
  if (!strcmp(kind, "cuda")) return emit_cuda(ctx, p, out);
  if (!strcmp(kind, "ptx")) return cg_emit_ptx(ctx, p, &co, out);
  if (asm_) return cg_emit_asm(ctx, p, &co, out);
  if (!strcmp(kind, "llvm")) return cg_emit_llvm(ctx, p, &co, out);
  return false;
}
