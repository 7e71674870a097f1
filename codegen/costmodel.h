/* costmodel.h -- leirc's analytic cost model (`--cost=model`, issue #8).
 *
 * A deterministic estimate of a program's run time, computed from the IR
 * alone (no compilation, no execution): for searches that must rank
 * candidates where measuring is impossible (a PTX target on a machine
 * without a GPU) or too slow.  The model is documented in full in
 * codegen/costmodel.c and in leirc(1), section COST MODEL.
 *
 * cost_model_estimate takes an analysed program (ir_sema succeeded).  It is
 * a pure function of the IR, t and gpu_sm: the same arguments give
 * bit-identical results on every machine, and nothing is printed.  It
 * follows the launch plan of the code generator (codegen/plan.c); for
 * COST_CUDA a program the GPU cannot run (the plan's errors: block limits,
 * a reduction over a block axis, ...) is reported with the plan's own
 * diagnostics on ctx and false is returned, as for a tensor without a
 * known shape; out is then zeroed.  The plan's warnings (scope demotion,
 * a nest without B loops) are not printed.
 *
 * What the fields mean: seconds, the estimate searches rank by; flops, the
 * right sides' operations weighted by their cost (exp = 60, ...) times
 * their executions; bytes, host: the lines moved into L1 with cold caches,
 * CUDA: HBM traffic; parallelism, host: cores the parallel loop uses, CUDA:
 * threads per launch (both weighted by the nests' times); coalescing and
 * occupancy: 1 on the host.
 */
#ifndef LEIR_COSTMODEL_H
#define LEIR_COSTMODEL_H

#include "ir/ir.h"

typedef enum CostTarget { COST_HOST, COST_CUDA } CostTarget;

typedef struct CostEstimate {
  double seconds;      /* the model's run-time estimate: the value searches rank by */
  double flops, bytes; /* arithmetic and modelled memory traffic */
  double parallelism;  /* independent work items available (threads) */
  double coalescing;   /* 0..1, CUDA: fraction of useful bytes per transaction */
  double occupancy;    /* 0..1, CUDA: resident warps / max */
} CostEstimate;

/* gpu_sm: the CUDA architecture (70 .. ; 90 = H200-class), ignored for
 * COST_HOST. */
bool cost_model_estimate(LeirCtx *ctx, const IrProgram *p, CostTarget t, int gpu_sm,
                         CostEstimate *out);

/* Which nests of p the host JIT runs on its worker pool (codegen/host.c):
 * par[i] for nest i (p->nnests entries), by codegen/parallel.h's rule on
 * the HOST estimate's terms.  False, with par all false, where
 * cost_model_estimate fails. */
bool cost_model_host_par(LeirCtx *ctx, const IrProgram *p, bool *par);

/* The HOST walk's terms of one statement (what cost_model_host_walk
 * reports, in walk order: nest by nest, statements in text order), for the
 * learned model's features (search/features.h).  chain[0..depth-1]: the
 * enclosing loops, outermost first (valid during the callback only).  li:
 * the chain index of the loop that is vectorised or not after LLVM's full
 * unrolling of the `unrolled` innermost iterations (-1: none).  The
 * reference counts classify every distinct reference of the statement by
 * its local step along [0] the innermost loop and [1] li: zero, one element
 * (unit), less than a line (short), a line or more (long), or an indirect
 * subscript (scattered). */
typedef struct CostStmtTerms {
  const IrStmt *stmt;
  int nest, depth, li;
  IrLoop *const *chain;
  const IrLoop *par;           /* the nest's parallel-safe loop (plan), or NULL */
  double iters, ops, cycles, walk_cycles;
  double l2_bytes, l3_bytes, mem_bytes, touch_bytes;
  double vector_width, chain_latency, unrolled, loads, stores;
  bool jammed;
  int nrefs;
  double elem_bytes;           /* the widest element among the references */
  int refs_zero[2], refs_unit[2], refs_short[2], refs_long[2], refs_scattered[2];
} CostStmtTerms;
typedef void (*CostStmtFn)(void *user, const CostStmtTerms *t);

/* cost_model_estimate(.., COST_HOST, ..) that also calls fn (unless NULL)
 * for every statement with its terms and fills par (unless NULL, p->nnests
 * entries) as cost_model_host_par does. */
bool cost_model_host_walk(LeirCtx *ctx, const IrProgram *p, CostEstimate *out, bool *par, CostStmtFn fn,
                          void *user);

/* The operations of expression e weighted as ops(s) above (subscripts
 * excluded): + - * = 1, / = 6, exp = 60, ...  fp_contract: --fp-contract=on
 * (a contracted a*b+c is one operation).  Also the code generator's
 * measure of code size (codegen/unroll.h). */
double cost_expr_ops(const IrExpr *e, bool fp_contract);

/* The cost of a bare `-O NAME`'s candidates (passes/pass.h, PassCostFn):
 * the model's seconds of q for user's target (a CostStepTarget *). */
typedef struct CostStepTarget {
  CostTarget target;
  int gpu_sm;
} CostStepTarget;
bool cost_model_step_cost(void *user, LeirCtx *ctx, const IrProgram *q, double *cost);

#endif /* LEIR_COSTMODEL_H */
