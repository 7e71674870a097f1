## libFuzzer harnesses (issue 11).  `make fuzz` builds them with $(FUZZ_CC)
## (clang: the fuzzer runtime is clang's), compiling the sources they need
## directly, apart from the libtool objects of the normal build, which it
## leaves alone.  `make check-fuzz` runs each for $(FUZZ_SECONDS) seconds
## from a seed corpus built at run time (testsuite/fuzz/make-seeds.sh) out of
## examples/, the testsuite and ../shared/corpus.  Neither is part of `make
## all` or `make check`.  Override on the command line, e.g.
##   make fuzz FUZZ_CC=clang-14
##   make check-fuzz FUZZ_SECONDS=600 FUZZ_FLAGS='-jobs=1 -workers=1'
## (FUZZ_FLAGS: more libFuzzer flags for every harness.)
FUZZ_CC = clang
FUZZ_CFLAGS = -g -O1 -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SANITIZE = address,undefined
FUZZ_SECONDS = 60
FUZZ_FLAGS =
FUZZ_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)
FUZZ_WARN = $(WARN_CFLAGS) -Wno-unused-function -Wno-sign-compare \
	-Wno-unused-but-set-variable -Wno-unneeded-internal-declaration
FUZZ_COMPILE = $(FUZZ_CC) $(STD_CFLAGS) -ffp-contract=off $(FUZZ_WARN) $(FUZZ_CFLAGS) $(FUZZ_CPPFLAGS)

## The front end: the lexer and parser (generated C, found in the build or
## the source tree through VPATH) and the IR.  The generated automata are
## compiled without comparison tracing: they are table-driven, so tracing
## their comparisons teaches the fuzzer nothing (the dictionary does that)
## and took a third of its time.
FUZZ_GEN_OBJ = testsuite/fuzz/gen-lexer.o testsuite/fuzz/gen-parser.o
FUZZ_FRONT_SRC = parser/parse.c ir/ir.c ir/arena.c ir/diag.c ir/print.c \
	ir/sema.c ir/shape.c ir/value.c ir/value_expr.c ir/value_program.c \
	ir/value_reduce.c ir/value_query.c ir/value_mag.c ir/value_sign.c ir/init.c \
	ir/verify.c ir/mathlib.c
FUZZ_FRONT_HDR = parser/leir.h parser/parse.h ir/ir.h ir/sema.h ir/value.h

