## runtime: libleirrt, the CUDA Driver API loader (dlopen; no CUDA headers,
## no LLVM, no jansson), its installed header and leir.pc, and leirrt-run.
## The runtime's sources also build with a bare
##   gcc -std=c17 -O2 -I. -Iruntime runtime/rt-*.c interp/npy.c \
##       runtime/leirrt-run.c -ldl -o leirrt-run
## (testsuite/gpu/run.sh does that on GPU machines), so they include no
## config.h and use only C17 + POSIX.

RT_CPPFLAGS = -I$(top_srcdir) -I$(top_srcdir)/runtime

lib_LTLIBRARIES += libleirrt.la
libleirrt_la_SOURCES = runtime/rt-device.c runtime/rt-plan.c \
	runtime/rt-module.c runtime/rt-run.c runtime/rt-internal.h
libleirrt_la_CPPFLAGS = $(RT_CPPFLAGS)
libleirrt_la_LDFLAGS = -version-info 0:0:0 -no-undefined \
	-export-symbols-regex '^rt_'

leirincludedir = $(includedir)/leir
leirinclude_HEADERS = runtime/leir/runtime.h
pkgconfig_DATA += leir.pc

## leirrt-run: a small runner for leirc's PTX (the GPU testsuite uses it).
noinst_PROGRAMS += leirrt-run
leirrt_run_SOURCES = runtime/leirrt-run.c interp/npy.c interp/npy.h
leirrt_run_CPPFLAGS = $(RT_CPPFLAGS)
leirrt_run_LDADD = libleirrt.la

## Unit test: the plan parser, the no-driver path, and rt_open/load/run
## against a mock driver library (testsuite/unit/mockcuda.c).
check_LTLIBRARIES += testsuite/unit/mockcuda.la
testsuite_unit_mockcuda_la_SOURCES = testsuite/unit/mockcuda.c
testsuite_unit_mockcuda_la_LDFLAGS = -module -avoid-version -rpath /nowhere \
	-no-undefined

check_PROGRAMS += testsuite/unit/runtime_test
testsuite_unit_runtime_test_SOURCES = testsuite/unit/runtime_test.c \
	interp/npy.c interp/npy.h
testsuite_unit_runtime_test_CPPFLAGS = $(RT_CPPFLAGS) \
	-DMOCK_CUDA_SO='"$(abs_top_builddir)/testsuite/unit/.libs/mockcuda.so"' \
	-DLEIRRT_RUN='"$(abs_top_builddir)/leirrt-run$(EXEEXT)"'
testsuite_unit_runtime_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_runtime_test_LDADD = libleirrt.la $(CMOCKA_LIBS)

EXTRA_DIST += testsuite/gpu/run.sh testsuite/gpu/make-bundle.sh \
	testsuite/gpu/compare.py testsuite/gpu/bench.py
dist_man_MANS += man/libleirrt.3
