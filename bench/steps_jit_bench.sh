#!/bin/sh
# steps_jit_bench.sh -- issue 40 part 4: verification with the host JIT over
# the interpreter's budget (leirc --emit-steps, --eval; --jit-max-steps, -j).
#
#   bench/steps_jit_bench.sh LEIRC CORPUS_DIR [OLD_LEIRC]
#
# OLD_LEIRC: optionally a leirc without the JIT verification (for example
# the main branch's build) measured beside --jit-max-steps=0.  Knobs
# (environment): JOBS (worker processes, -j, default 2), SAMPLE_SHARD (part
# 1's share of the one-record-a-program sample, default 4), MID_MAX (part
# 2's programs, default 10), CORPUS_SHARD (part 3's N, default 2000; the
# corpus has about 107000 records), EVAL_RECORDS (part 4, default 100).  Every
# figure is printed with `uptime` (the load average) beside it; wall time
# counts other processes' turns, the CPU seconds (user+sys of leirc and its
# workers, /usr/bin/time) do not.
#
# 1. Verified steps per second on a fixed sample (--sample=1 --seed=0
#    --shard=0/SAMPLE_SHARD over every corpus program, -j 1), side by side:
#    the interpreter alone (--jit-max-steps=0: runs over --max-steps, 10^7
#    statement executions, are not made; and OLD_LEIRC), then with the
#    host JIT over the budget (the default, up to 10^10).
# 2. The same steps both ways: the first MID_MAX programs (command-line
#    order) needing 10^7..10^8 statement executions, one record each, verified by the interpreter with its budget
#    raised to 10^9 (--max-steps=1000000000 --jit-max-steps=0) and by the
#    host JIT; the records must be the same but for the JIT's "(host JIT)".
#    Then one run of two bigger programs (10^8, 10^9 statement executions)
#    in the interpreter (--run) and on the host JIT (--run --target=host).
# 3. The whole corpus (every record): one shard --shard=0/CORPUS_SHARD with
#    -j JOBS, timed; the whole corpus on this machine is estimated as
#    CORPUS_SHARD x that time, and on M machines each running
#    CORPUS_SHARD/M shards as (CORPUS_SHARD/M) x that time.  (An upper
#    bound: each shard runs the "before" program of each of its programs
#    again, a run without --shard runs it once a program.)
# 4. --eval throughput: an evaluation file of EVAL_RECORDS records taken at
#    a fixed stride from the corpus's transforms.jsonl.gz (before, strategy,
#    after, the workload's decls sidecar), scored with -j JOBS
#    --target=host --cost=model: with execution (both programs run, in the
#    interpreter within --max-steps, on the host JIT above it) and without
#    (--max-steps=1 --jit-max-steps=0: parsing, analysis and the legality
#    check only; no program is run).
# Exit status 77 when the corpus is absent.  Temporary files go to a
# directory under TMPDIR that is removed.
set -eu
leirc=$1
corpus=$2
old=${3:-}
jobs=${JOBS:-2}
sshard=${SAMPLE_SHARD:-4}
cshard=${CORPUS_SHARD:-2000}
midmax=${MID_MAX:-10}
nrec=${EVAL_RECORDS:-100}
[ -d "$corpus/programs" ] || { echo "steps_jit_bench: no corpus at $corpus (skipped)"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/steps_jit_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
progs=$(ls "$corpus"/programs/level1/*.leir "$corpus"/programs/level2/*.leir)
echo "corpus: $(echo "$progs" | wc -l) programs ($corpus); -j $jobs"

now() { date +%s.%N; }
load() { uptime | sed 's/.*load average: */load /'; }

# timed OUT CMD...: runs CMD with stdout to OUT; sets $wall and $cpu.
timed() {
  out=$1
  shift
  t0=$(now)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f %U+%S -o "$tmp/cpu" "$@" >"$out" 2>"$tmp/stderr" || { echo "failed: $*"; tail -3 "$tmp/stderr"; exit 1; }
    cpu=$(tail -1 "$tmp/cpu" | awk -F+ '{ printf "%.1f", $1 + $2 }')
  else
    "$@" >"$out" 2>"$tmp/stderr" || { echo "failed: $*"; tail -3 "$tmp/stderr"; exit 1; }
    cpu="?"
  fi
  t1=$(now)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# steps LABEL FILE: the records of FILE, verified per second.
steps() {
  awk -v label="$1" -v wall="$wall" -v cpu="$cpu" -v load="$(load)" '
    /"verified":true/ { v++ }
    /"verified":true,"verification":"[^"]*\(host JIT\)"/ { j++ }
    /"verification":"not run: the program (before|after) the step needs/ { b++ }
    END {
      printf "%-44s %4d records %4d verified (%d by the JIT) %4d not run  %7.1f s  %6.2f verified/s", label, NR, v, j, b, wall, v / wall
      if (cpu != "?" && cpu > 0) printf "  (%.1f CPU s: %.2f verified/CPU s)", cpu, v / cpu
      printf "  [%s]\n", load
    }' "$2"
}

echo
echo "== 1. verified steps per second: --sample=1 --seed=0 --shard=0/$sshard, -j 1"
if [ -n "$old" ]; then
  timed "$tmp/old.jsonl" "$old" --emit-steps=- --sample=1 --seed=0 --shard=0/"$sshard" $progs
  steps "interpreter only ($old)" "$tmp/old.jsonl"
fi
timed "$tmp/interp.jsonl" "$leirc" --emit-steps=- --sample=1 --seed=0 --shard=0/"$sshard" --jit-max-steps=0 $progs
steps "interpreter only (--jit-max-steps=0)" "$tmp/interp.jsonl"
timed "$tmp/jit.jsonl" "$leirc" --emit-steps=- --sample=1 --seed=0 --shard=0/"$sshard" $progs
steps "interpreter + host JIT (default)" "$tmp/jit.jsonl"

echo
echo "== 2. the same steps, interpreter (budget 10^9) against host JIT"
# the sample's programs whose program before the steps needs 10^7..10^8
"$leirc" --emit-steps=- --sample=1 --seed=0 --max-steps=1 --jit-max-steps=0 $progs 2>/dev/null |
  sed -n 's/.*"source":"\([^"]*\)".*before the step needs \([0-9]*\) statement.*/\2 \1/p' |
  awk '$1 > 10000000 && $1 <= 100000000 { print $2 }' | head -n "$midmax" >"$tmp/mid"
mid=$(cat "$tmp/mid")
echo "programs needing 10^7..10^8 statement executions: $(wc -l <"$tmp/mid")"
timed "$tmp/mid_interp.jsonl" "$leirc" --emit-steps=- --sample=1 --seed=0 --max-steps=1000000000 --jit-max-steps=0 $mid
steps "interpreter (--max-steps=10^9)" "$tmp/mid_interp.jsonl"
iw=$wall ic=$cpu
timed "$tmp/mid_jit.jsonl" "$leirc" --emit-steps=- --sample=1 --seed=0 $mid
steps "host JIT (default)" "$tmp/mid_jit.jsonl"
sed 's/ (host JIT)","rationale"/","rationale"/' "$tmp/mid_jit.jsonl" >"$tmp/mid_jit_plain.jsonl"
same=$(paste -d '\n' "$tmp/mid_interp.jsonl" "$tmp/mid_jit_plain.jsonl" | awk 'NR % 2 { a = $0; next } $0 == a { n++ } END { print n + 0 }')
echo "identical records (but for \"(host JIT)\"): $same of $(wc -l <"$tmp/mid_interp.jsonl")"
awk -v iw="$iw" -v jw="$wall" -v ic="$ic" -v jc="$cpu" 'BEGIN {
  printf "host JIT speedup: %.1fx wall", iw / jw
  if (ic != "?" && jc != "?" && jc > 0) printf ", %.1fx CPU", ic / jc
  printf "\n" }'

# one run of a bigger program, each engine (leirc --run; --target=host)
for w in level1/LayerNorm level1/Square_matrix_multiplication; do
  [ -f "$corpus/programs/$w.leir" ] || continue
  set -- --decls="$corpus/programs/$w.decls.json" --output-dir="$tmp" "$corpus/programs/$w.leir"
  timed "$tmp/run.txt" "$leirc" --run --max-steps=0 "$@"
  iw=$wall ic=$cpu
  timed "$tmp/run.txt" "$leirc" --run --target=host "$@"
  echo "one run of $w: interpreter $iw s ($ic CPU s), host JIT $wall s ($cpu CPU s, compiling included): $(awk -v a="$ic" -v b="$cpu" 'BEGIN { if (b > 0) printf "%.1fx", a / b }') CPU  [$(load)]"
done

echo
echo "== 3. the whole corpus, every record: --shard=0/$cshard, -j $jobs"
timed "$tmp/shard.jsonl" "$leirc" --emit-steps=- --shard=0/"$cshard" -j "$jobs" $progs
steps "shard 0/$cshard (interpreter + host JIT)" "$tmp/shard.jsonl"
total=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$tmp/shard.jsonl" | tail -1)
awk -v w="$wall" -v c="$cpu" -v n="$cshard" -v total="$total" -v load="$(load)" 'BEGIN {
  printf "corpus: about %d records (the shard'"'"'s last id + 1)\n", total + 1
  printf "whole corpus on this machine (-j): %.0f s = %.1f h (%d x %.1f s)", n * w, n * w / 3600, n, w
  if (c != "?") printf "; %.1f CPU h", n * c / 3600
  printf "  [%s]\n", load
  for (m = 10; m < n; m *= 10) printf "on %d machines (%d shards each): %.0f s = %.1f h\n", m, n / m, n / m * w, n / m * w / 3600
}'

echo
echo "== 4. --eval throughput: $nrec records of transforms.jsonl.gz, -j $jobs --target=host --cost=model"
"$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" >"$tmp/eval.jsonl"
evalrun() {
  label=$1
  shift
  timed "$tmp/summary.json" "$leirc" --eval="$tmp/eval.jsonl" --target=host --cost=model --json -j "$jobs" "$@"
  "$py" - "$tmp/summary.json" "$label" "$wall" "$cpu" "$(load)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
label, wall, cpu, load = sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
n = s["records"]
line = "%-30s %4d records (%d executed, %d equal, %d legal)  %7.1f s  %6.2f records/s" % (
    label, n, s["execute"], s["equal"], s["legal"], wall, n / wall)
if cpu != "?" and float(cpu) > 0:
    line += "  (%.1f CPU s: %.2f records/CPU s)" % (float(cpu), n / float(cpu))
print(line + "  [" + load + "]")
PY
}
evalrun "with execution"
evalrun "without execution" --max-steps=1 --jit-max-steps=0
