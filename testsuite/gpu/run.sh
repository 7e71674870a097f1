#!/usr/bin/env bash
# run.sh -- the GPU testsuite: run every bundled program on the GPU through
# libleirrt, check its outputs bit-identical to the interpreter's, run the
# benchmarks against PyTorch, and write ONE file, summary.txt.
#
# It runs inside the folder made by make-bundle.sh (on the machine with
# leirc) and needs only gcc, python3 with numpy, and PyTorch for the
# benchmarks' reference timings.  It builds leirrt-run with a bare gcc, the
# same line that works in the source tree:
#   gcc -std=c17 -O2 -I. -Iruntime runtime/rt-*.c interp/npy.c \
#       runtime/leirrt-run.c -ldl -o leirrt-run
#
# Exit status: 0 every test passed, 1 a test failed, 77 no CUDA driver or
# device (every test UNSUPPORTED; the summary says so), 2 a broken bundle.
# The whole run stays under 8 minutes: tests may start during the first 60 %
# of RUN_BUDGET_S, benchmarks until its end, and every program's time limit
# is cut to what is left of the budget; what did not start is reported
# NOT RUN (and counts as failed).
#
# Environment: SUMMARY (default ./summary.txt), RUN_BUDGET_S (default 450),
# TEST_TIMEOUT_S (default 60), BENCH_TIMEOUT_S (default 90).
#
# Typical use, from the source tree with a build in _build:
#   testsuite/gpu/make-bundle.sh --leirc _build/leirc --out gpu-bundle
#   (on the GPU machine, in the same tree)  SUMMARY=$OUT/summary.txt \
#       bash gpu-bundle/run.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
summary=${SUMMARY:-$here/summary.txt}
budget=${RUN_BUDGET_S:-450}
test_timeout=${TEST_TIMEOUT_S:-60}
bench_timeout=${BENCH_TIMEOUT_S:-90}
start=$(date +%s)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

lines=()
say() { lines+=("$*"); echo "$*"; }
elapsed() { echo $(( $(date +%s) - start )); }
# limit MAX: MAX seconds, or less if less of the budget is left.
limit() {
  local left=$(( budget - $(elapsed) ))
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}

write_summary() {
  { printf '%s\n' "${lines[@]}"; } >"$summary"
  echo "run.sh: wrote $summary"
}

# ---- build leirrt-run ------------------------------------------------------
if [ -d "$here/src/runtime" ]; then
  src=$here/src                      # a bundle from make-bundle.sh
else
  src=$(cd "$here/../.." && pwd)     # the source tree itself
fi
say "leirc GPU testsuite, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
if [ -f "$here/MANIFEST" ]; then
  while IFS= read -r l; do say "bundle $l"; done <"$here/MANIFEST"
fi
if ! (cd "$src" && gcc -std=c17 -O2 -I. -Iruntime runtime/rt-*.c interp/npy.c \
        runtime/leirrt-run.c -ldl -o "$build/leirrt-run") 2>"$build/gcc.err"; then
  say "ERROR: cannot build leirrt-run:"
  while IFS= read -r l; do say "  $l"; done <"$build/gcc.err"
  write_summary
  exit 2
fi
run=$build/leirrt-run

# ---- is there a GPU? -------------------------------------------------------
# An empty plan and an empty module: loads the driver and the JIT, runs
# nothing.
printf '// leir-plan 1\n.version 7.0\n.target sm_70\n.address_size 64\n' >"$build/probe.ptx"
set +e
"$run" -v "$build/probe.ptx" >/dev/null 2>"$build/probe.err"
probe=$?
set -e
if [ "$probe" = 77 ]; then
  say "UNSUPPORTED: $(sed 's/^leirrt-run: //' "$build/probe.err" | head -1)"
  for d in "$here"/tests/*/ "$here"/bench/*/; do
    [ -d "$d" ] && say "UNSUPPORTED: $(basename "$d")"
  done
  say "0 passed, 0 failed"
  write_summary
  exit 77
elif [ "$probe" != 0 ]; then
  say "ERROR: the GPU probe failed (exit $probe):"
  while IFS= read -r l; do say "  $l"; done <"$build/probe.err"
  write_summary
  exit 1
fi
say "$(sed -n 's/^leirrt-run: device/device/p' "$build/probe.err" | head -1)"
command -v nvidia-smi >/dev/null &&
  say "driver: $(nvidia-smi --query-gpu=driver_version,name --format=csv,noheader 2>/dev/null | head -1)"

# ---- tests -----------------------------------------------------------------
pass=0 fail=0 notrun=0
run_test() {
  local dir=$1 name
  name=$(basename "$dir")
  local -a args=()
  local f
  for f in "$dir"/inputs/*.npy; do
    [ -f "$f" ] && args+=(--input "$(basename "$f" .npy)=$f")
  done
  rm -rf "$build/out"
  local tl
  tl=$(limit "$test_timeout")
  set +e
  timeout "$tl" "$run" "${args[@]}" --output-dir "$build/out" \
    --repeat 2 "$dir/prog.ptx" >"$build/stdout" 2>"$build/stderr"
  local rc=$?
  set -e
  if [ "$rc" != 0 ]; then
    fail=$((fail + 1))
    [ "$rc" = 124 ] && say "FAIL: $name: over ${tl}s" && return
    say "FAIL: $name: leirrt-run exit $rc: $(head -c 400 "$build/stderr" | tr '\n' ' ')"
    return
  fi
  local t verdict
  t=$(sed -n 's/^time_ms median=\([^ ]*\).*/\1/p' "$build/stdout")
  if verdict=$(python3 "$here/compare.py" "$dir/expected" "$build/out" 2>&1); then
    pass=$((pass + 1))
    say "PASS: $name (gpu ${t} ms)"
  else
    fail=$((fail + 1))
    say "FAIL: $name: $(echo "$verdict" | head -3 | tr '\n' ' ')"
  fi
}

ntests=0
for dir in "$here"/tests/*/; do
  [ -f "$dir/prog.ptx" ] || continue
  ntests=$((ntests + 1))
  if [ "$(elapsed)" -gt $((budget * 6 / 10)) ]; then
    notrun=$((notrun + 1))
    say "NOT RUN: $(basename "$dir") (the tests' share of the time budget is spent)"
    continue
  fi
  run_test "$dir"
done
if [ -f "$here/not-bundled.txt" ] && [ -s "$here/not-bundled.txt" ]; then
  say "not bundled by make-bundle.sh: $(wc -l <"$here/not-bundled.txt") programs (not-bundled.txt)"
fi

# ---- benchmarks ------------------------------------------------------------
for dir in "$here"/bench/*/; do
  [ -f "$dir/prog.ptx" ] || continue
  tl=$(limit "$bench_timeout")
  if [ "$tl" -lt 15 ]; then
    say "NOT RUN: bench $(basename "$dir") (time budget spent)"
    continue
  fi
  set +e
  timeout "$tl" python3 "$here/bench.py" "$run" "$dir" >"$build/bench.out" 2>&1
  rc=$?
  set -e
  while IFS= read -r l; do say "$l"; done <"$build/bench.out"
  [ "$rc" = 124 ] && say "bench $(basename "$dir"): over ${tl}s"
  [ "$rc" != 0 ] && [ "$rc" != 124 ] && say "bench $(basename "$dir"): bench.py exit $rc"
done

say "tests: $ntests bundled, $notrun not run, wall $(elapsed)s"
if [ "$notrun" -gt 0 ]; then fail=$((fail + notrun)); fi
say "$pass passed, $fail failed"
write_summary
[ "$fail" = 0 ]
