#!/bin/sh
# sgemm.sh -- host SGEMM 1024^3: leirc's JIT on examples/sgemm1024.leir (as
# written, then after any -O pipelines given as arguments) against OpenBLAS
# from Debian, in one run, with what settles a comparison between machines:
# the CPU model, the threads used (the CPUs we may run on: `taskset -c 0`
# for one), the vector width LLVM's host features allow and the one the
# JIT's assembly uses, the clock (/proc/cpuinfo and measured), a nominal
# peak (the formula: bench/sgemm_bench.c) and each result as a fraction of
# it -- leirc as it compiles by default (no FMA) and with --fp-contract=on,
# OpenBLAS (FMA) -- and the load before and after.
#
#   bench/sgemm.sh [BUILDDIR] [-O PIPELINE]... [--tuned[=SECONDS] [LEIRC-ARG]...]
#   taskset -c 0 bench/sgemm.sh [BUILDDIR] [-O PIPELINE]...     one thread
#
# Without -O, the two pipelines below ($blocked, $packed).  --tuned[=S]
# (last; default 300 s) also times what `leirc --tune --fp-contract=on
# --time-limit=S --budget=100000` finds on its own from the as-written
# program (issue 58: the schedule sketches, then beam; LEIRC-ARGs after it
# go to that leirc, e.g. --tune=sketch or --seed=N), with its --trace
# (the best program's steps, the search's summary) printed, beside the
# pipelines given
# (none given with --tuned: $packed alone, for reference).  Programs are
# timed side by side (sgemm_bench: every round runs each once, best of
# SGEMM_REPS rounds, default 5), by the wall clock and by the process's
# CPU time: on this shared machine the wall clock measures mostly the load,
# so compare the CPU columns (GFLOP per CPU-second against one core's peak)
# and ratios within one run.
#
# Register-blocked ($blocked): 4x64 blocks of D in 16 zmm registers across
# the whole c loop, C read in place (a 256 KiB column panel from L2, one 4
# KiB page a row: no prefetch across pages):
#   reorder(nest=0,loop1=a,loop2=c),split(nest=0,loop=tx,factor=256),
#   split(nest=0,loop=a,factor=16),reorder(nest=0,loop1=tx,loop2=h),
#   reorder(nest=0,loop1=g,loop2=h)
# Packed ($packed): the same 4x64 register tile over a packed copy of C,
# E[16 panels][1024][64] (layout_transformation reshape1, then
# set_storage_layout transpose; class E, every output bit-identical), so
# that a panel streams contiguously from L2; A's 4 rows stream in place;
# the panels go in 4 groups of 4 (split g, then g inside h): each block of
# A's rows, read from memory for the group's first panel, is used for the
# other three from the caches (a 1 MiB group of E in L2):
#   reorder(nest=0,loop1=a,loop2=c),
#   layout_transformation(nest=0,tensor=C,kind=reshape1,item=1,factor=16),
#   split(nest=1,loop=a,factor=16),set_storage_layout(tensor=E,kind=transpose,perm=1.0.2),
#   split(nest=1,loop=tx,factor=256),reorder(nest=1,loop1=tx,loop2=g),
#   reorder(nest=1,loop1=h,loop2=g),split(nest=1,loop=g,factor=4),
#   reorder(nest=1,loop1=g,loop2=h)
# (Until 5 Dec 2026 without the last two steps, panel by panel: every
# block of A's rows against one panel, then the next; 0.6-1.0% slower in
# the runs below.)
# A 16x16 register tile instead (reshape1 factor=64, split a factor=64,
# split tx factor=64, the same reorders: 16 zmm accumulators, 16 broadcasts
# and one load a step) ran at 0.52 GFLOP/s until 5 Dec 2026: LLVM kept the
# loop of its 16 rows and vectorised it, with gathers of A and gathers and
# scatters of D at every step.  The code generator now unrolls the rows
# of such a tile fully (codegen/lower_loops.c, tile_rows): 74.5 GFLOP/CPU-s
# without FMA, 100.5 with (`taskset -c 0 bench/sgemm.sh _build -O ...`,
# 03:56 UTC, load 1.1-1.3; the 4x64 tile's code is byte-identical).
# Its hot loop (leirc --emit=asm) is the kernel one would write by hand: 4
# vbroadcastss of A, 4 zmm loads of E, 16 vmulps + 16 vaddps into 16
# accumulators (16 vfmadd231ps with --fp-contract=on), E's pointer bumped
# by 256 bytes.  Packing A as well (F[256][1024][4]: reshape1 item=0
# factor=256, transpose perm=0.2.1, reorder(nest=1,loop1=tx,loop2=c) so
# that the copy is not a scatter) measures the same; it needed codegen to
# lower // and % of nonnegative subscripts as udiv/urem (before: gathers
# for F's (h*4+tx)//4, (h*4+tx)%4, 4.6% of peak).
#
# Measured (2 Dec 2026, 15:50 UTC, `taskset -c 0 bench/sgemm.sh _build`): a
# 2-CPU AMD EPYC (Zen 4) KVM guest, LLVM host cpu znver4, the JIT's float
# code all on zmm; clock measured 3.69 GHz; peak 32 flops/cycle/core with
# or without FMA (sgemm_bench.c): 118.2 GFLOP/s; shared, load average 7.0
# before, 7.1 after; OpenBLAS 0.3.21, SkylakeX kernel, one thread; best of
# 5 rounds:
#                         wall              CPU time
#                         GFLOP/s  % peak   GFLOP/CPU-s  % peak   / OpenBLAS
#   as written  no FMA      2.43    2.1        6.02       5.1      0.064
#               FMA         2.31    2.0        5.90       5.0      0.062
#   blocked     no FMA     28.8    24.4       74.6       63.1      0.788
#               FMA        34.8    29.5       88.1       74.5      0.930
#   packed      no FMA     37.9    32.1       79.4       67.2      0.838
#               FMA        37.2    31.5      104.6       88.5      1.104
#   OpenBLAS    FMA        46.0    38.9       94.8       80.1      1
# (ratios by CPU time; the wall clock is the load's); every no-FMA output
# bit-identical to the as-written one, and the packed program's D.npy the
# interpreter's byte for byte (leirc -O "$packed" --run, with and without
# --target=host, against the as-written program's --run: cmp; 1m45s).
# A run 8 minutes earlier (load 6.8-7.1): packed 68.3% / 89.2%, OpenBLAS
# 80.8%, ratios 0.845 / 1.104; one at load 4-5: 69.0% / 87.4%, OpenBLAS
# 83.1%.  `bench/sgemm.sh _build` (2 threads, load 7.1-7.7): the two
# pipelines have no parallel loop and run one thread (CPU columns: packed
# 67.7% / 85.6%, OpenBLAS's 2 threads 83.3%).
# (These Zen 4 figures predate the 64-byte alignment of the buffers, below;
# not re-run since: no Zen 4 machine.)
# On Intel (4 Dec 2026, 10:39 UTC, `taskset -c 0 bench/sgemm.sh _build`): a
# 2-CPU Intel Xeon KVM guest (TVM says emeraldrapids), LLVM host cpu
# sapphirerapids, clock measured 3.00 GHz (cpuinfo 2.30), peak 32
# flops/cycle without FMA, 64 with: 95.9 / 191.8 GFLOP/s; load 1.6-1.7 (a
# fuzzer on the other CPU); OpenBLAS 0.3.21, SkylakeX kernel, one thread:
#                         CPU time
#                         GFLOP/CPU-s  % peak   / OpenBLAS
#   as written  no FMA      10.4       10.9       0.070
#   blocked     no FMA      42.2       44.0       0.282
#               FMA         53.0       27.6       0.353
#   packed      no FMA      81.5       85.0       0.543
#               FMA        151.2       78.9       1.009
#   OpenBLAS    FMA        149.9       78.2       1
# ceilings (same run): the 4x64 block by hand, mul + add on registers only
# 92.4 GFLOP/s, packed operands in L1 89.3, in L2 89.2; the whole product by
# hand with the packed pipeline's loops 83.2 without FMA, 158.6 with.  The
# packed program is at 88% of the register-only mul + add block, 91% of
# the block with its operands in L1, and 98% of the same loops by hand;
# with FMA at 95% of the same loops by hand.  Two runs before and after
# (10:38-10:39) gave packed 81.2 / 81.2 without FMA, 152.2 / 148.0 with,
# OpenBLAS 147.8 / 144.9 (ratios 0.549 / 0.560 and 1.030 / 1.021).
# Where the no-FMA product loses to the block (4 Dec, 19:46 UTC, the same
# command, CPU 1 idle, load 1.5-1.9): packed no FMA 81.8 GFLOP/CPU-s, 88.9%
# of the register-only block (92.1); the packed pipeline's loops by hand
# 83.0 (90.1%); the same loops with every operand kept in the caches
# (sgemm_ceiling's "all cached") 87.4 (94.9%).  So about 5 points are the
# memory hierarchy's (the panels of the packed C, A's rows, D's blocks),
# about 5 the loop structure's (D's block loaded and stored, the panel's
# stream restarting every 1024 steps), and about 1 what the generated
# program adds to the hand loops (mostly the copy into the packed C).
# FMA: 151.5 against OpenBLAS's 149.5 (1.013).
# (The figures above, 2 to 4 Dec, are of the panel-by-panel pipeline,
# compiled by sgemm_bench at LLVM level 3; leirc itself compiles at 2,
# which sgemm_bench uses since 5 Dec: the same speed for this pipeline.)
# 5 Dec 2026, 03:01-03:02 UTC, `taskset -c 0 bench/sgemm.sh _build`, three
# runs in a row, CPU 1 idle, load 0.85-0.92, the same Intel guest (clock
# measured 3.00-3.20 GHz): packed no FMA 82.7 / 82.4 / 83.5 GFLOP/CPU-s;
# with FMA 155.9 / 154.3 / 156.0 against OpenBLAS's 151.0 / 152.2 / 154.3
# (1.032 / 1.014 / 1.011).  The no-FMA peak, measured two ways in the same
# runs: the register-only block's best of 2000 runs of 20 us, 92.4 / 92.8
# / 92.2 (the packed program at 89.5 / 88.8 / 90.5%), and the same block
# run as long as the product and timed as it is (2*1024^3 flops, best of 5
# by CPU time; sgemm_ceiling's "registers only, 2*1024^3 flops", new),
# 89.0 / 89.9 / 88.9 (the packed program at 92.9 / 91.6 / 93.9%).  The
# short runs' figure is the luckiest window of a shared core: 85.7 to 98.7
# in the fourteen runs of sgemm_ceiling between 02:52 and 03:02 UTC,
# against 88.9 to 90.3 for the long one in the eight that had it.  The packed pipeline's loops by hand (now with the groups
# of panels): 84.0 / 85.8 / 84.8, the generated program at 96-98% of them;
# panel by panel by hand 83.2 / 83.9 / 83.1.  Before and after the groups
# (`bench/sgemm.sh _build -O OLD -O NEW`, twice, 03:02 UTC): 82.4 -> 83.2
# and 82.0 -> 82.6 without FMA, 152.3 -> 157.6 and 155.6 -> 157.2 with.
# Before leirc's buffers and sgemm_bench's were 64-byte aligned (ir/buffer.h;
# glibc's calloc and malloc of 4 MiB return an address 16 bytes past a page,
# so every zmm access of A, C, D and the packed E straddled two cache lines)
# the same run gave packed 81.5 / 108.0 GFLOP/s (0.535 / 0.709 of
# OpenBLAS), blocked 35.7 without FMA.  Before 512-bit vectors were preferred
# on every AVX-512 CPU (codegen/kernel.c; LLVM prefers 256 bits on Intel's)
# the JIT used ymm registers only here: packed 45.8 / 56.4 GFLOP/s (0.31 /
# 0.38 of OpenBLAS).  And before the clock was measured with register-register
# adds (bench/cpu_clock.h) it read 14.97 GHz here: Golden Cove folds adds
# of an immediate in the renamer.
# The yardstick, printed last (bench/sgemm_ceiling.c, the Zen 4 run): the 4x64
# block written by hand with intrinsics, packed operands, vmulps + vaddps
# 28.4 flops/cycle from L1 or L2 (89% of peak), vfmadd231ps 31.9, mul + add
# on registers only 31.9 -- on Zen 4 a mul + add kernel that loads its
# operands stays near 89% of the no-FMA peak -- and the whole 1024^3
# product by hand with the packed pipeline's loops around that block: 85.9
# GFLOP/CPU-s without FMA (72.7%), 106.3 with (89.9%).  The generated code
# is at 92% and 98% of that.  What separates the no-FMA figure from the
# block's 89% is the loop structure, not the instructions: the c loop runs
# over all 1024 steps between loading and storing each D block, streaming
# a 256 KiB panel from L2, with no blocking of the reduction (loop_split
# refuses reduction loops; reduction_factorization reassociates, class T).
#
# What --tune finds on its own (issue 58, schedule sketches), 5 Dec 2026,
# `SGEMM_REPS=5 nice -n 10 taskset -c 0 bench/sgemm.sh BUILD --tuned=300`:
# a 2-CPU AMD EPYC KVM guest, LLVM host cpu znver3, AVX2 (no AVX-512:
# 256-bit vectors, 16 ymm), clock measured 3.24 GHz, peak 51.9 / 103.8
# GFLOP/s without / with FMA; heavily shared (load 14-16 on 2 CPUs);
# OpenBLAS 0.3.21, Zen kernel, one thread.  `leirc --tune --fp-contract=on
# --time-limit=300 --budget=100000` (auto: the sketches on half the time,
# then beam from the best) measured 82 of the 88 instances of the matmul
# sketch on this machine (tiles within 8 ymm registers: 2x8 to 8x8, 2x16,
# 4x16, 2x32; packed or not; every panel group) in 150 s, then beam from
# the best (164 programs in all, none failed verification).  Its result
# (22:15-22:21 UTC, load 15.2 before, 14.3 after; the final code):
#   layout_transformation(nest=0,tensor=C,kind=reshape1,item=1,factor=32),
#   set_storage_layout(tensor=E,kind=transpose,perm=1.0.2),
#   loop_split(nest=1,loop=a,factor=32),loop_split(nest=1,loop=tx,factor=512),
#   loop_split(nest=1,loop=g,factor=4),loop_reorder(nest=1,loop1=h,loop2=i),
#   loop_reorder(nest=1,loop1=tx,loop2=h),loop_reorder(nest=1,loop1=tx,loop2=g),
#   loop_reorder(nest=1,loop1=tx,loop2=c),loop_reorder(nest=1,loop1=a,loop2=tx)
#     (the sketch: packed C, a 2x32 tile, groups of 8 panels), then beam:
#   loop_reorder(nest=1,loop1=i,loop2=h),loop_reorder(nest=1,loop1=h,loop2=g),
#   loop_reorder(nest=1,loop1=g,loop2=i),loop_split(nest=0,loop=c,factor=2)
#                         CPU time
#                         GFLOP/CPU-s  % FMA peak   / OpenBLAS
#   as written  FMA         23.5        22.6          0.263
#   packed      FMA         32.3        31.1          0.362  (the 4x64 tile
#                                       spills on 16 ymm registers)
#   tuned       no FMA      67.5        65.0          0.755
#               FMA         84.8        81.7          0.949
#   OpenBLAS    FMA         89.4        86.1          1
# (wall clock, the load's: tuned 1.003 of OpenBLAS with FMA).  Two runs
# before it, same command (22:02-22:14 UTC, load 14-16): 0.932 (--seed=0;
# the packed 2x32 tile panel by panel, what beam added not kept) and 0.875
# (--seed=1; the packed 4x16 tile, groups of 4 panels) of OpenBLAS by CPU
# time with FMA.  The search ranks by the wall clock, which on a machine
# this loaded is mostly the scheduler's: the instances within a few per
# cent of each other are told apart by chance.
#
# Setup: a bench installs nothing.  Without OpenBLAS (libopenblas.so.0 not
# known to the loader; Debian's libopenblas0 or libopenblas-dev provides it)
# the OpenBLAS column is skipped, with a message saying so, and leirc alone
# is timed.  Forces OpenBLAS's AVX-512 kernel (OPENBLAS_CORETYPE=SkylakeX)
# when the CPU has AVX-512F; the kernel that ran is printed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.}
[ $# -gt 0 ] && shift
leirc=$build/leirc
bench=$build/bench/sgemm_bench
prog=$here/examples/sgemm1024.leir
# the register-blocked pipeline and the packed one (see the header)
blocked='reorder(nest=0,loop1=a,loop2=c),split(nest=0,loop=tx,factor=256),split(nest=0,loop=a,factor=16),reorder(nest=0,loop1=tx,loop2=h),reorder(nest=0,loop1=g,loop2=h)'
packed='reorder(nest=0,loop1=a,loop2=c),layout_transformation(nest=0,tensor=C,kind=reshape1,item=1,factor=16),split(nest=1,loop=a,factor=16),set_storage_layout(tensor=E,kind=transpose,perm=1.0.2),split(nest=1,loop=tx,factor=256),reorder(nest=1,loop1=tx,loop2=g),reorder(nest=1,loop1=h,loop2=g),split(nest=1,loop=g,factor=4),reorder(nest=1,loop1=g,loop2=h)'

# no package is installed here: without OpenBLAS, leirc alone is timed
if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libopenblas\.so'; then
  echo "== OpenBLAS not found (libopenblas.so.0; Debian: libopenblas0): skipping the OpenBLAS column, timing leirc only"
fi
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  OPENBLAS_CORETYPE=SkylakeX
  export OPENBLAS_CORETYPE
fi
# the CPUs we may run on (taskset -c 0: one), for leirc's JIT and OpenBLAS
threads=$(nproc)
OPENBLAS_NUM_THREADS=$threads
export OPENBLAS_NUM_THREADS

# without -O: the two pipelines of the header (with --tuned: $packed)
case "${1:-}" in
  "") set -- -O "$blocked" -O "$packed" ;;
  --tuned*) set -- -O "$packed" "$@" ;;
