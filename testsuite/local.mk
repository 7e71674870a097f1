## The testsuite: `make check` runs testsuite/check.sh, which runs every
## unit test program (check_PROGRAMS under testsuite/unit/), the DejaGnu
## testsuite, the manual pages' check and pytest as LEIR_CHECK_JOBS
## concurrent streams (default: nproc), and prints `N passed, N failed` last.

EXTRA_DIST += testsuite/check.sh testsuite/lib testsuite/config \
	testsuite/leirc.parse testsuite/leirc.diag \
	testsuite/leirc.run testsuite/leirc.compare testsuite/leirc.passes \
	testsuite/leirc.ptx testsuite/leirc.passmgr testsuite/leirc.steps \
	testsuite/leirc.interop testsuite/interop
EXTRA_DIST += testsuite/leirc.tune
EXTRA_DIST += testsuite/leirc.cost
EXTRA_DIST += testsuite/python
EXTRA_DIST += testsuite/leirc.checkstep

check-local: leirc$(EXEEXT)
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  RUNTEST='$(LEIR_RUNTEST)' \
	  UNIT_TESTS='$(filter testsuite/unit/%,$(check_PROGRAMS))' \
	  PYTHON='$(PYTHON)' LEIR_CORPUS='$(LEIR_CORPUS)' CC='$(CC)' SAN_LDFLAGS='$(SAN_LDFLAGS)' \
	  PACKAGE_VERSION='$(PACKAGE_VERSION)' SHELL_CMD='$(SHELL)' \
	  LEIR_CHECK_JOBS='$(LEIR_CHECK_JOBS)' \
	  $(SHELL) '$(srcdir)/testsuite/check.sh'

CLEANFILES += testsuite/*.log testsuite/leirc.sum testsuite/runtest.out

## Everything the tests write lives under testsuite/scratch (the DejaGnu
## tests, pytest and `make check-interop` run there): one rule removes it.
clean-local: clean-testsuite-scratch
.PHONY: clean-testsuite-scratch
clean-testsuite-scratch:
	-rm -rf testsuite/scratch

## Front-end unit tests
check_PROGRAMS += testsuite/unit/frontend_test testsuite/unit/corpus_test
testsuite_unit_frontend_test_SOURCES = testsuite/unit/frontend_test.c \
	testsuite/unit/unit_fx.c testsuite/unit/unit_fx.h
testsuite_unit_frontend_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_frontend_test_LDADD = libleircore.la $(CMOCKA_LIBS)
testsuite_unit_corpus_test_SOURCES = testsuite/unit/corpus_test.c
testsuite_unit_corpus_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_corpus_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
