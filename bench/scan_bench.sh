#!/bin/sh
# scan_bench.sh -- the corpus's scans (level1/cumsum, masked_cumsum,
# cumsum_exclusive) on the host JIT as written (a masked sum over the whole
# row, O(n^2)) and after `-O scan_rewrite` (leirc's own strategy: a running
# scan, O(n)), side by side with PyTorch eager on the same shapes, one
# thread, all pinned to core 0 (taskset -c 0).
#
#   bench/scan_bench.sh [BUILDDIR] [CORPUS]   (default . and ../shared/corpus)
#
# Columns, per workload:
#   run_s     `leirc --run --target=host` wall time of the whole process
#             (JIT compile, random inputs, the run, writing the outputs)
#   kernel_s  the measured median of the compiled program (`leirc
#             --print-cost --cost=measure --target=host`: 1 warm-up, up to
#             5 timed runs, codegen/measure.h)
#   torch_s   PyTorch eager's median of 20 timed calls after 3 warm-ups,
#             torch.set_num_threads(1), under torch.no_grad(), the model's
#             ops on float32 inputs of the same shapes
#   torch/leirc  torch_s / kernel_s (above 1: leirc is faster)
# Environment: PYTHON (default /usr/bin/python3, Debian's, with torch).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.}
corpus=${2:-$here/../shared/corpus}
leirc=$build/leirc
py=${PYTHON:-/usr/bin/python3}
progs=$corpus/programs/level1
[ -f "$progs/cumsum.leir" ] || { echo "scan_bench: no corpus at $corpus"; exit 77; }
tmp=${TMPDIR:-/tmp}/scan_bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pin="taskset -c 0"

wall() { # seconds of wall time of "$@" (output discarded)
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "scan_bench: failed: $*" >&2; exit 1; }
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }'
}
kernel() { # measured median of program $1 with sidecar $2
  $pin "$leirc" --decls="$2" "$1" --print-cost --cost=measure --target=host |
    sed -n 's/^measured_seconds: //p'
}

torch_time() { # median seconds of PyTorch eager for workload $1
  $pin "$py" - "$1" <<'EOF'
import statistics, sys, time
import torch
torch.set_num_threads(1)
w = sys.argv[1]
g = torch.Generator().manual_seed(0)
x = torch.randn(128, 4000, generator=g)
mask = torch.rand(128, 4000, generator=g) > 0.5
xe = torch.randn(128, 1000, generator=g)
def cumsum():
    return torch.cumsum(x, 1)
def masked_cumsum():
    return torch.cumsum(x * mask, 1)
def cumsum_exclusive():  # the model's ops: select, unsqueeze, zeros_like, cat, getitem, cumsum
    z = torch.zeros_like(xe.select(1, 0).unsqueeze(1))
    return torch.cumsum(torch.cat((z, xe), 1)[:-1], 1)
f = {"cumsum": cumsum, "masked_cumsum": masked_cumsum, "cumsum_exclusive": cumsum_exclusive}[w]
with torch.no_grad():
    for _ in range(3):
        f()
    ts = []
    for _ in range(20):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
print("%.6g" % statistics.median(ts))
EOF
}

echo "== the corpus's scans: host JIT before/after -O scan_rewrite, and PyTorch eager (bench/scan_bench.sh)"
echo "   machine: $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs;" \
  "one thread, taskset -c 0; torch $($py -c 'import torch; print(torch.__version__)' 2>/dev/null)"
echo "   load before: $(uptime)"
printf '%-17s %-7s %10s %12s %12s %12s\n' workload program run_s kernel_s torch_s torch/leirc
for w in cumsum masked_cumsum cumsum_exclusive; do
  p=$progs/$w.leir d=$progs/$w.decls.json
  "$leirc" --decls="$d" "$p" -O scan_rewrite --print-decls -o "$tmp/$w.scan.leir" || exit 1
  ts=$(torch_time "$w") || exit 1
  for v in before after; do
    q=$p
    [ "$v" = after ] && q=$tmp/$w.scan.leir
    mkdir -p "$tmp/out"
    r=$(wall $pin "$leirc" --decls="$d" "$q" --run --target=host --output-dir "$tmp/out")
    k=$(kernel "$q" "$d")
    [ -n "$k" ] || { echo "scan_bench: no measurement for $w $v"; exit 1; }
    printf '%-17s %-7s %10s %12s %12s %12.4g\n' "$w" "$v" "$r" "$k" "$ts" \
      "$(awk -v t="$ts" -v k="$k" 'BEGIN { print t / k }')"
  done
done
echo "   load after: $(uptime)"
