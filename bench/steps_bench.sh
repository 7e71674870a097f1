#!/bin/sh
# steps_bench.sh -- throughput of `leirc --emit-steps` over the whole corpus
# (every legal candidate of every program becomes a record): records per
# second without verification (--no-verify) and with it (the interpreter
# runs each step's program before and after it, within the budget of
# --max-steps statement executions a run; default that of --emit-steps;
# with --jit-max-steps=0, i.e. without the host JIT over that budget, which
# would take hours on the whole corpus: bench/steps_jit_bench.sh measures
# it on samples and shards).
#
#   bench/steps_bench.sh LEIRC CORPUS_DIR [MAX_STEPS]
#
# Prints the number of programs, then for each mode the records written, the
# wall-clock seconds and records per second (and the same per CPU second of
# leirc, with /usr/bin/time); for the verified run also how
# many records are verified, not run (over the budget) and how many steps
# were dropped because they failed the check.  Exit status 77 when the
# corpus is absent.  The records go to a temporary file that is removed.
# Run on an idle core (make bench uses taskset): wall time counts other
# processes' turns.
set -eu
leirc=$1
corpus=$2
budget=${3:-}
[ -d "$corpus/programs" ] || { echo "steps_bench: no corpus at $corpus (skipped)"; exit 77; }
tmp=${TMPDIR:-/tmp}/steps_bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "corpus: $(ls "$corpus"/programs/level1/*.leir "$corpus"/programs/level2/*.leir | wc -l) programs ($corpus)"

now() { date +%s.%N; }

# run LABEL OPTION...: one --emit-steps run over every program.
run() {
  label=$1
  shift
  t0=$(now)
  status=0
  timer=
  [ -x /usr/bin/time ] && timer="/usr/bin/time -f %U+%S -o $tmp/cpu"
  echo "?" > "$tmp/cpu"
  $timer "$leirc" --emit-steps="$tmp/steps.jsonl" "$@" "$corpus"/programs/level1/*.leir \
    "$corpus"/programs/level2/*.leir 2>"$tmp/stderr" || status=$?
  t1=$(now)
  cpu=$(tail -1 "$tmp/cpu" | awk -F+ '$1 != "?" { printf "%.1f", $1 + $2 }')
  [ "$status" -eq 0 ] || { echo "steps_bench: leirc exited with status $status:"; tail -5 "$tmp/stderr"; exit 1; }
  awk -v t0="$t0" -v t1="$t1" -v cpu="$cpu" -v label="$label" \
    -v dropped="$(grep -c 'no record written' "$tmp/stderr" || true)" '
    /"verified":true/ { v++ }
    /"verification":"not run: the program (before|after) the step needs/ { b++ }
    END {
      s = t1 - t0
      printf "%s: %d records in %.1f s: %.0f records/s", label, NR, s, NR / s
      if (cpu != "" && cpu > 0) printf " (%.1f s of CPU time: %.0f records/s)", cpu, NR / cpu
      if (label != "no verification")
        printf "; %d verified, %d not run (over the budget), %d steps dropped (failed the check)", v, b, dropped
      printf "\n"
    }' "$tmp/steps.jsonl"
  ls -l "$tmp/steps.jsonl" | awk '{ printf "  (%.0f MB of JSON lines)\n", $5 / 1e6 }'
}

run "no verification" --no-verify
if [ -n "$budget" ]; then
  run "verification (budget $budget statement executions a run, no JIT)" --max-steps="$budget" --jit-max-steps=0
else
  run "verification (default budget, no JIT)" --jit-max-steps=0
fi
