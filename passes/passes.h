/* passes.h -- the PassImpl of every implemented pass, for the table
 * (passes/table.c).  One line per pass; keep the order of STRATEGIES.md. */
#ifndef LEIR_PASSES_PASSES_H
#define LEIR_PASSES_PASSES_H

#include "passes/pass.h"

/* graph level (§1) */
extern const PassImpl pass_impl_operator_fusion;
extern const PassImpl pass_impl_operator_fission;
extern const PassImpl pass_impl_compute_inline;
extern const PassImpl pass_impl_expression_splitting;
extern const PassImpl pass_impl_tensor_concat_to_fuse_operators;
extern const PassImpl pass_impl_tensor_split_to_decouple_operators;
extern const PassImpl pass_impl_common_subexpression_elimination;
extern const PassImpl pass_impl_dead_code_elimination;
extern const PassImpl pass_impl_expression_reorder;

/* operator level (§2) */
extern const PassImpl pass_impl_loop_reorder;
extern const PassImpl pass_impl_loop_tiling;
extern const PassImpl pass_impl_loop_split;
extern const PassImpl pass_impl_loop_fusion;
extern const PassImpl pass_impl_loop_unrolling;
extern const PassImpl pass_impl_loop_parallelization;
extern const PassImpl pass_impl_loop_vectorization;
extern const PassImpl pass_impl_loop_binding;
extern const PassImpl pass_impl_reduction_factorization;

/* memory level (§3) */
extern const PassImpl pass_impl_cache_read_write;
extern const PassImpl pass_impl_layout_transformation;
extern const PassImpl pass_impl_set_storage_scope;
extern const PassImpl pass_impl_set_storage_layout;
extern const PassImpl pass_impl_precompute_indices;

/* math level (§4) */
extern const PassImpl pass_impl_factorization;
extern const PassImpl pass_impl_expand_factorization;
extern const PassImpl pass_impl_cancellation;
extern const PassImpl pass_impl_expand_cancellation;
extern const PassImpl pass_impl_apart;
extern const PassImpl pass_impl_together;
extern const PassImpl pass_impl_powsimp;
extern const PassImpl pass_impl_expand_powsimp;
extern const PassImpl pass_impl_expand_log;
extern const PassImpl pass_impl_logsimp;
extern const PassImpl pass_impl_collect;
extern const PassImpl pass_impl_expand_collect;
extern const PassImpl pass_impl_partially_equivalent_then_correct;
extern const PassImpl pass_impl_normal_loop_max_to_prefix_max;
extern const PassImpl pass_impl_exponential_split;
extern const PassImpl pass_impl_multiplicative_split;
extern const PassImpl pass_impl_additive_split;
extern const PassImpl pass_impl_normal_loop_summation_on_exp_to_prefix_summation_on_exp;
extern const PassImpl pass_impl_online_softmax;
extern const PassImpl pass_impl_flashattention_wo_tiling;

/* leirc's own strategies (not in STRATEGIES.md), after the 43 */
extern const PassImpl pass_impl_scan_rewrite;
extern const PassImpl pass_impl_reduction_rfactor;

#endif /* LEIR_PASSES_PASSES_H */
