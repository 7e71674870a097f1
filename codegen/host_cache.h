/* host_cache.h -- internals of the host JIT's cache of compiled nests
 * (host_cache.c), shared with host.c. */
#ifndef LEIR_CODEGEN_HOST_CACHE_H
#define LEIR_CODEGEN_HOST_CACHE_H

#include "codegen/cg.h"

#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

typedef struct CgJitEntry CgJitEntry;

/* host.c: an LLJIT that resolves process symbols (memset, floor, ...). */
LLVMOrcLLJITRef cg_host_make_jit(LeirCtx *ctx, int opt_level);
/* host.c: `internal compiler error: WHAT: MESSAGE` (consumes err). */
void cg_host_llvm_error(LeirCtx *ctx, const char *what, LLVMErrorRef err);

/* Plans p (fused) into plan and gives, per kernel, its cached entry (one
 * reference each, *out malloc'ed, plan->nkernels of them): taken from the
 * cache or compiled into it.  False after a diagnostic (nothing held). */
bool cg_jit_cache_kernels(CgJitCache *c, LeirCtx *ctx, const IrProgram *p, const CgOptions *o, CgPlan *plan,
                          CgJitEntry ***out);
/* Drops the references of ents[0..n) (NULLs skipped), then evicts down to
 * the bounds. */
void cg_jit_cache_release(CgJitCache *c, CgJitEntry **ents, int n);
/* The address of the entry function leir_k_entry(bufs, lo, hi, err). */
void *cg_jit_entry_fn(const CgJitEntry *e);
/* The optimisation level of the cache's JIT (-1 before its first compile). */
int cg_jit_cache_opt_level(const CgJitCache *c);

#endif /* LEIR_CODEGEN_HOST_CACHE_H */