## The interpreter and the passes: the library's sources, the LLVM back end
## (codegen/) and the search layer above it (search/: its sketches ask the
## back end for the host's vector registers) left out, compiled once into
## an archive for the two harnesses that use them (one recipe: automake
## allows no pattern rules).  Nothing else may include an LLVM header.
FUZZ_LIB_SRC = $(libleircore_la_SOURCES) parser/parse.c
FUZZ_LIB_SKIP = codegen/*|search/*|*.h
FUZZ_LIB = testsuite/fuzz/libleirfuzz.a
FUZZ_COMMON = testsuite/fuzz/fuzz_common.c testsuite/fuzz/fuzz_common.h

FUZZ_PROGS = testsuite/fuzz/fuzz_parse$(EXEEXT) testsuite/fuzz/fuzz_interp$(EXEEXT) \
	testsuite/fuzz/fuzz_passes$(EXEEXT)

testsuite/fuzz/gen-lexer.o: lexer/leir.c $(FUZZ_FRONT_HDR)
	@$(MKDIR_P) testsuite/fuzz
	$(AM_V_CC)$(FUZZ_COMPILE) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) \
	  -fno-sanitize-coverage=trace-cmp -c -o $@ $(filter %.c,$^)
testsuite/fuzz/gen-parser.o: parser/leir.c $(FUZZ_FRONT_HDR)
	@$(MKDIR_P) testsuite/fuzz
	$(AM_V_CC)$(FUZZ_COMPILE) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) \
	  -fno-sanitize-coverage=trace-cmp -c -o $@ $(filter %.c,$^)

testsuite/fuzz/fuzz_parse$(EXEEXT): testsuite/fuzz/fuzz_parse.c $(FUZZ_COMMON) \
	  $(FUZZ_FRONT_SRC) $(FUZZ_GEN_OBJ) $(FUZZ_FRONT_HDR)
	$(AM_V_CCLD)$(FUZZ_COMPILE) -fsanitize=fuzzer,$(FUZZ_SANITIZE) -o $@ \
	  $(filter %.c %.o,$^)

$(FUZZ_LIB): $(FUZZ_LIB_SRC) $(FUZZ_GEN_OBJ) parser/leir.h
	@rm -rf testsuite/fuzz/lib.tmp && $(MKDIR_P) testsuite/fuzz/lib.tmp
	$(AM_V_GEN)for f in $(FUZZ_LIB_SRC); do \
	  case $$f in $(FUZZ_LIB_SKIP)) continue;; esac; \
	  o=testsuite/fuzz/lib.tmp/`echo "$$f" | sed 's|/|_|g; s|\.c$$|.o|'`; \
	  test -f "$$f" || f="$(srcdir)/$$f"; \
	  $(FUZZ_COMPILE) $(JANSSON_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) \
	    -c -o "$$o" "$$f" || exit 1; \
	done; \
	rm -f $@ && $(AR) rcs $@ testsuite/fuzz/lib.tmp/*.o $(FUZZ_GEN_OBJ) && rm -rf testsuite/fuzz/lib.tmp

testsuite/fuzz/fuzz_interp$(EXEEXT): testsuite/fuzz/fuzz_interp.c $(FUZZ_COMMON) $(FUZZ_LIB)
	$(AM_V_CCLD)$(FUZZ_COMPILE) -fsanitize=fuzzer,$(FUZZ_SANITIZE) -o $@ \
	  $(filter %.c %.a,$^) $(JANSSON_LIBS) -lm

testsuite/fuzz/fuzz_passes$(EXEEXT): testsuite/fuzz/fuzz_passes.c $(FUZZ_COMMON) $(FUZZ_LIB)
	$(AM_V_CCLD)$(FUZZ_COMPILE) -fsanitize=fuzzer,$(FUZZ_SANITIZE) -o $@ \
	  $(filter %.c %.a,$^) $(JANSSON_LIBS) -lm

## `make check` runs this first (it needs no clang): every source of the
## fuzz library must preprocess without LLVM's headers, as `make fuzz`
## compiles it.  (search/sketch.c, which includes codegen/cg.h, broke
## `make fuzz` from the sketch merge until search/ was left out.)
.PHONY: check-fuzz-sources
check-local: check-fuzz-sources
check-fuzz-sources: parser/leir.h
	@bad=; for f in $(FUZZ_LIB_SRC); do \
	  case $$f in $(FUZZ_LIB_SKIP)) continue;; esac; \
	  test -f "$$f" || f="$(srcdir)/$$f"; \
	  $(CC) -E $(DEFS) $(FUZZ_CPPFLAGS) $(JANSSON_CFLAGS) -o /dev/null "$$f" 2>/dev/null || bad="$$bad $$f"; \
	done; \
	if test -n "$$bad"; then \
	  echo "FAIL: check-fuzz-sources: these sources of the fuzz library (testsuite/fuzz/local.mk) do not"; \
	  echo "  compile without LLVM's headers (leave them out with FUZZ_LIB_SKIP):$$bad"; exit 1; \
	fi; echo "PASS: check-fuzz-sources (the fuzz library's sources need no LLVM header)"

.PHONY: fuzz check-fuzz clean-fuzz
fuzz: $(FUZZ_PROGS)

check-fuzz: fuzz leirc$(EXEEXT)
	@$(SHELL) '$(srcdir)/testsuite/fuzz/make-seeds.sh' '$(abs_top_srcdir)' \
	  testsuite/fuzz/seeds './leirc$(EXEEXT)'
	@rc=0; for h in $(FUZZ_PROGS); do \
	  $(SHELL) '$(srcdir)/testsuite/fuzz/run-fuzz.sh' "$$h" '$(FUZZ_SECONDS)' \
	    '$(srcdir)/testsuite/fuzz/leir.dict' testsuite/fuzz/seeds $(FUZZ_FLAGS) || rc=1; \
	done; exit $$rc

EXTRA_DIST += testsuite/fuzz/fuzz_parse.c testsuite/fuzz/fuzz_interp.c \
	testsuite/fuzz/fuzz_passes.c testsuite/fuzz/fuzz_common.c testsuite/fuzz/fuzz_common.h \
	testsuite/fuzz/leir.dict \
	testsuite/fuzz/make-seeds.sh testsuite/fuzz/run-fuzz.sh
CLEANFILES += $(FUZZ_PROGS) $(FUZZ_GEN_OBJ) $(FUZZ_LIB) testsuite/fuzz/*.log
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf testsuite/fuzz/seeds testsuite/fuzz/corpus-* testsuite/fuzz/*-crash-* \
	  testsuite/fuzz/*-leak-* testsuite/fuzz/*-timeout-* testsuite/fuzz/*-oom-* \
	  testsuite/fuzz/lib.tmp

## The front end's resource limits and the fuzzer's regressions (unit test).
check_PROGRAMS += testsuite/unit/limits_test
testsuite_unit_limits_test_SOURCES = testsuite/unit/limits_test.c \
	testsuite/unit/unit_fx.c testsuite/unit/unit_fx.h
testsuite_unit_limits_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
testsuite_unit_limits_test_LDADD = libleircore.la $(CMOCKA_LIBS)
