#!/bin/sh
# nvcc compiles the CUDA C that `leirc --emit=cuda` writes for every corpus
# program (issue 9).  Usage:
#   nvcc_check.sh LEIRC CORPUS WORKDIR [SUBSTR...]
# Each program: leirc --emit=cuda -o NAME.cu, then
#   nvcc -c -arch=sm_90 -Werror all-warnings NAME.cu -o NAME.o
# (no -fmad=false needed: the emitted arithmetic is _rn intrinsics).  A
# program passes when both succeed with no warning.  Prints PASS/FAIL lines
# and `nvcc: compiled N/M`; exit status 0 when all compile, 1 otherwise,
# 77 (skip) when nvcc or the corpus is missing.  NVCC and NVCC_ARCH in the
# environment override the compiler and the architecture.
set -u
leirc=${1:?usage: nvcc_check.sh LEIRC CORPUS WORKDIR [SUBSTR...]}
corpus=${2:?}
work=${3:?}
shift 3
nvcc=${NVCC:-nvcc}
arch=${NVCC_ARCH:-sm_90}
if ! command -v "$nvcc" >/dev/null 2>&1; then
  [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
fi
if ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "UNSUPPORTED: nvcc: no nvcc on PATH or in /usr/local/cuda/bin"
  exit 77
fi
if [ ! -d "$corpus/programs" ]; then
  echo "UNSUPPORTED: nvcc: no corpus at $corpus"
  exit 77
fi
mkdir -p "$work"
n=0
ok=0
for leir in "$corpus"/programs/level*/*.leir; do
  name=$(basename "$(dirname "$leir")")/$(basename "$leir" .leir)
  if [ $# -gt 0 ]; then
    hit=0
    for s in "$@"; do case $name in *"$s"*) hit=1 ;; esac; done
    [ $hit = 1 ] || continue
  fi
  n=$((n + 1))
  base=$work/$(echo "$name" | tr / _)
  if ! "$leirc" -w --decls "${leir%.leir}.decls.json" --emit=cuda "$leir" -o "$base.cu" 2>"$base.err"; then
    echo "FAIL: nvcc $name: leirc --emit=cuda: $(head -c 300 "$base.err" | tr '\n' ' ')"
    continue
  fi
  if ! "$nvcc" -c -arch="$arch" -Werror all-warnings "$base.cu" -o "$base.o" >"$base.err" 2>&1; then
    echo "FAIL: nvcc $name: $(head -c 600 "$base.err" | tr '\n' ' ')"
    continue
  fi
  ok=$((ok + 1))
  echo "PASS: nvcc $name"
done
echo "nvcc: compiled $ok/$n ($("$nvcc" --version | tail -1), -arch=$arch)"
[ "$ok" = "$n" ]
