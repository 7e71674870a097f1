#!/bin/sh
# steps_profile.sh -- issue 61 item 1: where `leirc --emit-steps` spends its
# time, per program (`make bench-steps-profile`).
#
#   bench/steps_profile.sh LEIRC CORPUS_DIR [LEVEL/WORKLOAD...]
#
# Samples one `leirc --emit-steps` run of each program (every record, -j 1)
# with `perf record -F 499` (user and kernel time of leirc, no call graphs)
# and prints the share of samples per shared object (leirc itself: the
# interpreter and the passes; libLLVM: the host JIT's compilation; "[JIT]":
# the JIT-compiled code running; libm/libc) and the top symbols.  The default
# programs: one checked in the interpreter (level1/Softplus) and two over
# its budget, checked on the host JIT (level1/Tall_skinny_matrix_multiplication,
# level2/Conv2d_AvgPool_Sigmoid_Sum); each run is cut at PROFILE_SECONDS
# (default 300) of wall time.  LEIRC is the libtool wrapper or the binary;
# needs perf (perf_event_paranoid <= 2).  Exit status 77 without the corpus
# or perf.
set -eu
leirc=$1
corpus=$2
shift 2
[ -d "$corpus/programs" ] || { echo "steps_profile: no corpus at $corpus (skipped)"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "steps_profile: no perf (skipped)"; exit 77; }
[ $# -gt 0 ] || set -- level1/Softplus level1/Tall_skinny_matrix_multiplication level2/Conv2d_AvgPool_Sigmoid_Sum
# the libtool wrapper runs .libs/leirc: profile that
bin=$leirc
[ -x "$(dirname "$leirc")/.libs/$(basename "$leirc")" ] && bin=$(dirname "$leirc")/.libs/$(basename "$leirc")
libdir=$(cd "$(dirname "$leirc")" && pwd)/.libs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/steps_profile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; $(uptime | sed 's/.*load average: */load /')"
for w in "$@"; do
  n=$(basename "$w")
  LD_LIBRARY_PATH=$libdir timeout "${PROFILE_SECONDS:-300}" perf record -q -F 499 -o "$tmp/$n.data" \
    "$bin" --emit-steps="$tmp/$n.jsonl" "$corpus/programs/$w.leir" 2>/dev/null || true
  echo "== $w: $(wc -l <"$tmp/$n.jsonl") records ($(uptime | sed 's/.*load average: */load /'))"
  perf report -q -i "$tmp/$n.data" --sort dso 2>/dev/null | head -6
  echo "  top symbols:"
  perf report -q -i "$tmp/$n.data" --sort sym 2>/dev/null | head -8
done
