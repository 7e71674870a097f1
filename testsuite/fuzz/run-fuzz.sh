#!/bin/sh
# run-fuzz.sh -- runs one libFuzzer harness for a fixed time from the seeds;
# the corpus it grows is kept beside it (testsuite/fuzz/corpus-NAME) for the
# next run, and a crash, leak or timeout input is saved as
# testsuite/fuzz/NAME-crash-... (libFuzzer's artifact prefix).  Exits
# non-zero when the harness found something.
#
# Usage: run-fuzz.sh HARNESS SECONDS DICT SEEDDIR [LIBFUZZER-FLAG]...
set -u
h=${1:?usage: run-fuzz.sh HARNESS SECONDS DICT SEEDDIR [FLAG]...}
secs=${2:?}
dict=${3:?}
seeds=${4:?}
shift 4
name=$(basename "$h")
dir=$(dirname "$h")
corpus=$dir/corpus-$name
mkdir -p "$corpus" || exit 2
log=$dir/$name.log
echo "== $name: ${secs}s (log: $log)"
# -max_len: real programs are one line of a few KiB; -timeout: a single
# input that takes 10 s is a hang.
"$h" -max_total_time="$secs" -max_len=4096 -timeout=10 -dict="$dict" \
  -artifact_prefix="$dir/$name-" -print_final_stats=1 "$@" \
  "$corpus" "$seeds" >"$log" 2>&1
rc=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^stat::peak_rss_mb' "$log"
if [ $rc -ne 0 ]; then
  echo "FAIL: $name (exit $rc); the input is saved as $dir/$name-*:"
  grep -E 'ERROR|PROPERTY|detail:|runtime error|SUMMARY|Test unit written' "$log" | head -20
  echo "  (rerun one input: $h FILE)"
  exit 1
fi
echo "PASS: $name"
