#!/bin/sh
# steps_programs.sh -- issue 61 item 1: which programs the CPU time of
# verified `leirc --emit-steps` goes to (`make bench-steps-programs`).
#
#   bench/steps_programs.sh LEIRC CORPUS_DIR
#
# bench/steps_cache_bench.sh's sample: one shard --shard=0/CORPUS_SHARD
# (default 2000) -j JOBS (default 2) of the whole corpus (levels 1 and 2)
# with --steps-cache, run with a cold cache and then a warm one, with
# LEIRC_STEPS_STATS=1 (leirc(1), ENVIRONMENT): one line per program with
# its CPU seconds (user+sys of its worker while it ran) split into the
# program before the steps (run by the interpreter "i" or the host JIT "j",
# or read from the cache "c") and the programs after a step (by engine),
# and its minor page faults.  Prints, for each phase, the programs by CPU
# time, the share of the top 10 and the totals.  The whole corpus is
# estimated as bench/steps_cache_bench.sh does: CORPUS_SHARD x the warm
# shard's CPU time (/usr/bin/time, the whole leirc) plus the programs'
# first runs.
set -eu
leirc=$1
corpus=$2
top=${TOP:-10}
bench=steps_programs
. "$(dirname "$0")/shard_setup.sh"
mkdir "$tmp/cache"
for phase in cold warm; do
  echo "== --shard=0/$cshard -j $jobs, $phase cache  [$(load)]"
  LEIRC_STEPS_STATS=1 /usr/bin/time -f %U+%S -o "$tmp/$phase.time" "$leirc" --emit-steps="$tmp/$phase.jsonl" \
    --shard=0/"$cshard" -j "$jobs" --steps-cache="$tmp/cache" $progs 2>"$tmp/$phase.err" || true
  cpu=$(tail -1 "$tmp/$phase.time" | awk -F+ '{ printf "%.2f", $1 + $2 }')
  echo "leirc: $cpu CPU s  [$(load)]"
  # steps-stats SRC records N memo M before E S F interp N S F jit N S F total S F
  grep '^steps-stats ' "$tmp/$phase.err" | awk -v top="$top" -v cpu="$cpu" '{
    src = $2; sub(".*/programs/", "", src); sub("[.]leir$", "", src)
    printf "%.3f %s %d %d %s %.3f %d %d %.3f %d %d %.3f %d %d\n", $20, src, $4, $6, $8, $9, $10, $12, $13, $14,
           $16, $17, $18, $21 }' | sort -k1,1gr -k2,2 >"$tmp/$phase.rows"
  awk -v top="$top" -v cpu="$cpu" '
    { n++; t += $1; b += $6; i += $9; j += $12; f += $14; ni += $8; nj += $11; r += $3; m += $4
      if (n <= top) { tt += $1; tb += $6; ti += $9; tj += $12; tf += $14 }
      if (n <= top) printf "  %7.2f s  %-48s %2d rec  before %s %6.2f s  after: interp %d %6.2f s, JIT %d %6.2f s  %8d faults\n",
                           $1, $2, $3, $5, $6, $8, $9, $11, $12, $14 }
    END {
      printf "programs: %d, records %d (%d by the memo); their CPU s: %.2f of leirc'"'"'s %.2f (the rest: the first pass over every input, the workers'"'"' start)\n", n, r, m, t, cpu
      printf "  before %.2f s, after: interpreter %d runs %.2f s, JIT %d runs %.2f s; %d minor faults\n", b, ni, i, nj, j, f
      if (t > 0) printf "top %d: %.2f s = %.1f %% of the programs'"'"' time (before %.2f, after interp %.2f, JIT %.2f; %d faults)\n",
                        top, tt, 100 * tt / t, tb, ti, tj, tf }' "$tmp/$phase.rows"
done
mine=$(wc -l <"$tmp/warm.rows")
awk -v w="$(tail -1 "$tmp/warm.time" | awk -F+ '{ print $1 + $2 }')" \
    -v c="$(tail -1 "$tmp/cold.time" | awk -F+ '{ print $1 + $2 }')" -v n="$cshard" -v np="$np" -v m="$mine" 'BEGIN {
  first = (c - w) * np / m; if (first < 0) first = 0
  printf "whole corpus: %d x %.1f s + the %d programs'"'"' first runs %.0f s = %.1f CPU h\n", n, w, np, first, (n * w + first) / 3600 }'
if cmp -s "$tmp/cold.jsonl" "$tmp/warm.jsonl"; then echo "records cold/warm: byte-identical"; else echo "records cold/warm: DIFFERENT"; fi
