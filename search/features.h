/* features.h -- the learned cost model's features of a program (issue 58
 * item 1): a fixed-length vector of floats computed from the lowered loop
 * nests the host JIT runs, with codegen/costmodel.c's walk (the launch
 * plan, the full unrolling of small inner loops, the vector width, the
 * unroll-and-jam, the footprint rule's traffic; cost_model_host_walk).
 *
 * Every feature is a deterministic function of the IR (no clock, no machine
 * query): the same program gives bit-identical vectors everywhere.  "lg x"
 * below is log2(1 + x); "iters" a statement's executions (the product of
 * its loops' extents); the "dominant" statement the one with the largest
 * roofline time max(cycles / 3e9, L2 bytes / 96e9, L3 bytes / 48e9, memory
 * bytes / 12e9) (the first on ties).  The vector (SEARCH_NFEATURES = 56):
 *
 *   0 lg(analytic model seconds * 1e9)   1 lg flops     2 lg bytes into L1
 *   3 the analytic model's parallelism
 *   program sums over statements:
 *   4 lg cycles   5 lg page-walk cycles   6 lg L2 bytes   7 lg L3 bytes
 *   8 lg memory bytes   9 lg iters
 *  10 share of iters vectorised (width > 1)   11 iters-weighted vector width
 *  12 share of iters in a serial reduction chain   13 share unroll-and-jammed
 *  14 lg (iters * loads per iteration)   15 lg (iters * stores)
 *  16 lg math-call executions (exp log erf sqrt, ** other than a square)
 *  17 lg divisions (/ // %)   18 lg selections (comparisons, if_then_else,
 *     max, min)
 *  19 lg arithmetic intensity (flops / bytes into L1)
 *  20 lg reuse (iters * references * element bytes / bytes into L1)
 *  21 top-level nests   22 statements   23 deepest loop chain
 *  24 lg bytes of all tensors   25 nests the JIT runs on its pool
 *  26 lg iters of statements whose nest has a parallel-safe loop
 *  the dominant statement:
 *  27 its share of the statements' summed roofline time   28 its depth
 *  29..32 lg extents of its innermost, 2nd, 3rd innermost and outermost
 *     loops (0 when absent)   33 lg extent of its vectorised-or-not loop li
 *  34 lg iterations unrolled inside li   35 vector width
 *  36 reduction-chain latency (cycles)   37 loads, 38 stores, 39 weighted
 *     operations per iteration
 *  40..44 shares of its references whose step along the innermost loop is
 *     zero, one element, under a line, a line or more, scattered
 *  45..49 the same along li   50 widest element (bytes)
 *  51 lg extent of its nest's parallel-safe loop (0: none)
 *  52 lg its bytes into L1   53 lg its iters   54 lg its math calls per
 *     iteration   55 share of its loops that are reduction loops
 */
#ifndef LEIR_SEARCH_FEATURES_H
#define LEIR_SEARCH_FEATURES_H

#include "ir/ir.h"

#define SEARCH_NFEATURES 56

/* The features of an analysed program (ir_sema succeeded).  False after a
 * located diagnostic on ctx (a tensor of unknown shape: the cost model's
 * error). */
bool search_features(LeirCtx *ctx, const IrProgram *p, float out[SEARCH_NFEATURES]);

/* The name of feature i ("analytic_seconds", ...), for data files. */
const char *search_feature_name(int i);

#endif /* LEIR_SEARCH_FEATURES_H */
