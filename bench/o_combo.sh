#!/bin/sh
# o_combo.sh -- `-O tile,reorder` with bare names (issue 58 item 4): the
# cost model's seconds of each example as written, after one step at a time
# (`-O tile`, then `-O reorder` on its result: what -O did before) and after
# the combination `-O tile,reorder` chooses now, for the host and the cuda
# (sm_90) model, with the combination's wall time.  Then (unless --no-tune)
# the GPU sanity check of issue 57: `--tune --target=cuda --cost=model` on
# SGEMM 1024^3 with a 60 s time limit (with the default --budget and with
# --budget=100000, so that the time limit governs): the model's speed-up,
# the wall time, and whether the PTX assembles (`ptxas -arch=sm_90`, where
# ptxas is found).  Everything is the deterministic model; no GPU is used.
#
# With a corpus (LEIR_CORPUS, or the third argument), also the cost of the
# search on its three largest programs for sm_90: wall time and peak memory
# of `-O tile,reorder` against `-O tile` then `-O reorder` (two runs).
#
# Usage: bench/o_combo.sh [LEIRC] [--no-tune|--tune] [CORPUS]
#   (LEIRC default _build/leirc)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
leirc=${1:-$top/_build/leirc}
tune=1
[ "${2:-}" = "--tune" ] && tune=1
[ "${2:-}" = "--no-tune" ] && tune=0
[ "${1:-}" = "--no-tune" ] && { leirc=$top/_build/leirc; tune=0; }
corpus=${3:-${LEIR_CORPUS:-}}
[ -x "$leirc" ] || { echo "o_combo: no leirc at $leirc" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "load: $(uptime | sed 's/.*load average: //')"

secs() { "$leirc" --print-cost --cost=model --target="$2" "$1" | sed -n 's/^seconds: //p'; }
now() { date +%s.%N; }

printf '%-10s %-5s %12s %12s %12s %9s %9s %7s\n' program model input one-at-a-time combination "in/comb" "step/comb" wall_s
for ex in matmul sgemm1024 attention conv2d layernorm; do
  src=$top/examples/$ex.leir
  for t in host cuda; do
    in=$(secs "$src" $t)
    "$leirc" -O tile --target=$t --emit=leir "$src" -o "$tmp/g1.leir" 2>/dev/null
    "$leirc" -O reorder --target=$t --emit=leir "$tmp/g1.leir" -o "$tmp/g2.leir" 2>/dev/null
    g=$(secs "$tmp/g2.leir" $t)
    t0=$(now)
    "$leirc" -O tile,reorder --target=$t --emit=leir "$src" -o "$tmp/c.leir" 2>/dev/null
    t1=$(now)
    c=$(secs "$tmp/c.leir" $t)
    awk -v p=$ex -v t=$t -v i="$in" -v g="$g" -v c="$c" -v a="$t0" -v b="$t1" 'BEGIN {
      printf "%-10s %-5s %12s %12s %12s %9.3f %9.3f %7.2f\n", p, t, i, g, c, i / c, g / c, b - a }'
  done
done

if [ -n "$corpus" ] && [ -d "$corpus/programs" ] && [ -x /usr/bin/time ]; then
  printf '%-45s %10s %10s %12s %12s\n' "corpus program (cuda)" comb_s comb_MB one_at_a_time_s one_at_a_time_MB
  # shellcheck disable=SC2012
  for f in $(ls -S "$corpus"/programs/*/*.leir | head -3); do
    /usr/bin/time -f '%e %M' -o "$tmp/c.time" "$leirc" -O tile,reorder --target=cuda --emit=leir "$f" -o /dev/null 2>/dev/null
    /usr/bin/time -f '%e %M' -o "$tmp/g1.time" "$leirc" -O tile --target=cuda --emit=leir "$f" -o "$tmp/g1.leir" 2>/dev/null
    /usr/bin/time -f '%e %M' -o "$tmp/g2.time" "$leirc" -O reorder --target=cuda --emit=leir "$tmp/g1.leir" -o /dev/null 2>/dev/null
    awk -v p="$(basename "$f")" -v c="$(cat "$tmp/c.time")" -v a="$(cat "$tmp/g1.time")" -v b="$(cat "$tmp/g2.time")" 'BEGIN {
      split(c, x, " "); split(a, y, " "); split(b, z, " ");
      printf "%-45s %10.2f %10.0f %12.2f %12.0f\n", p, x[1], x[2] / 1024, y[1] + z[1], (y[2] > z[2] ? y[2] : z[2]) / 1024 }'
  done
fi

[ $tune = 1 ] || exit 0
sg=$top/examples/sgemm1024.leir
in=$(secs "$sg" cuda)
for budget in default 100000; do
  b=""
  [ $budget = default ] || b="--budget=$budget"
  t0=$(now)
  # shellcheck disable=SC2086
  "$leirc" --tune --cost=model --target=cuda --time-limit=60 $b --emit=leir "$sg" -o "$tmp/t.leir" 2>/dev/null
  t1=$(now)
  c=$(secs "$tmp/t.leir" cuda)
  ptx="not checked (no ptxas)"
  if command -v ptxas >/dev/null 2>&1; then
    "$leirc" --emit=ptx "$tmp/t.leir" -o "$tmp/t.ptx"
    if ptxas -arch=sm_90 "$tmp/t.ptx" -o "$tmp/t.cubin" 2>"$tmp/ptxas.err"; then ptx="assembles (ptxas -arch=sm_90)"
    else ptx="ptxas failed: $(head -1 "$tmp/ptxas.err")"; fi
  fi
  awk -v b=$budget -v i="$in" -v c="$c" -v a="$t0" -v e="$t1" -v p="$ptx" 'BEGIN {
    printf "tune sgemm1024 cuda model, --time-limit=60, budget %s: %s s -> %s s (%.1fx) in %.1f s wall; PTX %s\n",
      b, i, c, i / c, e - a, p }'
  echo "  program: $(tail -n 1 "$tmp/t.leir")"
done
