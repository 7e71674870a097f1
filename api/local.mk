## libleir: the compiler as an installed shared library (leir/leir.h,
## libleir(3)).  api/ holds only the public entry points; the work is done
## by libleircore.la, the same code leirc runs.  Only the functions of
## api/libleir.sym are exported (the core has internal leir_* names too).
lib_LTLIBRARIES += libleir.la
libleir_la_SOURCES = api/api.h api/context.c api/program.c api/candidates.c \
	api/run.c api/code.c api/check_step.c
libleir_la_LIBADD = libleircore.la
libleir_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-export-symbols $(srcdir)/api/libleir.sym
EXTRA_libleir_la_DEPENDENCIES = api/libleir.sym
EXTRA_DIST += api/libleir.sym
leirinclude_HEADERS += leir/leir.h
pkgconfig_DATA += libleir.pc
EXTRA_DIST += libleir.pc.in
dist_man_MANS += man/libleir.3

## Its tests: the public API through the shared library alone, and two
## threads using two contexts at once.
check_PROGRAMS += testsuite/unit/libleir_test testsuite/unit/libleir_threads_test
testsuite_unit_libleir_test_SOURCES = testsuite/unit/libleir_test.c
testsuite_unit_libleir_test_CPPFLAGS = -I$(top_srcdir) \
	-DEXPECT_VERSION='"$(PACKAGE_VERSION)"' -DTOP_SRCDIR='"$(abs_top_srcdir)"'
testsuite_unit_libleir_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_libleir_test_LDADD = libleir.la $(CMOCKA_LIBS)
testsuite_unit_libleir_threads_test_SOURCES = testsuite/unit/libleir_threads_test.c
testsuite_unit_libleir_threads_test_CPPFLAGS = -I$(top_srcdir)
testsuite_unit_libleir_threads_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
testsuite_unit_libleir_threads_test_LDADD = libleir.la $(CMOCKA_LIBS) -lpthread
