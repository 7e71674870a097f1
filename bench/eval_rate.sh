#!/bin/sh
# eval_rate.sh -- issue 61: the rate of `leirc --eval` with execution on
# corpus-sized programs (records/s), and its CPU time.
#
#   bench/eval_rate.sh LEIRC CORPUS [OLD_LEIRC]
#
# Two evaluation files of EVAL_RECORDS (default 30) records from
# CORPUS/transforms.jsonl.gz (bench/eval_file.py): "stride" (records at a
# fixed stride: nearly every record has a program before of its own) and
# "grouped" (four records for each program before, as a model's
# predictions for one program share it: eval_file.py grouped).  Each is
# scored with --target=host --cost=model -j JOBS (default 2)
# --time-limit=TL (default 600 s: no record is cut short by the load) by
# LEIRC and OLD_LEIRC run at the same time (side by side), printing the
# wall time, the records/s, the CPU seconds of leirc and its workers
# (user+sys, /usr/bin/time; other processes' load does not count) and
# 2 x records / CPU s (the rate on 2 otherwise idle cores) and the ratios
# old/new of both; then the two -o files are compared byte for byte.  Exit status 77 without the corpus.
set -eu
leirc=$1
corpus=$2
old=${3:-}
jobs=${JOBS:-2}
nrec=${EVAL_RECORDS:-30}
tl=${TL:-600}
[ -f "$corpus/transforms.jsonl.gz" ] || { echo "eval_rate: no corpus at $corpus (skipped)"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eval_rate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
load() { uptime | sed 's/.*load average: */load /'; }
echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
"$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" >"$tmp/stride.jsonl"
"$py" "$(dirname "$0")/eval_file.py" "$corpus" "$nrec" grouped >"$tmp/grouped.jsonl"
for f in stride grouped; do
  n=$(wc -l <"$tmp/$f.jsonl")
  echo "== $f: $n records, --target=host --cost=model -j $jobs --time-limit=$tl  [$(load)]"
  for pair in "new:$leirc" ${old:+"old:$old"}; do
    name=${pair%%:*} bin=${pair#*:}
    /usr/bin/time -f "%e %U %S" -o "$tmp/$f.$name.time" "$bin" --eval="$tmp/$f.jsonl" --target=host --cost=model \
      --json -j "$jobs" --time-limit="$tl" -o "$tmp/$f.$name.jsonl" >/dev/null 2>"$tmp/$f.$name.err" &
  done
  wait
  for name in new ${old:+old}; do
    tail -1 "$tmp/$f.$name.time" | awk -v n="$n" -v name="$name" '{
      cpu = $2 + $3
      printf "%-4s %7.1f s wall  %5.3f records/s  %7.1f CPU s  %5.2f records/s on 2 idle cores\n",
             name, $1, n / $1, cpu, 2 * n / cpu }'
  done
  if [ -n "$old" ]; then
    echo "$(tail -1 "$tmp/$f.new.time") $(tail -1 "$tmp/$f.old.time")" |
      awk '{ printf "old/new: %.2fx wall, %.2fx CPU s\n", $4 / $1, ($5 + $6) / ($2 + $3) }'
    if cmp -s "$tmp/$f.new.jsonl" "$tmp/$f.old.jsonl"; then echo "-o files: byte-identical"
    else echo "-o files: DIFFERENT"; diff "$tmp/$f.old.jsonl" "$tmp/$f.new.jsonl" | head -4; fi
  fi
done
echo "[$(load)]"
