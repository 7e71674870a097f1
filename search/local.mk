## search: the search layer of --tune (issue 58): schedule sketches, rules
## that generate multi-step moves as ordinary sequences of the strategies,
## with free factors that a search samples (search/search.h).
libleircore_la_SOURCES += search/search.h search/sketch.c search/sketch_conv.c search/sketch_inline.c search/sketch_rfactor.c \
	search/sketch_search.c \
	search/features.h search/features.c
check_PROGRAMS += testsuite/unit/sketch_test
testsuite_unit_sketch_test_SOURCES = testsuite/unit/sketch_test.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_unit_sketch_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_sketch_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
check_PROGRAMS += testsuite/unit/features_test
testsuite_unit_features_test_SOURCES = testsuite/unit/features_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_features_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_features_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm
## The learned cost model (issue 58 item 1): XGBoost's C API where configure
## found it (search/learned.h); the model file is installed in $(pkgdatadir)
## and copied into the build tree, where leirc finds it beside itself.
libleircore_la_SOURCES += search/learned.h search/learned.c
costmodeldir = $(pkgdatadir)
dist_costmodel_DATA = tools/costmodel/costmodel.json
noinst_DATA = costmodel.json
CLEANFILES += costmodel.json
costmodel.json: $(srcdir)/tools/costmodel/costmodel.json
	cp $(srcdir)/tools/costmodel/costmodel.json $@
check_PROGRAMS += testsuite/unit/learned_test
testsuite_unit_learned_test_SOURCES = testsuite/unit/learned_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_learned_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_learned_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm
