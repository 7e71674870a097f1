## The leirc command line.
bin_PROGRAMS += leirc
leirc_SOURCES = driver/main.c driver/driver.h driver/io.c driver/run.c \
	driver/passes_cli.c driver/tune.h driver/tune.c driver/tune_eval.c \
	driver/steps.c driver/steps_format.h driver/steps_format.c driver/steps_cache.h \
	driver/steps_cache.c driver/steps_enum.c driver/cost_cli.c \
	driver/checkstep_cli.c driver/eval.c driver/eval_authors.c driver/verify.c driver/incr.c driver/jobs.c \
	driver/serve.h driver/serve.c driver/serve_tools.c driver/serve_store.c \
	driver/policy.h driver/policy.c
leirc_LDADD = libleircore.la libleirrt.la

## driver/incr.c (the program after a step run from its first changed nest).
check_PROGRAMS += testsuite/unit/incr_test
testsuite_unit_incr_test_SOURCES = testsuite/unit/incr_test.c driver/incr.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_incr_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_incr_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)

## driver/steps_cache.c (the verdict memo and --steps-cache of --emit-steps).
check_PROGRAMS += testsuite/unit/stepscache_test
testsuite_unit_stepscache_test_SOURCES = testsuite/unit/stepscache_test.c driver/steps_cache.c \
	driver/steps_cache.h testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_stepscache_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_stepscache_test_LDADD = libleircore.la $(CMOCKA_LIBS)
