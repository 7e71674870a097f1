## The IR, semantic analysis and the verifier.
libleircore_la_SOURCES += ir/ir.h ir/ir.c ir/arena.c ir/diag.c ir/print.c \
	ir/sema.h ir/sema.c ir/shape.c ir/init.c ir/verify.c ir/decls_json.c
libleircore_la_SOURCES += ir/memlimit.h ir/memlimit.c ir/buffer.h ir/buffer.c
libleircore_la_SOURCES += ir/readfile.h ir/readfile.c ir/load.c
libleircore_la_SOURCES += ir/range.h ir/range.c ir/hash.h
libleircore_la_SOURCES += ir/value.h ir/value.c ir/value_expr.c ir/value_program.c \
	ir/value_sign.c ir/value_reduce.c \
	ir/value_query.c ir/value_mag.h ir/value_mag.c
libleircore_la_SOURCES += ir/strength.h ir/strength.c
libleircore_la_SOURCES += ir/contract.h ir/contract.c
libleircore_la_SOURCES += ir/mathlib.c ir/mathlib.h

## The value analysis' node-at-a-time queries and constant folding
## (ir/value_query.c, issue 39)
check_PROGRAMS += testsuite/unit/value_query_test
testsuite_unit_value_query_test_SOURCES = testsuite/unit/value_query_test.c
testsuite_unit_value_query_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_value_query_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm

## leirc's own math routines (exp, log, erf, pow, f16/bf16 rounding)
check_PROGRAMS += testsuite/unit/mathlib_test
testsuite_unit_mathlib_test_SOURCES = testsuite/unit/mathlib_test.c testsuite/unit/mathlib_ulp.h
testsuite_unit_mathlib_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_mathlib_test_LDADD = libleircore.la $(CMOCKA_LIBS)

## --max-memory: SIZE parsing, the tensors' byte count, the interpreter's refusal
check_PROGRAMS += testsuite/unit/memlimit_test
testsuite_unit_memlimit_test_SOURCES = testsuite/unit/memlimit_test.c \
	testsuite/unit/unit_fx.c testsuite/unit/unit_fx.h
testsuite_unit_memlimit_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_memlimit_test_LDADD = libleircore.la $(CMOCKA_LIBS)

## The saturating counts (ir_mul_sat_u64, ir_nest_execs, ...) at their edges
check_PROGRAMS += testsuite/unit/counts_test
testsuite_unit_counts_test_SOURCES = testsuite/unit/counts_test.c \
	testsuite/unit/unit_fx.c testsuite/unit/unit_fx.h
testsuite_unit_counts_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_counts_test_LDADD = libleircore.la $(CMOCKA_LIBS)

## The value analysis (issue 39): transfer functions one by one, soundness
## sweeps against the interpreter's operations, guards, the fixed point
check_PROGRAMS += testsuite/unit/value_test
testsuite_unit_value_test_SOURCES = testsuite/unit/value_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_value_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_value_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm

## The value analysis's magnitude relative to the inputs (issue 39):
## each transfer function's classes, recurrences, the passes' questions
check_PROGRAMS += testsuite/unit/value_mag_test
testsuite_unit_value_mag_test_SOURCES = testsuite/unit/value_mag_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_value_mag_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_value_mag_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm

## The value analysis's answers to the passes (issue 39): signs as
## computed, reads by name, culprits, the softmax sum, reads before writes
check_PROGRAMS += testsuite/unit/value_sign_test
testsuite_unit_value_sign_test_SOURCES = testsuite/unit/value_sign_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_value_sign_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_value_sign_test_LDADD = libleircore.la $(CMOCKA_LIBS) -lm
