## codegen
libleir_la_SOURCES += codegen/mathlib_emit.c codegen/mathlib_emit.h
## the math routines emitted as LLVM IR: bit-identical to ir/mathlib.c
check_PROGRAMS += testsuite/unit/mathlib_emit_test
testsuite_unit_mathlib_emit_test_SOURCES = testsuite/unit/mathlib_emit_test.c
testsuite_unit_mathlib_emit_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_mathlib_emit_test_LDADD = libleir.la $(CMOCKA_LIBS)
