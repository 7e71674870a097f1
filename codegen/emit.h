/* emit.h -- text emitters for other toolchains: TVM TensorIR (TVMScript)
 * and CUDA C. */
#ifndef LEIR_CODEGEN_EMIT_H
#define LEIR_CODEGEN_EMIT_H

#include "ir/ir.h"

typedef struct EmitTirOptions {
  /* B loops serial and every buffer global, for TVM's llvm (CPU) target */
  bool cpu;
  /* the dialect of the TVM releases on PyPI (checked with apache-tvm
   * 0.27.0.post1): `tirx` with `@T.prim_func(s_tir=True)` and `T.sblock`,
   * instead of the classic `tir` with `T.block` that SPEC §13.1 shows */
  bool tirx;
} EmitTirOptions;

/* A TVMScript `@T.prim_func` for the analysed program p (SPEC §13.1).
 * Deterministic. */
bool emit_tir(LeirCtx *ctx, const IrProgram *p, const EmitTirOptions *o, SBuf *out);

/* CUDA C for the analysed program p: `__global__` kernels formed as the PTX
 * path forms them (SPEC §13.2), leirc's math routines as `__device__`
 * functions, and a host function `leir_main` that allocates the
 * intermediates and launches the kernels.  Results equal the PTX path's bit
 * for bit when compiled with `nvcc -fmad=false`.  Deterministic. */
bool emit_cuda(LeirCtx *ctx, const IrProgram *p, SBuf *out);

/* The text of `leirc --emit=KIND` for kind "ptx", "llvm", "asm", "tir",
 * "tirx" or "cuda" (codegen/emit_text.c); host: --target=host.  False after
 * a diagnostic, or without one for an unknown kind. */
bool cg_emit_text(LeirCtx *ctx, const IrProgram *p, const char *kind, bool host, int gpu_sm, SBuf *out);

#endif
