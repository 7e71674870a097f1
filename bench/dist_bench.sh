#!/bin/sh
# dist_bench.sh -- issue 61: leirc-dist (Dask) with 1 and 2 LocalCluster
# workers on this machine, beside leirc -j 1 and -j 2, on a fixed corpus
# slice (`make bench-dist`).
#
#   bench/dist_bench.sh LEIRC LEIRC_DIST CORPUS_DIR
#
# The slice: the level1 programs named below (small ones: about a second to
# a few seconds of --emit-steps each on one core), every record (no
# --sample), and an --eval file of EVAL_RECORDS records (default 10) taken
# at a fixed stride from the corpus's transforms (bench/eval_file.py),
# scored with --target=host --cost=model.  Each run is timed (wall; the CPU
# seconds of leirc-dist include its workers' and their leircs': /usr/bin/time
# counts waited-for children, and the LocalCluster's processes are its
# children) and its output compared with leirc -j 1's (it must be
# byte-identical).  The machine (CPU model, CPUs) and `uptime` are printed
# first and after each run: on a shared machine the load average says how
# much of the two cores the runs had.  Exit status 77 when the corpus or the
# Python package distributed is absent; 1 if an output differs.
#
# On c10bfd5 (2 shared cores, AMD EPYC, load 5 to 7 from other users;
# Debian's distributed 2022.12.1): every output identical to leirc -j 1's.
# emit-steps (233 records): leirc -j 1 9.9 s wall / 4.4 s CPU, -j 2 14.1 /
# 4.7, leirc-dist 1 worker 15.7 / 7.6, 2 workers 14.9 / 8.7; eval (10
# records): leirc -j 1 48.6 / 31.0, -j 2 49.2 / 30.7, leirc-dist 1 worker
# 57.4 / 37.1, 2 workers 62.8 / 36.4.  No second core was free (-j 2 gained
# nothing either); leirc-dist's own cost is about 2.5 s CPU to start a
# LocalCluster of one worker (1 s more per worker) and a few percent of a
# core while it waits.
set -eu
leirc=$1
dist=$2
corpus=$3
nrec=${EVAL_RECORDS:-10}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -d "$corpus/programs" ] || { echo "dist_bench: no corpus at $corpus (skipped)"; exit 77; }
"$py" -c 'import distributed' 2>/dev/null || { echo "dist_bench: no Python package distributed (skipped)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
progs=""
for w in ReLU HardTanh Matrix_scalar_multiplication Product_reduction_over_a_dimension \
         Min_reduction_over_a_dimension Max_reduction_over_a_dimension; do
  progs="$progs $corpus/programs/level1/$w.leir"
done
"$py" "$here/eval_file.py" "$corpus" "$nrec" >"$tmp/pred.jsonl"

echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "slice: emit-steps of $(echo $progs | wc -w) level1 programs; eval of $nrec records (--cost=model)"
load() { uptime | sed 's/.*load average: */load /'; }
echo "before: $(load)"

now() { date +%s.%N; }
# timed LABEL REF OUT CMD...: runs CMD, prints its wall and CPU seconds and
# whether OUT equals REF.
timed() {
  label=$1 ref=$2 out=$3
  shift 3
  t0=$(now)
  /usr/bin/time -f %U+%S -o "$tmp/cpu" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || {
    rc=$?
    [ "$rc" -eq 1 ] || { echo "$label: failed (exit status $rc)"; tail -3 "$tmp/stderr"; exit 1; }
  }
  t1=$(now)
  cpu=$(tail -1 "$tmp/cpu" | awk -F+ '{ printf "%.1f", $1 + $2 }')
  same="reference"
  if [ "$ref" != "-" ]; then
    if cmp -s "$ref" "$out"; then same="identical to leirc -j 1"; else same="DIFFERS from leirc -j 1"; bad=1; fi
  fi
  printf '%-34s %7.1f s wall %7s s CPU  %s  (%s)\n' "$label" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$cpu" "$same" "$(load)"
}
bad=0
# shellcheck disable=SC2086
{
timed "emit-steps leirc -j 1" - "$tmp/ref.jsonl" "$leirc" --emit-steps="$tmp/ref.jsonl" $progs
timed "emit-steps leirc -j 2" "$tmp/ref.jsonl" "$tmp/j2.jsonl" "$leirc" --emit-steps="$tmp/j2.jsonl" -j 2 $progs
timed "emit-steps leirc-dist 1 worker" "$tmp/ref.jsonl" "$tmp/d1.jsonl" \
  "$dist" emit-steps -q --workers 1 --leirc "$leirc" --temp-dir "$tmp" -o "$tmp/d1.jsonl" $progs
timed "emit-steps leirc-dist 2 workers" "$tmp/ref.jsonl" "$tmp/d2.jsonl" \
  "$dist" emit-steps -q --workers 2 --leirc "$leirc" --temp-dir "$tmp" -o "$tmp/d2.jsonl" $progs
timed "eval leirc -j 1" - "$tmp/eref.jsonl" "$leirc" --eval="$tmp/pred.jsonl" -o "$tmp/eref.jsonl" \
  --target=host --cost=model
timed "eval leirc -j 2" "$tmp/eref.jsonl" "$tmp/ej2.jsonl" "$leirc" --eval="$tmp/pred.jsonl" -o "$tmp/ej2.jsonl" \
  -j 2 --target=host --cost=model
timed "eval leirc-dist 1 worker" "$tmp/eref.jsonl" "$tmp/ed1.jsonl" "$dist" eval -q --workers 1 \
  --leirc "$leirc" --temp-dir "$tmp" -o "$tmp/ed1.jsonl" --target=host --cost=model "$tmp/pred.jsonl"
timed "eval leirc-dist 2 workers" "$tmp/eref.jsonl" "$tmp/ed2.jsonl" "$dist" eval -q --workers 2 \
  --leirc "$leirc" --temp-dir "$tmp" -o "$tmp/ed2.jsonl" --target=host --cost=model "$tmp/pred.jsonl"
}
echo "records: $(wc -l <"$tmp/ref.jsonl") steps, $(wc -l <"$tmp/eref.jsonl") eval results"
exit $bad
