## passes: the pass interface and manager, the table of the 43 strategies,
## shared analyses, and one file per strategy (passes/README.md: how to add
## one).
EXTRA_DIST += passes/README.md
libleircore_la_SOURCES += passes/pass.h passes/passes.h passes/passmgr.c passes/table.c \
	passes/rewrite.h passes/rewrite.c passes/rewrite_bounds.c passes/rewrite_build.c passes/names.c passes/deps.h passes/deps.c \
	passes/layout.h passes/layout.c passes/stepcheck.h passes/stepcheck.c \
	passes/cot.h passes/cot.c
## graph level (§1)
libleircore_la_SOURCES += passes/dataflow.h passes/dataflow.c passes/graph.h passes/graph.c
libleircore_la_SOURCES += passes/operator_fusion.c passes/operator_fission.c passes/compute_inline.c \
	passes/expression_splitting.c passes/tensor_concat_to_fuse_operators.c \
	passes/tensor_split_to_decouple_operators.c passes/common_subexpression_elimination.c \
	passes/dead_code_elimination.c passes/expression_reorder.c
## operator level (§2)
libleircore_la_SOURCES += passes/loop_reorder.c passes/loop_tiling.c passes/loop_split.c \
	passes/loop_fusion.c passes/loop_unrolling.c passes/loop_parallelization.c \
	passes/loop_vectorization.c passes/loop_binding.c passes/reduction_factorization.c
## memory level (§3)
libleircore_la_SOURCES += passes/cache_read_write.c passes/layout_transformation.c \
	passes/set_storage_scope.c passes/set_storage_layout.c passes/precompute_indices.c
## math level (§4.1-§4.12): the algebra module and the twelve symbolic strategies
libleircore_la_SOURCES += passes/alg.h passes/alg_num.c passes/alg_expr.c passes/alg_poly.c \
	passes/alg_rules.c passes/alg_pass.h passes/alg_pass.c
libleircore_la_SOURCES += passes/factorization.c passes/expand_factorization.c passes/cancellation.c \
	passes/expand_cancellation.c passes/apart.c passes/together.c passes/powsimp.c \
	passes/expand_powsimp.c passes/expand_log.c passes/logsimp.c passes/collect.c \
	passes/expand_collect.c
## math level (§4.13-§4.20)
libleircore_la_SOURCES += passes/mathpat.h passes/mathpat.c passes/mathpat_values.c \
	passes/mathpat_chain.c passes/mathpat_split.c
libleircore_la_SOURCES += passes/partially_equivalent_then_correct.c
libleircore_la_SOURCES += passes/normal_loop_max_to_prefix_max.c
libleircore_la_SOURCES += passes/normal_loop_summation_on_exp_to_prefix_summation_on_exp.c
libleircore_la_SOURCES += passes/online_softmax.c
libleircore_la_SOURCES += passes/flashattention_wo_tiling.c
libleircore_la_SOURCES += passes/exponential_split.c passes/value_split.c
libleircore_la_SOURCES += passes/multiplicative_split.c passes/additive_split.c
## leirc's own strategies (not in STRATEGIES.md)
libleircore_la_SOURCES += passes/scan_rewrite.c
libleircore_la_SOURCES += passes/reduction_rfactor.c

## tests
check_PROGRAMS += testsuite/unit/passes_test
testsuite_unit_passes_test_SOURCES = testsuite/unit/passes_test.c
testsuite_unit_passes_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_passes_test_LDADD = libleircore.la $(CMOCKA_LIBS)
check_PROGRAMS += testsuite/unit/passes_corpus_test
testsuite_unit_passes_corpus_test_SOURCES = testsuite/unit/passes_corpus_test.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_unit_passes_corpus_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_passes_corpus_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
check_PROGRAMS += testsuite/unit/algebra_test
testsuite_unit_algebra_test_SOURCES = testsuite/unit/algebra_test.c
testsuite_unit_algebra_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_algebra_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## graph-level strategies against the reference's outputs (STRATEGIES §1)
check_PROGRAMS += testsuite/unit/passes_graph_test
testsuite_unit_passes_graph_test_SOURCES = testsuite/unit/passes_graph_test.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_unit_passes_graph_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_passes_graph_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
## scan_rewrite (leirc's own) on the corpus's scans: candidates, bit-equality, PyTorch's data
check_PROGRAMS += testsuite/unit/scan_corpus_test
testsuite_unit_scan_corpus_test_SOURCES = testsuite/unit/scan_corpus_test.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_unit_scan_corpus_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_scan_corpus_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
## --check-step on the corpus transforms and on damaged afters (issue 40)
check_PROGRAMS += testsuite/unit/stepcheck_test
testsuite_unit_stepcheck_test_SOURCES = testsuite/unit/stepcheck_test.c
testsuite_unit_stepcheck_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_stepcheck_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
## the CoT templates of --emit-steps --format=steptp|chat (issue 40)
check_PROGRAMS += testsuite/unit/cot_test
testsuite_unit_cot_test_SOURCES = testsuite/unit/cot_test.c
testsuite_unit_cot_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_cot_test_LDADD = libleircore.la $(CMOCKA_LIBS)
EXTRA_DIST += testsuite/unit/cot.expected
