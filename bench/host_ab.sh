#!/bin/sh
# host_ab.sh -- host JIT run time of two leirc builds, side by side, on the
# corpus programs given (one thread: bench/tvm_bench --threads 1, best of
# REPS runs, A then B for each program, on `leirc --run`'s random inputs,
# seed 0: bench/tvm_bench.c), with the ratio A/B
# (above 1: B is faster) and the geometric mean; the load before and after.
#
#   bench/host_ab.sh BUILD_A BUILD_B PROGRAM.leir...     (REPS=5 by default)
#   taskset -c 0 bench/host_ab.sh /tmp/base/_build _build $(cat list)
#
# A program's decls are PROGRAM.decls.json when present.
a=$1 b=$2
shift 2
uptime
echo "| program | A s | B s | A / B |"
echo "|---|---|---|---|"
for p in "$@"; do
  d=${p%.leir}.decls.json
  spec=$p
  [ -f "$d" ] && spec=$p:$d
  ta=$("$a/bench/tvm_bench" --threads 1 --reps "${REPS:-5}" "$spec" | awk '{print $3}')
  tb=$("$b/bench/tvm_bench" --threads 1 --reps "${REPS:-5}" "$spec" | awk '{print $3}')
  echo "$p $ta $tb"
done | awk '{ n = $1; sub(".*/programs/", "", n); sub("[.]leir$", "", n)
  if ($2 + 0 > 0 && $3 + 0 > 0) { r = $2 / $3; s += log(r); k++; printf "| %s | %.3g | %.3g | %.2f |\n", n, $2, $3, r }
  else printf "| %s | %s | %s | - |\n", n, $2, $3 }
  END { if (k) printf "geometric mean A/B over %d programs: %.2f\n", k, exp(s / k) }'
uptime
