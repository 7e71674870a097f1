## The reference interpreter and its support modules.
libleircore_la_SOURCES += interp/npy.c interp/npy.h interp/rng.c interp/rng.h \
	interp/compare.c interp/compare.h

check_PROGRAMS += testsuite/unit/npy_test testsuite/unit/rng_test \
	testsuite/unit/compare_test

testsuite_unit_npy_test_SOURCES = testsuite/unit/npy_test.c
testsuite_unit_npy_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_npy_test_LDADD = libleircore.la $(CMOCKA_LIBS)

testsuite_unit_rng_test_SOURCES = testsuite/unit/rng_test.c
testsuite_unit_rng_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_rng_test_LDADD = libleircore.la $(CMOCKA_LIBS)

testsuite_unit_compare_test_SOURCES = testsuite/unit/compare_test.c
testsuite_unit_compare_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_compare_test_LDADD = libleircore.la $(CMOCKA_LIBS)

## The interpreter proper: IR -> bytecode (compile.c), the bytecode loop
## (exec.c), entry points (interp.c), inputs/outputs (data.c), the
## per-pass checking hook and program comparison (check.c).
libleircore_la_SOURCES += interp/interp.h interp/interp.c interp/vm.h interp/ops.h \
	interp/compile.c interp/exec.c
libleircore_la_SOURCES += interp/data.h interp/data.c interp/check.h interp/check.c

check_PROGRAMS += testsuite/unit/interp_test
testsuite_unit_interp_test_SOURCES = testsuite/unit/interp_test.c
testsuite_unit_interp_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_interp_test_LDADD = libleircore.la $(CMOCKA_LIBS)

## Conformance with PyTorch on the corpus data (skips without the corpus).
check_PROGRAMS += testsuite/unit/conformance_test
testsuite_unit_conformance_test_SOURCES = testsuite/unit/conformance_test.c
testsuite_unit_conformance_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_conformance_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
