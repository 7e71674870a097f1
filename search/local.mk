## search: the search layer of --tune (issue 58): schedule sketches, rules
## that generate multi-step moves as ordinary sequences of the strategies,
## with free factors that a search samples (search/search.h).
libleircore_la_SOURCES += search/search.h search/sketch.c search/sketch_conv.c search/sketch_inline.c search/sketch_search.c
check_PROGRAMS += testsuite/unit/sketch_test
testsuite_unit_sketch_test_SOURCES = testsuite/unit/sketch_test.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_unit_sketch_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_sketch_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
