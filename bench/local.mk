## Benchmarks: built and run by `make bench` (never part of `make check`).
EXTRA_PROGRAMS = bench/parse_bench
bench_parse_bench_SOURCES = bench/parse_bench.c
bench_parse_bench_LDADD = libleir.la $(JANSSON_LIBS)
CLEANFILES += $(EXTRA_PROGRAMS)

.PHONY: bench
bench: bench/parse_bench$(EXEEXT)
	@echo "== front end (bench/parse_bench)"
	@taskset -c 0 ./bench/parse_bench '$(abs_top_srcdir)/../shared/corpus' || test $$? -eq 77

