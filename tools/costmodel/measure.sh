#!/bin/sh
# tools/costmodel/measure.sh BUILD_DIR CORPUS OUT.tsv [SAMPLE] [BUDGET_S]
#
# The learned cost model's training data (issue 58 item 1): measured host
# run times and features of the corpus programs, the model zoo's and their
# one-step variants, one line per variant (bench/costmodel_bench --features
# --save; columns named by its `#program` header line).
#
# The zoo's KernelBench and Step-TP models are imported with leir.from_torch
# into a scratch folder first (tools/costmodel/zoo_programs.py, Debian's
# /usr/bin/python3 with torch).  The measurement runs niced on CPU 0 only
# (taskset -c 0), the JIT on one thread: SAMPLE (default 6:0, every sixth
# program of each folder) with up to 6 one-step variants each, programs of
# at most 2^26 statement executions, new programs stop after BUDGET_S
# seconds (default 1500).  The shipped data file is the concatenation of
# runs over SAMPLE 6:0, 6:1 and 6:2 (tools/costmodel/README).
set -eu
build=$1 corpus=$2 out=$3 sample=${4:-6:0} budget=${5:-1500}
src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$build/testsuite/scratch/costmodel-zoo
rm -rf "$scratch"
mkdir -p "$scratch"
PYTHONPATH=$src/python LEIR_LIBDIR=$build/.libs \
  /usr/bin/python3 "$src/tools/costmodel/zoo_programs.py" "$scratch"
make -C "$build" bench/costmodel_bench >/dev/null
taskset -c 0 nice -n 10 "$build/bench/costmodel_bench" "$corpus" \
  --dir "$scratch/zoo" --dir "$scratch/zoo_steptp" --sample "$sample" \
  --max-variants 6 --max-work 67108864 --time-budget "$budget" \
  --features --save "$out"
