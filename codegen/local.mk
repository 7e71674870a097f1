## codegen
libleircore_la_SOURCES += codegen/mathlib_emit.c codegen/mathlib_emit.h
## the math routines emitted as LLVM IR: bit-identical to ir/mathlib.c
check_PROGRAMS += testsuite/unit/mathlib_emit_test
testsuite_unit_mathlib_emit_test_SOURCES = testsuite/unit/mathlib_emit_test.c
testsuite_unit_mathlib_emit_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_mathlib_emit_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## the LLVM back ends: one lowering, NVPTX and host (JIT) target layers
libleircore_la_SOURCES += codegen/codegen.h codegen/cg.h codegen/plan.c codegen/lower.c \
	codegen/lower_loops.c codegen/facts.h codegen/facts.c codegen/reduce.c codegen/stage.c codegen/kernel.c codegen/nvptx.c codegen/host.c \
	codegen/pool.h codegen/pool.c codegen/parallel.h codegen/unroll.h codegen/unroll.c codegen/group.c \
	codegen/fuse.c codegen/slice.h codegen/slice.c codegen/host_cache.h codegen/host_cache.c \
	codegen/exec.h codegen/exec_once.c codegen/exec_inline.c
check_PROGRAMS += testsuite/unit/codegen_test
testsuite_unit_codegen_test_SOURCES = testsuite/unit/codegen_test.c \
	testsuite/unit/host_check.c testsuite/unit/host_check.h \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_codegen_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_codegen_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
## the interchange of a reduction loop outward (lower_loops.c, issue 61)
check_PROGRAMS += testsuite/unit/interchange_test
testsuite_unit_interchange_test_SOURCES = testsuite/unit/interchange_test.c \
	testsuite/unit/host_check.c testsuite/unit/host_check.h \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_interchange_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_interchange_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
## the verification runs' rewrites (exec_once.c, exec_inline.c, issue 61)
check_PROGRAMS += testsuite/unit/exec_test
testsuite_unit_exec_test_SOURCES = testsuite/unit/exec_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_exec_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_exec_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## the host JIT's cache of compiled nests (host_cache.c, issue 61)
check_PROGRAMS += testsuite/unit/jitcache_test
testsuite_unit_jitcache_test_SOURCES = testsuite/unit/jitcache_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_jitcache_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_jitcache_test_LDADD = libleircore.la $(CMOCKA_LIBS)
check_PROGRAMS += testsuite/unit/host_sched_test
testsuite_unit_host_sched_test_SOURCES = testsuite/unit/host_sched_test.c \
	testsuite/unit/host_check.c testsuite/unit/host_check.h \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_host_sched_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_host_sched_test_LDADD = libleircore.la $(CMOCKA_LIBS) $(JANSSON_LIBS)
libleircore_la_SOURCES += codegen/emit.h codegen/emit_tir.c codegen/emit_text.c codegen/host_interp.c \
	codegen/cuda_interp.c
## the code-size bound of unrolled loops (issue 41)
check_PROGRAMS += testsuite/unit/unroll_test
testsuite_unit_unroll_test_SOURCES = testsuite/unit/unroll_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_unroll_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_unroll_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## the analytic cost model (--cost=model, issue 8)
libleircore_la_SOURCES += codegen/costmodel.h codegen/costmodel.c
check_PROGRAMS += testsuite/unit/costmodel_test
testsuite_unit_costmodel_test_SOURCES = testsuite/unit/costmodel_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_costmodel_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_costmodel_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## host run-time measurement (--tune --cost=measure, issue 8)
libleircore_la_SOURCES += codegen/measure.h codegen/measure.c
check_PROGRAMS += testsuite/unit/measure_test
testsuite_unit_measure_test_SOURCES = testsuite/unit/measure_test.c \
	testsuite/unit/unit_prog.c testsuite/unit/unit_prog.h
testsuite_unit_measure_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_measure_test_LDADD = libleircore.la $(CMOCKA_LIBS)
## PTX tests (DejaGnu; testsuite/lib/leirc-ptx.exp has their directives)
EXTRA_DIST += testsuite/leirc.ptx
## CUDA C emitter (--emit=cuda)
libleircore_la_SOURCES += codegen/emit_cuda.c codegen/emit_cuda_math.h
## Opt-in, slow (issue 9): TVM as a third executor of the corpus (PyPI's
## apache-tvm into $(top_builddir)/testsuite/scratch/tvm-venv) and nvcc over every
## corpus program's CUDA C.  Not part of `make check`.
check-interop: leirc$(EXEEXT)
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) '$(srcdir)/testsuite/interop/check-interop.sh'
check-tvm: check-interop
.PHONY: check-interop check-tvm
