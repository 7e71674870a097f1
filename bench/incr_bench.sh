#!/bin/sh
# incr_bench.sh -- issue 61 item 1: verified `leirc --emit-steps` with
# the program after each step run from its first nest that differs from
# the program before (driver/incr.c) against --no-incremental (every
# program after run in full), the same leirc side by side.
#
#   bench/incr_bench.sh LEIRC CORPUS_DIR [OLD_LEIRC]
#
# With OLD_LEIRC (e.g. the main branch's build), the two settings are
# OLD_LEIRC ("old") and LEIRC ("new"), both incremental, instead.
#
# bench/steps_cache_bench.sh's method, part 2: one shard
# --shard=0/CORPUS_SHARD (default 2000) -j JOBS (default 2) of the whole
# corpus (levels 1 and 2) with --steps-cache, first with a cold cache,
# then with the warm one; the two settings run at the same time (side by
# side), each with its own cache directory.  The whole corpus is estimated
# as CORPUS_SHARD x the warm shard's CPU time plus the programs' first
# runs, (cold - warm) x programs / the shard's programs.  CPU seconds are
# user+sys of leirc and its workers (/usr/bin/time).  Also printed: how
# many programs after a step skip leading nests or leave trailing nests
# out, cold and warm, and the share of the statement executions skipped
# (LEIRC_INCR_STATS), the host JIT's kernels taken from its cache of
# compiled nests or compiled and the CPU time of the compiles (jitc lines,
# where the setting prints them), the two cache directories' sizes, and
# whether the two settings' records are the same bytes.
set -eu
leirc=$1
corpus=$2
old=${3:-}
bench=incr_bench
. "$(dirname "$0")/shard_setup.sh"
# the two settings: A (without the change) and B (with it)
if [ -n "$old" ]; then a=old b=new; else a=full b=incr; fi
mkdir "$tmp/c_$a" "$tmp/c_$b"
# run NAME PHASE FLAGS...: one timed shard into $tmp/NAME.PHASE.*
run() {
  name=$1 phase=$2
  shift 2
  bin=$leirc
  [ "$name" = old ] && bin=$old
  LEIRC_INCR_STATS=1 /usr/bin/time -f %U+%S -o "$tmp/$name.$phase.time" "$bin" --emit-steps=- \
    --shard=0/"$cshard" -j "$jobs" --steps-cache="$tmp/c_$name" "$@" $progs >"$tmp/$name.$phase.jsonl" \
    2>"$tmp/$name.$phase.err"
}
cpu_of() { tail -1 "$tmp/$1.time" | awk -F+ '{ printf "%.2f", $1 + $2 }'; }
for phase in cold warm; do
  echo "== --shard=0/$cshard -j $jobs, $phase cache  [$(load)]"
  if [ -n "$old" ]; then
    run old "$phase" &
    run new "$phase" &
  else
    run full "$phase" --no-incremental &
    run incr "$phase" &
  fi
  wait
  for name in $a $b; do echo "$name: $(cpu_of "$name.$phase") CPU s"; done
done
echo "[$(load)]"
mine=$(sed -n 's/.*"source":"\([^"]*\)".*/\1/p' "$tmp/$b.warm.jsonl" | sort -u | wc -l)
echo "$(wc -l <"$tmp/$b.warm.jsonl") records of $mine programs"
for name in $a $b; do
  awk -v w="$(cpu_of "$name.warm")" -v c="$(cpu_of "$name.cold")" -v n="$cshard" -v np="$np" -v m="$mine" \
      -v name="$name" 'BEGIN {
    first = (c - w) * np / m; if (first < 0) first = 0
    printf "%-5s whole corpus: %d x %.1f s + the %d programs'"'"' first runs %.0f s = %.1f CPU h\n", name, n, w, np,
           first, (n * w + first) / 3600 }'
done
# the leading nests skipped ("incr" lines) and the trailing ones left out
# ("tail" lines: SKIPPED_WORK 0 when the check failed and they ran), by
# phase, of the B setting (statement executions of the programs after)
for phase in cold warm; do
  grep -h -E '^(incr|tail) ' "$tmp/$b.$phase.err" | awk -v phase="$phase" '
    $1 == "incr" { n++; if ($2 > 0) k++; s += $4; w += $5 }
    $1 == "tail" { if ($4 > 0) { tk++; ts += $4 } }
    END { printf "%s: programs after a step run: %d, %d skip leading nests (%.1f %%), %d leave trailing nests out; statement executions skipped: %.1f %% leading, %.1f %% trailing\n",
                 phase, n, k, n ? 100 * k / n : 0, tk, w ? 100 * s / w : 0, w ? 100 * ts / w : 0 }'
done
# the host JIT's kernels (LEIRC_INCR_STATS "jitc" lines, codegen/host_cache.c)
# of each setting that prints them: found in the cache of compiled nests,
# read from its disk part (--steps-cache DIR/jit), compiled, and the CPU
# seconds of the compiles (lowering, LLVM's pipeline, machine code)
for name in $a $b; do
  for phase in cold warm; do
    grep -h '^jitc ' "$tmp/$name.$phase.err" | awk -v name="$name" -v phase="$phase" '
      { n++; h += $2; m += $3; l += $4; o += $5; c += $6; d += $7 }
      END { if (n) printf "%s %s: %d JIT runs, kernels %d from memory, %d from disk, %d compiled; CPU s lowering %.2f, LLVM pipeline %.2f, machine code %.2f\n",
                          name, phase, n, h, d, m, l, o, c }'
  done
done
du -sk "$tmp/c_$a" "$tmp/c_$b" | awk '{ printf "cache %s: %.0f MiB\n", $2, $1 / 1024 }' | sed "s|$tmp/c_||"
for phase in cold warm; do
  if cmp -s "$tmp/$a.$phase.jsonl" "$tmp/$b.$phase.jsonl"; then echo "$phase records: byte-identical"
  else echo "$phase records: DIFFERENT"; fi
done
