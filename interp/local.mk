## The reference interpreter and its support modules.
libleir_la_SOURCES += interp/npy.c interp/npy.h interp/rng.c interp/rng.h \
	interp/compare.c interp/compare.h

check_PROGRAMS += testsuite/unit/npy_test testsuite/unit/rng_test \
	testsuite/unit/compare_test

testsuite_unit_npy_test_SOURCES = testsuite/unit/npy_test.c
testsuite_unit_npy_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_npy_test_LDADD = libleir.la $(CMOCKA_LIBS)

testsuite_unit_rng_test_SOURCES = testsuite/unit/rng_test.c
testsuite_unit_rng_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_rng_test_LDADD = libleir.la $(CMOCKA_LIBS)

testsuite_unit_compare_test_SOURCES = testsuite/unit/compare_test.c
testsuite_unit_compare_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_compare_test_LDADD = libleir.la $(CMOCKA_LIBS)
