#!/bin/sh
# eval_legality.sh -- --eval's legality does not depend on execution:
#   bench/eval_legality.sh LEIRC CORPUS [OLD_LEIRC]
# Builds an evaluation file of EVAL_RECORDS (default 30) records taken at a
# fixed stride from CORPUS/transforms.jsonl.gz (as part 4 of
# steps_jit_bench.sh does: before, strategy, after, the decls sidecar; with
# GROUPED=1, four records of each of the programs before taken, as a model's
# predictions for one program share their before: eval_file.py grouped) and
# scores it with --target=host --cost=model -j JOBS (default 2), for LEIRC
# and (if given) OLD_LEIRC side by side:
#   without execution   --max-steps=1 --jit-max-steps=0
#   with execution      the default limits (time budget 60 s a record)
#   short budget        --time-limit=TL (default 5 s): the slow records time out
# printing the records' legal / legal_strategy / execute / error / timeout
# counts, the ids whose `legal` differs from the run without execution, and
# the wall time with `uptime`.  Then LEIRC's -o output with -j 1 and -j 2 is
# compared byte for byte (with execution).  A legal count that changes with
# the limits is the bug this checks.  Exit status 77 when the corpus is absent.
set -eu
leirc=$1
corpus=$2
old=${3:-}
jobs=${JOBS:-2}
nrec=${EVAL_RECORDS:-30}
tl=${TL:-5}
[ -f "$corpus/transforms.jsonl.gz" ] || { echo "eval_legality: no corpus at $corpus (skipped)"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eval_legality.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" ${GROUPED:+grouped} >"$tmp/eval.jsonl"
echo "$(wc -l <"$tmp/eval.jsonl") records, -j $jobs --target=host --cost=model"
# one NAME BIN LABEL ARGS...: scores, writes $tmp/NAME.LABEL.jsonl, prints a line
one() {
  name=$1 bin=$2 label=$3
  shift 3
  t0=$(date +%s.%N)
  "$bin" --eval="$tmp/eval.jsonl" --target=host --cost=model --json -j "$jobs" -o "$tmp/$name.$label.jsonl" "$@" >/dev/null
  t1=$(date +%s.%N)
  "$py" - "$tmp/$name.$label.jsonl" "$tmp/$name.noexec.jsonl" "$name" "$label" "$t0" "$t1" "$(uptime | sed 's/.*load average: */load /')" <<'PY'
import json, os, sys
res, base, name, label, t0, t1, load = sys.argv[1:]
rs = [json.loads(l) for l in open(res)]
bs = [json.loads(l) for l in open(base)] if os.path.exists(base) else rs
c = lambda k: sum(1 for r in rs if r.get(k) not in (False, None))
diff = [r["id"] for r, b in zip(rs, bs) if r["legal"] != b["legal"]]
print("%-4s %-18s legal %2d  legal_strategy %2d  execute %2d  error %2d  timeout %2d  legal differs from no-exec: %-10s %6.1f s  [%s]"
      % (name, label, c("legal"), sum(1 for r in rs if r["legal_strategy"] and not r["legal"]), c("execute"), c("error"),
         c("timeout"), diff or "-", float(t1) - float(t0), load))
PY
}
for pair in "new:$leirc" ${old:+"old:$old"}; do
  name=${pair%%:*} bin=${pair#*:}
  one "$name" "$bin" noexec --max-steps=1 --jit-max-steps=0
  one "$name" "$bin" exec
  one "$name" "$bin" "time-limit=$tl" --time-limit="$tl"
done
"$leirc" --eval="$tmp/eval.jsonl" --target=host --cost=model -j 1 -o "$tmp/j1.jsonl" >/dev/null
if cmp -s "$tmp/j1.jsonl" "$tmp/new.exec.jsonl"; then echo "-o output -j 1 = -j $jobs: byte-identical"
else echo "-o output -j 1 != -j $jobs"; diff "$tmp/j1.jsonl" "$tmp/new.exec.jsonl" | head -5; fi
