/* table.c -- the 43 strategies of STRATEGIES.md, in its order (graph §1,
 * operator §2, memory §3, math §4), with level, exactness class (§6),
 * short alias and implementation, then leirc's own strategies (not in
 * STRATEGIES.md, `own` set).  To implement a pass, replace its NULL by the
 * address of its PassImpl (see passes/README.md). */
#include "passes/passes.h"

#define G PASS_GRAPH
#define O PASS_OPERATOR
#define M PASS_MEMORY
#define X PASS_MATH
#define E PASS_E
#define D PASS_EDAGGER
#define T PASS_T

const PassInfo pass_table[] = {
  /* graph (§1) */
  {"operator_fusion", "opfusion", G, E, "put two consecutive nests with the same loops into one body", &pass_impl_operator_fusion, false},
  {"operator_fission", "fission", G, E, "split a multi-statement body into one nest per statement", &pass_impl_operator_fission, false},
  {"compute_inline", "inline", G, D, "substitute a producer's expression into its consumer", &pass_impl_compute_inline, false},
  {"expression_splitting", "exprsplit", G, D, "hoist one sub-expression into its own nest", &pass_impl_expression_splitting, false},
  {"tensor_concat_to_fuse_operators", "concat", G, E, "concatenate the inputs of two identical computations", &pass_impl_tensor_concat_to_fuse_operators, false},
  {"tensor_split_to_decouple_operators", "tsplit", G, D, "split one computation into two halves", &pass_impl_tensor_split_to_decouple_operators, false},
  {"common_subexpression_elimination", "cse", G, E, "compute a repeated sub-expression once", &pass_impl_common_subexpression_elimination, false},
  {"dead_code_elimination", "dce", G, E, "delete a nest whose result is never read", &pass_impl_dead_code_elimination, false},
  {"expression_reorder", "exprreorder", G, E, "swap two adjacent independent nests", &pass_impl_expression_reorder, false},
  /* operator (§2) */
  {"loop_reorder", "reorder", O, D, "permute two loops of a nest", &pass_impl_loop_reorder, false},
  {"loop_tiling", "tile", O, E, "tile two adjacent spatial loops", &pass_impl_loop_tiling, false},
  {"loop_split", "split", O, E, "split one spatial loop in two", &pass_impl_loop_split, false},
  {"loop_fusion", "fuse", O, E, "merge an outer/inner loop pair into one loop", &pass_impl_loop_fusion, false},
  {"loop_unrolling", "unroll", O, E, "mark a loop for unrolling", &pass_impl_loop_unrolling, false},
  {"loop_parallelization", "parallel", O, E, "mark a loop parallel", &pass_impl_loop_parallelization, false},
  {"loop_vectorization", "vectorize", O, E, "mark a short loop vectorised", &pass_impl_loop_vectorization, false},
  {"loop_binding", "bind", O, E, "bind a loop to a GPU thread/block axis", &pass_impl_loop_binding, false},
  {"reduction_factorization", "rfactor", O, D, "split a reduction loop and add the partial results",
   &pass_impl_reduction_factorization, false},
  /* memory (§3) */
  {"cache_read_write", "cache", M, E, "stage an input or output through shared/local memory", &pass_impl_cache_read_write, false},
  {"layout_transformation", "layout", M, E, "re-layout one input through a copy", &pass_impl_layout_transformation, false},
  {"set_storage_scope", "scope", M, E, "change an intermediate's memory scope", &pass_impl_set_storage_scope, false},
  {"set_storage_layout", "storage_layout", M, E, "change an intermediate's layout everywhere (no copy)",
   &pass_impl_set_storage_layout, false},
  {"precompute_indices", "precompute", M, E, "store a compound index expression in an index tensor",
   &pass_impl_precompute_indices, false},
  /* math (§4) */
  {"factorization", "factor", X, T, "pull common factors out of sums, merge repeated factors", &pass_impl_factorization, false},
  {"expand_factorization", "expand", X, T, "distribute products over sums, expand integer powers", &pass_impl_expand_factorization, false},
  {"cancellation", "cancel", X, T, "rational normal form with common factors removed", &pass_impl_cancellation, false},
  {"expand_cancellation", "expand_cancel", X, T, "rational function as a sum of simpler fractions (reverse of cancellation)", &pass_impl_expand_cancellation, false},
  {"apart", NULL, X, T, "single fraction back to a sum of fractions (reverse of together)", &pass_impl_apart, false},
  {"together", NULL, X, T, "sum of fractions to one fraction", &pass_impl_together, false},
  {"powsimp", NULL, X, T, "combine powers and exponentials", &pass_impl_powsimp, false},
  {"expand_powsimp", NULL, X, T, "split combined powers and exponentials (reverse of powsimp)", &pass_impl_expand_powsimp, false},
  {"expand_log", NULL, X, T, "split logarithms of products and powers", &pass_impl_expand_log, false},
  {"logsimp", NULL, X, T, "combine sums of logarithms", &pass_impl_logsimp, false},
  {"collect", NULL, X, T, "group the terms of a sum by a leaf", &pass_impl_collect, false},
  {"expand_collect", NULL, X, T, "expand grouped terms (reverse of collect)", &pass_impl_expand_collect, false},
  {"partially_equivalent_then_correct", "pec", X, E, "one convolution over concatenated inputs, then fix the seam", &pass_impl_partially_equivalent_then_correct, false},
  {"normal_loop_max_to_prefix_max", "prefix_max", X, E, "turn a max reduction into a running (prefix) max", &pass_impl_normal_loop_max_to_prefix_max, false},
  {"exponential_split", "expsplit", X, T, "exp(x) = exp(x-y)*exp(y) for an existing y", &pass_impl_exponential_split, false},
  {"multiplicative_split", "mulsplit", X, T, "replace X by X/y*y", &pass_impl_multiplicative_split, false},
  {"additive_split", "addsplit", X, T, "replace X by X+y-y", &pass_impl_additive_split, false},
  {"normal_loop_summation_on_exp_to_prefix_summation_on_exp", "prefix_sum_exp", X, T,
   "running max and running exp-sum", &pass_impl_normal_loop_summation_on_exp_to_prefix_summation_on_exp, false},
  {"online_softmax", NULL, X, T, "fused running max/sum feeding the normalisation", &pass_impl_online_softmax, false},
  {"flashattention_wo_tiling", "flashattn", X, T, "online softmax fused with the following P*V product", &pass_impl_flashattention_wo_tiling, false},
  /* leirc's own (not in STRATEGIES.md) */
  {"scan_rewrite", "scan", X, E, "a masked prefix sum or product as a running scan (leirc's own)", &pass_impl_scan_rewrite,
   true},
  {"reduction_rfactor", "vrfactor", O, D, "split a reduction into V strided partial results, then add them in order (leirc's own)",
   &pass_impl_reduction_rfactor, true},
};

const int pass_table_size = (int)(sizeof pass_table / sizeof pass_table[0]);
const int pass_table_paper = 43;
