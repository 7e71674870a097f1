/* unroll.h -- the code-size bound of unrolled loops (leirc(1), UNROLLING).
 *
 * A U loop (and, on NVPTX, a V loop) asks the code generator to unroll it.
 * Unrolling copies the loop's body once per iteration, and ptxas's time
 * grows faster than the code: 256 copies of a 256-trip inner loop
 * (Product_reduction_over_a_dimension, loop_unrolling of its outer loop)
 * were 3,864 PTX lines that `ptxas -arch=sm_90` took 292 s to assemble.  U
 * runs like L (STRATEGIES §2.5, class E), so how much the code generator
 * unrolls changes no result: it unrolls only while the copies stay within
 * CG_UNROLL_MAX_SIZE and keeps a loop above it.
 *
 * The size of code, in the cost model's weighted operations: a statement
 * is its right side's operations weighted as in the cost model (+ = 1,
 * / = 6, exp = 60, ...; leirc(1), COST MODEL) plus one per tensor
 * reference (each load and the store); a loop the code keeps adds
 * CG_UNROLL_LOOP_WEIGHT to its body's size (its body counts once); a loop
 * unrolled into C copies is C times its body; a hardware-bound B loop adds
 * nothing.  A loop asking to be unrolled, with body size S and extent n,
 * is unrolled fully when n <= CG_UNROLL_MAX_FULL and n * S <=
 * CG_UNROLL_MAX_SIZE; otherwise into C = min(CG_UNROLL_PARTIAL,
 * CG_UNROLL_MAX_SIZE / S) copies per trip when C >= 2 (LLVM does this for
 * innermost loops only); otherwise it stays a loop. */
#ifndef LEIR_UNROLL_H
#define LEIR_UNROLL_H

#include "ir/ir.h"

#define CG_UNROLL_MAX_SIZE 16384  /* weighted operations of one unrolled loop */
#define CG_UNROLL_LOOP_WEIGHT 1024 /* a loop kept inside an unrolled body */
#define CG_UNROLL_MAX_FULL 256    /* longer loops are never unrolled fully */
#define CG_UNROLL_PARTIAL 8       /* copies per trip of a partial unroll */
#define CG_JAM_MAX_SIZE 2048      /* a body jammed by the host's unroll-and-jam (lower_loops.c jam_count, reduce.c thread_jam) */

/* Does the code generator treat loop l as one to unroll?  U loops, and V
 * loops on NVPTX (nvptx). */
bool cg_unroll_wanted(const IrLoop *l, bool nvptx);

/* How many copies of the body of loop li of nest n the code generator
 * makes: 0 when the loop is not one to unroll; its extent when it unrolls
 * it fully; 2 .. CG_UNROLL_PARTIAL for a partial unroll; 1 when it keeps
 * the loop.  fp_contract: --fp-contract=on (a fused a*b+c is one
 * operation). */
int64_t cg_unroll_copies(const IrNest *n, int li, bool nvptx, bool fp_contract);

/* The weighted size of the code of loops li.. of nest n and its body (the
 * measure above), saturating at a large value. */
double cg_unroll_size(const IrNest *n, int li, bool nvptx, bool fp_contract);

/* The size of a statement whose right side is x (or of a reduction's
 * contribution x folded into its partial): its weighted operations, one
 * per tensor reference and one for the store (or the fold). */
double cg_unroll_expr_size(const IrExpr *x, bool fp_contract);

/* The same measure for a chain of loops that is not a nest's own list: the
 * loops of a reduction region (codegen/reduce.c, emit_cuda.c), loops[0]
 * outermost.  cg_unroll_chain_size: the size of loops i.. around a body of
 * size body; cg_unroll_chain_copies: the copies of loops[i], as
 * cg_unroll_copies. */
double cg_unroll_chain_size(IrLoop *const *loops, int nloops, int i, double body, bool nvptx);
int64_t cg_unroll_chain_copies(IrLoop *const *loops, int nloops, int i, double body, bool nvptx);

#endif /* LEIR_UNROLL_H */
