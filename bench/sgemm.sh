#!/bin/sh
# sgemm.sh -- host SGEMM 1024^3: leirc's JIT on examples/sgemm1024.leir (as
# written, then after any -O pipelines given as arguments) against OpenBLAS
# from Debian, in one run.
#
#   bench/sgemm.sh [BUILDDIR] [-O PIPELINE]...
#
# A register-blocked pipeline (4x64 blocks of D in registers across c, a
# 256 KiB panel of C reused from L2 over all rows):
#   bench/sgemm.sh _build -O 'reorder(nest=0,loop1=a,loop2=c),split(nest=0,loop=tx,factor=256),split(nest=0,loop=a,factor=16),reorder(nest=0,loop1=tx,loop2=h),reorder(nest=0,loop1=g,loop2=h)'
# (2-core AVX-512 machine, quiet, 2 threads: as written 17.1 GFLOP/s,
# after it 271 = 15.9x, OpenBLAS 471 (FMA, which leirc may not contract);
# every output bit-identical to the as-written one.  What --tune finds:
# bench/tune_bench.sh.)
#
# Setup: installs libopenblas-dev with apt-get when OpenBLAS is missing and
# we are root.  Forces OpenBLAS's AVX-512 kernel (OPENBLAS_CORETYPE=SkylakeX)
# when the CPU has AVX-512F; the kernel that ran is printed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.}
[ $# -gt 0 ] && shift
leirc=$build/leirc
bench=$build/bench/sgemm_bench
prog=$here/examples/sgemm1024.leir

if ! ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so'; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing libopenblas-dev"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libopenblas-dev >/dev/null
  else
    echo "== OpenBLAS not installed (apt-get install libopenblas-dev); timing leirc only"
  fi
fi
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  OPENBLAS_CORETYPE=SkylakeX
  export OPENBLAS_CORETYPE
fi

progs=$prog
n=0
while [ $# -ge 2 ] && [ "$1" = "-O" ]; do
  n=$((n + 1))
  out=${TMPDIR:-/tmp}/sgemm1024.O$n.leir
  "$leirc" -O "$2" --emit=leir --print-decls -o "$out" "$prog"
  echo "== -O $2 -> $out"
  progs="$progs $out"
  shift 2
done
# shellcheck disable=SC2086
exec "$bench" $progs
