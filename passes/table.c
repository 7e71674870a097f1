/* table.c -- the 43 strategies of STRATEGIES.md, in its order (graph §1,
 * operator §2, memory §3, math §4), with level, exactness class (§6),
 * short alias and implementation.  To implement a pass, replace its NULL
 * by the address of its PassImpl (see passes/README.md). */
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
  {"operator_fusion", "opfusion", G, E, "put two consecutive nests with the same loops into one body", &pass_impl_operator_fusion},
  {"operator_fission", "fission", G, E, "split a multi-statement body into one nest per statement", &pass_impl_operator_fission},
  {"compute_inline", "inline", G, D, "substitute a producer's expression into its consumer", &pass_impl_compute_inline},
  {"expression_splitting", "exprsplit", G, D, "hoist one sub-expression into its own nest", &pass_impl_expression_splitting},
  {"tensor_concat_to_fuse_operators", "concat", G, E, "concatenate the inputs of two identical computations", &pass_impl_tensor_concat_to_fuse_operators},
  {"tensor_split_to_decouple_operators", "tsplit", G, D, "split one computation into two halves", &pass_impl_tensor_split_to_decouple_operators},
  {"common_subexpression_elimination", "cse", G, E, "compute a repeated sub-expression once", &pass_impl_common_subexpression_elimination},
  {"dead_code_elimination", "dce", G, E, "delete a nest whose result is never read", &pass_impl_dead_code_elimination},
  {"expression_reorder", "exprreorder", G, E, "swap two adjacent independent nests", &pass_impl_expression_reorder},
  /* operator (§2) */
  {"loop_reorder", "reorder", O, D, "permute two loops of a nest", &pass_impl_loop_reorder},
  {"loop_tiling", "tile", O, E, "tile two adjacent spatial loops", &pass_impl_loop_tiling},
  {"loop_split", "split", O, E, "split one spatial loop in two", &pass_impl_loop_split},
  {"loop_fusion", "fuse", O, E, "merge an outer/inner loop pair into one loop", &pass_impl_loop_fusion},
  {"loop_unrolling", "unroll", O, E, "mark a loop for unrolling", &pass_impl_loop_unrolling},
  {"loop_parallelization", "parallel", O, E, "mark a loop parallel", &pass_impl_loop_parallelization},
  {"loop_vectorization", "vectorize", O, E, "mark a short loop vectorised", &pass_impl_loop_vectorization},
  {"loop_binding", "bind", O, E, "bind a loop to a GPU thread/block axis", &pass_impl_loop_binding},
  {"reduction_factorization", "rfactor", O, D, "split a reduction loop and add the partial results",
   &pass_impl_reduction_factorization},
  /* memory (§3) */
  {"cache_read_write", "cache", M, E, "stage an input or output through shared/local memory", &pass_impl_cache_read_write},
  {"layout_transformation", "layout", M, E, "re-layout one input through a copy", &pass_impl_layout_transformation},
  {"set_storage_scope", "scope", M, E, "change an intermediate's memory scope", &pass_impl_set_storage_scope},
  {"set_storage_layout", "storage_layout", M, E, "change an intermediate's layout everywhere (no copy)",
   &pass_impl_set_storage_layout},
  {"precompute_indices", "precompute", M, E, "store a compound index expression in an index tensor",
   &pass_impl_precompute_indices},
  /* math (§4) */
  {"factorization", "factor", X, T, "pull common factors out of sums, merge repeated factors", &pass_impl_factorization},
  {"expand_factorization", "expand", X, T, "distribute products over sums, expand integer powers", &pass_impl_expand_factorization},
  {"cancellation", "cancel", X, T, "rational normal form with common factors removed", &pass_impl_cancellation},
  {"expand_cancellation", "expand_cancel", X, T, "rational function as a sum of simpler fractions (reverse of cancellation)", &pass_impl_expand_cancellation},
  {"apart", NULL, X, T, "single fraction back to a sum of fractions (reverse of together)", &pass_impl_apart},
  {"together", NULL, X, T, "sum of fractions to one fraction", &pass_impl_together},
  {"powsimp", NULL, X, T, "combine powers and exponentials", &pass_impl_powsimp},
  {"expand_powsimp", NULL, X, T, "split combined powers and exponentials (reverse of powsimp)", &pass_impl_expand_powsimp},
  {"expand_log", NULL, X, T, "split logarithms of products and powers", &pass_impl_expand_log},
  {"logsimp", NULL, X, T, "combine sums of logarithms", &pass_impl_logsimp},
  {"collect", NULL, X, T, "group the terms of a sum by a leaf", &pass_impl_collect},
  {"expand_collect", NULL, X, T, "expand grouped terms (reverse of collect)", &pass_impl_expand_collect},
  {"partially_equivalent_then_correct", "pec", X, E, "one convolution over concatenated inputs, then fix the seam", &pass_impl_partially_equivalent_then_correct},
  {"normal_loop_max_to_prefix_max", "prefix_max", X, E, "turn a max reduction into a running (prefix) max", &pass_impl_normal_loop_max_to_prefix_max},
  {"exponential_split", "expsplit", X, T, "exp(x) = exp(x-y)*exp(y) for an existing y", &pass_impl_exponential_split},
  {"multiplicative_split", "mulsplit", X, T, "replace X by X/y*y", &pass_impl_multiplicative_split},
  {"additive_split", "addsplit", X, T, "replace X by X+y-y", &pass_impl_additive_split},
  {"normal_loop_summation_on_exp_to_prefix_summation_on_exp", "prefix_sum_exp", X, T,
   "running max and running exp-sum", &pass_impl_normal_loop_summation_on_exp_to_prefix_summation_on_exp},
  {"online_softmax", NULL, X, T, "fused running max/sum feeding the normalisation", &pass_impl_online_softmax},
  {"flashattention_wo_tiling", "flashattn", X, T, "online softmax fused with the following P*V product", &pass_impl_flashattention_wo_tiling},
};

const int pass_table_size = (int)(sizeof pass_table / sizeof pass_table[0]);
