#!/bin/sh
# eval_records.sh -- issue 61: where `leirc --eval` with execution spends
# its time, record by record, on the files of bench/eval_rate.sh.
#
#   bench/eval_records.sh LEIRC CORPUS [stride|grouped]
#
# Takes the EVAL_RECORDS (default 30) records of the file that
# bench/eval_file.py makes (default grouped) and scores each alone, one
# process at a time (--target=host --cost=model -j 1 --time-limit=TL,
# default 600 s, pinned to CPU 0 with taskset where it exists), printing
# per record: its id, the corpus's workload and the strategy, the CPU
# seconds of leirc and its worker (user+sys, /usr/bin/time), the host
# JIT's kernels found in its cache and compiled and the CPU seconds of
# those compiles (LEIRC_INCR_STATS's `jitc` lines), and the result
# (execute, equal, error); then the total and the three records that cost
# most with their share of it.  A record alone has none of the sharing of
# a worker's share (its before's outputs and JIT kernels): what it shows
# is what each record's own programs cost.  Exit status 77 without the
# corpus.
set -eu
leirc=$1
corpus=$2
kind=${3:-grouped}
nrec=${EVAL_RECORDS:-30}
tl=${TL:-600}
[ -f "$corpus/transforms.jsonl.gz" ] || { echo "eval_records: no corpus at $corpus (skipped)"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
pin=
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eval_records.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
echo "$kind file, $nrec records, each alone: --target=host --cost=model -j 1 --time-limit=$tl  [$(uptime | sed 's/.*load average: */load /')]"
if [ "$kind" = stride ]; then
  "$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" >"$tmp/all.jsonl"
else
  "$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" grouped >"$tmp/all.jsonl"
fi
"$py" - "$corpus" "$tmp/all.jsonl" >"$tmp/names" <<'EOF'
import gzip, json, sys
rows = [json.loads(l) for l in gzip.open(sys.argv[1] + "/transforms.jsonl.gz", "rt")]
for line in open(sys.argv[2]):
    r = json.loads(line)
    print(r["id"], rows[r["id"]]["workload"], r["strategy"])
EOF
printf '%-6s %-40s %-34s %8s %5s %5s %7s  %s\n' id workload strategy "CPU s" hits miss "comp s" "execute equal error"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  printf '%s\n' "$line" >"$tmp/one.jsonl"
  LEIRC_INCR_STATS=1 /usr/bin/time -f "%U %S" -o "$tmp/time" $pin "$leirc" --eval="$tmp/one.jsonl" --target=host \
    --cost=model --json -j 1 --time-limit="$tl" -o "$tmp/out.jsonl" >/dev/null 2>"$tmp/err" || true
  set -- $(sed -n "${i}p" "$tmp/names")
  cpu=$(tail -1 "$tmp/time" | awk '{ printf "%.2f", $1 + $2 }')
  jit=$(awk '/^jitc /{ h += $2; m += $3; c += $4 + $5 + $6 } END { printf "%5d %5d %7.2f", h, m, c }' "$tmp/err")
  res=$("$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["execute"], r["equal"], (r["error"] or "")[:90])' \
    "$tmp/out.jsonl" 2>/dev/null || echo "no result")
  printf '%-6s %-40.40s %-34.34s %8s %s  %s\n' "$1" "$2" "$3" "$cpu" "$jit" "$res" | tee -a "$tmp/table"
done <"$tmp/all.jsonl"
sort -k4,4gr "$tmp/table" | awk -v n="$(wc -l <"$tmp/table")" '
  { cpu[NR] = $4; line[NR] = $1 " " $2 " " $3; total += $4 }
  END {
    if (total <= 0) total = 1e-9
    printf "total %.2f CPU s, %d records: %.2f records/s on 2 idle cores\n", total, n, 2 * n / total
    for (k = 1; k <= 3 && k <= NR; k++)
      printf "  %s: %.2f CPU s (%.0f%%)\n", line[k], cpu[k], 100 * cpu[k] / total
  }'
echo "[$(uptime | sed 's/.*load average: */load /')]"
