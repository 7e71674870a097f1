#!/bin/sh
# steps_vs_old.sh -- issue 61: whole-corpus CPU hours of verified
# `leirc --emit-steps` against an OLD build that may predate --steps-cache
# (e.g. the build of the day issue 61 was filed), on the same shards, one
# after the other on this machine.
#
#   bench/steps_vs_old.sh LEIRC CORPUS_DIR OLD_LEIRC [SHARD...]
#
# SHARDs (default 0 1000 1500) are shards I of CORPUS_SHARD (default 2000),
# -j JOBS (default 2).  Per shard: OLD without a cache (old.I), then LEIRC
# with a fresh --steps-cache cold (cold.I) and warm (warm.I).  Then a
# "fair" warm: a fresh cache filled only with every program's first run
# (--sample=1 --seed=0 over the whole corpus: fill), and each shard run
# against it (fair.I).
#
# Why fair.I is what a real whole-corpus run pays for shard I: records are
# numbered program by program, candidate by candidate, and a shard takes
# those with id mod CORPUS_SHARD = I, so it holds about one record of each
# of many programs.  A whole-corpus run is the CORPUS_SHARD shards sharing
# one cache (any order, any machines): every program's before runs once,
# in the first shard that reaches it, which writes its entry (outputs and
# intermediates) and its kernels (DIR/jit); every other shard maps that
# entry and takes those kernels.  The programs after the steps write
# nothing to the cache (their kernels stay in the process's memory), so
# when a shard runs, the cache holds every program's before and nothing
# of the other shards' steps -- what the fill writes, besides one step per
# program (its cost is counted) -- and every input's first pass (DIR/enum,
# written by the first shard, the fill here).  (A record's before is always its input
# program after -O, never an earlier record's after, so no step's after
# is another's before.)  That holds only if the fill's entries are those
# of a run of every record: before issue 61's fix of nest_weights
# (driver/steps.c: now every legal candidate counts) they were not, the
# intermediates an entry over 64 MiB keeps being weighted by the records
# the run selected (--sample=1: one candidate's nest), so fair.I re-ran
# what a real run's entry lets it skip (2-CPU Zen 3, shard 0: fair 25.63
# CPU s against warm 16.51; with the fix 15.42).  warm.I is then the same
# state but for the one fill step per program, so warm.I and fair.I agree
# within the noise.
# CPU seconds are user+sys of leirc and its workers (/usr/bin/time).
# Whole corpus:
#   old:  CORPUS_SHARD x old.I (bench/steps_jit_bench.sh's method)
#   warm: CORPUS_SHARD x warm.I + (cold.I - warm.I) x programs / the
#         shard's programs (bench/incr_bench.sh's method)
#   fair: CORPUS_SHARD x fair.I + fill
# each averaged over the shards, with the ratios old/warm and old/fair.
# Records: cold.I, warm.I and fair.I must be the same bytes; old.I against
# cold.I is printed (same or DIFF: an older build may have other
# candidates or another candidate order).  Exits 77 without a corpus.
set -eu
leirc=$1
corpus=$2
old=$3
shift 3
bench=steps_vs_old
. "$(dirname "$0")/shard_setup.sh"
[ $# -gt 0 ] || set -- 0 1000 1500
# t TAG CMD...: one timed run into $tmp/TAG.{jsonl,err,time}; prints its CPU s
t() {
  tag=$1
  shift
  /usr/bin/time -f %U+%S -o "$tmp/$tag.time" "$@" >"$tmp/$tag.jsonl" 2>"$tmp/$tag.err" ||
    { echo "$bench: $tag failed:" >&2; tail -5 "$tmp/$tag.err" >&2; exit 1; }
  cpu=$(tail -1 "$tmp/$tag.time" | awk -F+ '{printf "%.2f", $1 + $2}')
  echo "$tag: $cpu CPU s, $(wc -l <"$tmp/$tag.jsonl") records [$(load)]" >&2
  echo "$cpu"
}
same() { cmp -s "$tmp/$1.jsonl" "$tmp/$2.jsonl" && echo same || echo DIFF; }
mkdir "$tmp/fair"
# shellcheck disable=SC2086
fill=$(t fill "$leirc" --emit-steps=- --sample=1 --seed=0 -j "$jobs" --steps-cache="$tmp/fair" $progs)
sum_old=0 sum_warm=0 sum_fair=0 n=0
printf '| shard | programs | old | cold | warm | fair | old = cold | cold = warm = fair |\n|---|---|---|---|---|---|---|---|\n' >"$tmp/table"
for i in "$@"; do
  mkdir "$tmp/c$i"
  # shellcheck disable=SC2086
  o=$(t "old.$i" "$old" --emit-steps=- --shard="$i/$cshard" -j "$jobs" $progs)
  # shellcheck disable=SC2086
  c=$(t "cold.$i" "$leirc" --emit-steps=- --shard="$i/$cshard" -j "$jobs" --steps-cache="$tmp/c$i" $progs)
  # shellcheck disable=SC2086
  w=$(t "warm.$i" "$leirc" --emit-steps=- --shard="$i/$cshard" -j "$jobs" --steps-cache="$tmp/c$i" $progs)
  # shellcheck disable=SC2086
  f=$(t "fair.$i" "$leirc" --emit-steps=- --shard="$i/$cshard" -j "$jobs" --steps-cache="$tmp/fair" $progs)
  rm -rf "$tmp/c$i"
  sp=$(sed -n 's/.*"source":"\([^"]*\)".*/\1/p' "$tmp/warm.$i.jsonl" | sort -u | wc -l)
  [ "$sp" -gt 0 ] || sp=1
  rest="$(same cold."$i" warm."$i") $(same warm."$i" fair."$i")"
  echo "| $i | $sp | $o | $c | $w | $f | $(same old."$i" cold."$i") | $rest |" >>"$tmp/table"
  sum_old=$(awk -v a="$sum_old" -v o="$o" -v k="$cshard" 'BEGIN{print a + k * o}')
  sum_warm=$(awk -v a="$sum_warm" -v w="$w" -v c="$c" -v k="$cshard" -v np="$np" -v sp="$sp" \
    'BEGIN{print a + k * w + (c - w) * np / sp}')
  sum_fair=$(awk -v a="$sum_fair" -v f="$f" -v k="$cshard" -v fill="$fill" 'BEGIN{print a + k * f + fill}')
  n=$((n + 1))
done
cat "$tmp/table"
echo "fill (every program's first run, a fresh cache): $fill CPU s"
awk -v o="$sum_old" -v w="$sum_warm" -v f="$sum_fair" -v n="$n" 'BEGIN{
  printf "whole corpus, mean of %d shards: old %.2f CPU h; new, warm %.2f CPU h (%.2fx); new, fair %.2f CPU h (%.2fx)\n",
    n, o / n / 3600, w / n / 3600, o / w, f / n / 3600, o / f }'