esac
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
# --tuned[=SECONDS]: what leirc --tune finds on its own
case "${1:-}" in
  --tuned|--tuned=*)
    secs=300
    [ "$1" = "--tuned" ] || secs=${1#--tuned=}
    shift
    out=${TMPDIR:-/tmp}/sgemm1024.tuned.leir
    trace=${TMPDIR:-/tmp}/sgemm1024.tuned.jsonl
    echo "== load: $(uptime)"
    echo "== leirc --tune --fp-contract=on --time-limit=$secs --budget=100000 $* (trace $trace)"
    t0=$(date +%s)
    "$leirc" --tune --fp-contract=on --time-limit="$secs" --budget=100000 --trace="$trace" "$@" \
      --emit=leir --print-decls -o "$out" "$prog"
    echo "== tuned in $(($(date +%s) - t0)) s -> $out"
    cat "$trace"
    progs="$progs $out"
    ;;
esac
echo "== load: $(uptime)"
# the vector width of the float arithmetic leirc's JIT emits (its assembly)
for p in $progs; do
  for fc in off on; do
    "$leirc" --fp-contract=$fc --emit=asm -o - "$p" 2>/dev/null |
      grep -E '^[[:space:]]*v(mul|add|sub|fn?m(add|sub)[0-9]+)ps[[:space:]]' |
      awk -v p="$(basename "$p")" -v fc=$fc '
        /%zmm/ { z++; next } /%ymm/ { y++; next } /%xmm/ { x++ }
        END { printf "asm      %s --fp-contract=%s: vector float mul/add/fma instructions on zmm (512-bit) %d, ymm (256) %d, xmm (128) %d\n", p, fc, z, y, x }'
  done
done
# shellcheck disable=SC2086
"$bench" --threads="$threads" --reps="${SGEMM_REPS:-5}" $progs
# the yardstick of the kernel: the same register block written by hand
if [ -x "$build/bench/sgemm_ceiling" ]; then
  "$build/bench/sgemm_ceiling" || [ $? -eq 77 ]
fi
echo "== load: $(uptime)"
