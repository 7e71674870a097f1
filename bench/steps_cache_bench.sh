#!/bin/sh
# steps_cache_bench.sh -- issue 61 item 1: CPU time of verified
# `leirc --emit-steps` before and after removing repeated work
# (--steps-cache=DIR, the verdict memo; driver/steps_cache.h).
#
#   bench/steps_cache_bench.sh LEIRC CORPUS_DIR [OLD_LEIRC]
#
# OLD_LEIRC: a leirc without them (e.g. the main branch's build), run
# beside; every output of LEIRC is compared byte for byte with OLD_LEIRC's
# (and with LEIRC's own without the cache).  Knobs (environment): JOBS
# (-j, default 2), CORPUS_SHARD (default 2000, as bench/steps_jit_bench.sh),
# SAMPLE (records a program in part 1, default 4), PROGRAMS (part 1's
# programs, relative to CORPUS_DIR/programs, without .leir), PARTS (the
# parts to run, default "1 2").  CPU seconds
# are user+sys of leirc and its workers (/usr/bin/time), which other
# processes' load does not count; `uptime` is printed beside each figure.
#
# 1. Per program, --sample=SAMPLE --seed=0 -j 1 on a fixed set of small,
#    medium and big programs: OLD_LEIRC, LEIRC with a cold cache (its runs
#    fill it) and with a warm one.
# 2. The whole corpus by bench/steps_jit_bench.sh's method: one shard
#    --shard=0/CORPUS_SHARD -j JOBS, timed; the whole corpus is estimated as
#    CORPUS_SHARD x that shard's CPU time.  Without the cache each shard
#    runs the program before the steps of each of its programs again (the
#    method's upper bound); with a cache shared by the shards (one
#    directory on a shared disk) each of the corpus's programs is run once
#    in all, so the estimate is CORPUS_SHARD x the warm shard's time plus
#    the programs' first runs: (cold - warm) x programs / the shard's
#    programs.
set -eu
leirc=$1
corpus=$2
old=${3:-}
jobs=${JOBS:-2}
cshard=${CORPUS_SHARD:-2000}
sample=${SAMPLE:-4}
parts=${PARTS:-"1 2"}
plist=${PROGRAMS:-"level1/ReLU level2/Matmul_Min_Subtract level2/Matmul_Swish_Sum_GroupNorm level1/Square_matrix_multiplication level2/Conv3d_GroupNorm_Mean level2/GQA"}
[ -d "$corpus/programs" ] || { echo "steps_cache_bench: no corpus at $corpus (skipped)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/steps_cache_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
load() { uptime | sed 's/.*load average: */load /'; }

# cpu OUT CMD...: runs CMD with stdout to OUT; sets $cpu (user+sys s).
cpu() {
  out=$1
  shift
  /usr/bin/time -f %U+%S -o "$tmp/cpu" "$@" >"$out" 2>"$tmp/stderr" || { echo "failed: $*"; tail -3 "$tmp/stderr"; exit 1; }
  cpu=$(tail -1 "$tmp/cpu" | awk -F+ '{ printf "%.2f", $1 + $2 }')
}
same() { if cmp -s "$1" "$2"; then echo "identical"; else echo "DIFFERENT"; fi; }

case " $parts " in *" 1 "*)
echo "== 1. per program: --emit-steps --sample=$sample --seed=0 -j 1 (CPU s)"
mkdir "$tmp/c1"
for p in $plist; do
  f="$corpus/programs/$p.leir"
  [ -f "$f" ] || continue
  o="-"
  if [ -n "$old" ]; then cpu "$tmp/old.jsonl" "$old" --emit-steps=- --sample="$sample" --seed=0 "$f"; o=$cpu; fi
  cpu "$tmp/cold.jsonl" "$leirc" --emit-steps=- --sample="$sample" --seed=0 --steps-cache="$tmp/c1" "$f"
  c=$cpu
  cpu "$tmp/warm.jsonl" "$leirc" --emit-steps=- --sample="$sample" --seed=0 --steps-cache="$tmp/c1" "$f"
  w=$cpu
  cmpr="cold/warm $(same "$tmp/cold.jsonl" "$tmp/warm.jsonl")"
  [ -n "$old" ] && cmpr="$cmpr, old/cold $(same "$tmp/old.jsonl" "$tmp/cold.jsonl")"
  printf "%-45s %3d records  old %7s  cold %7s  warm %7s  (%s)  [%s]\n" "$p" "$(wc -l <"$tmp/warm.jsonl")" "$o" "$c" "$w" "$cmpr" "$(load)"
done
echo
;; esac
case " $parts " in *" 2 "*) ;; *) exit 0 ;; esac

echo "== 2. the whole corpus: --shard=0/$cshard -j $jobs, estimated x $cshard"
progs=$(ls "$corpus"/programs/level1/*.leir "$corpus"/programs/level2/*.leir)
np=$(echo "$progs" | wc -l)
if [ -n "$old" ]; then
  cpu "$tmp/s_old.jsonl" "$old" --emit-steps=- --shard=0/"$cshard" -j "$jobs" $progs
  so=$cpu
  echo "old:                       $so CPU s  -> $(awk -v c="$so" -v n="$cshard" 'BEGIN { printf "%.1f", c * n / 3600 }') CPU h  [$(load)]"
fi
mkdir "$tmp/c2"
cpu "$tmp/s_cold.jsonl" "$leirc" --emit-steps=- --shard=0/"$cshard" -j "$jobs" --steps-cache="$tmp/c2" $progs
sc=$cpu
echo "new, cold cache:           $sc CPU s  -> $(awk -v c="$sc" -v n="$cshard" 'BEGIN { printf "%.1f", c * n / 3600 }') CPU h  [$(load)]"
cpu "$tmp/s_warm.jsonl" "$leirc" --emit-steps=- --shard=0/"$cshard" -j "$jobs" --steps-cache="$tmp/c2" $progs
sw=$cpu
mine=$(sed -n 's/.*"source":"\([^"]*\)".*/\1/p' "$tmp/s_warm.jsonl" | sort -u | wc -l)
echo "new, warm cache:           $sw CPU s  ($(wc -l <"$tmp/s_warm.jsonl") records of $mine programs)  [$(load)]"
awk -v w="$sw" -v c="$sc" -v n="$cshard" -v np="$np" -v m="$mine" -v o="${so:-}" 'BEGIN {
  first = (c - w) * np / m; if (first < 0) first = 0
  t = (n * w + first) / 3600
  printf "new, shared cache: %d x %.1f s + the %d programs'"'"' first runs %.0f s = %.1f CPU h", n, w, np, first, t
  if (o != "") printf " (old %.1f CPU h: %.2fx)", o * n / 3600, o * n / 3600 / t
  printf "\n" }'
echo "outputs: cold/warm $(same "$tmp/s_cold.jsonl" "$tmp/s_warm.jsonl")$([ -n "$old" ] && echo ", old/new $(same "$tmp/s_old.jsonl" "$tmp/s_cold.jsonl")")"
