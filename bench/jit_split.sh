#!/bin/sh
# jit_split.sh -- issue 61: where one host-JIT run of a program goes (the
# attention family's after-runs of `leirc --emit-steps`): LLVM compile
# (libLLVM), the compiled code running ("[JIT]"), the kernel (page faults,
# zeroing of fresh pages), libc (memset/memcpy), leirc itself, as shares of
# `perf record -F 999` samples of `leirc --run --target=host PROG`, with
# the run's CPU seconds; for each LEIRC given, side by side per program.
#
#   bench/jit_split.sh CORPUS_DIR LEVEL/WORKLOAD LEIRC...
#
# LEIRC: the libtool wrapper, or a script that runs the binary (perf
# follows it).  Needs perf (perf_event_paranoid <= 2); exit status 77
# without the corpus or perf.
set -eu
corpus=$1
w=$2
shift 2
[ -f "$corpus/programs/$w.leir" ] || { echo "jit_split: no $w in $corpus (skipped)"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "jit_split: no perf (skipped)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jit_split.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; $(uptime | sed 's/.*load average: */load /')"
i=0
for leirc in "$@"; do
  i=$((i + 1))
  mkdir "$tmp/out$i"
  /usr/bin/time -f %U+%S -o "$tmp/t$i" perf record -q -F 999 -o "$tmp/p$i.data" \
    "$leirc" --run --target=host --output-dir "$tmp/out$i" "$corpus/programs/$w.leir" >/dev/null 2>&1 || true
  echo "== $w, $leirc: $(awk -F+ '{ printf "%.2f", $1 + $2 }' "$tmp/t$i") CPU s (with perf)"
  perf report -q -i "$tmp/p$i.data" --sort dso 2>/dev/null | head -6
done
j=2
while [ "$j" -le "$i" ]; do
  for f in "$tmp"/out1/*.npy; do
    cmp -s "$f" "$tmp/out$j/$(basename "$f")" || echo "outputs of 1 and $j DIFFER: $(basename "$f")"
  done
  j=$((j + 1))
done
