/* slice.h -- host: consecutive kernels run slice by slice (slice.c). */
#ifndef LEIR_CODEGEN_SLICE_H
#define LEIR_CODEGEN_SLICE_H

#include "codegen/cg.h"

/* The working set of one slice (bytes): half the L2 cache of the CPUs
 * measured (Zen 4: 1 MiB a core). */
#define CG_SLICE_BYTES ((int64_t)512 << 10)
/* A chain makes at least this many slices (slice.c). */
#define CG_SLICE_MIN 4
/* A kernel of a chain runs at most this many statement iterations per
 * element the chain writes (slice.c). */
#define CG_SLICE_REUSE 8

/* For each kernel k of plan (p's nests), len[k] = the number of kernels
 * k, k+1, ... that run slice by slice together (1: alone, as planned) and
 * chunk[k] = the iterations of their parallel loops per slice, for the
 * first kernel of each chain (kernels inside a chain get len 0).  See
 * slice.c for when kernels chain. */
void cg_slice_chains(const IrProgram *p, const CgPlan *plan, int *len, int64_t *chunk);

#endif /* LEIR_CODEGEN_SLICE_H */
