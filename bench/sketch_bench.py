"""Schedule sketches (issue 58): PyTorch eager against leirc as written and as tuned.

For each corpus workload below (a handful per family: matmul / Linear / bmm,
conv, others) three times side by side on one CPU (taskset -c 0; --cpu):

* PyTorch eager: the same operation on tensors of the corpus's shapes
  (torch.set_num_threads(1), no_grad, the median of REPS calls, as leirc's
  measured time is a median);
* leirc as the corpus writes it: ``leirc --print-cost --cost=measure
  --target=host`` (the median of timed runs of the host JIT);
* leirc tuned: the program that ``leirc TUNE...`` (default ``--tune=sketch
  --budget=8 --time-limit=120``, measured on the host) writes, timed the
  same way.

Each leirc time is the best over PROCS processes; PyTorch's too.  The tuned
program is written under OUTDIR (default: a temporary folder) with its
--trace.

    sketch_bench.py LEIRC CORPUS [--tune="ARGS"] [--leirc-args="ARGS"] [--procs P] [--reps R]
                    [--only NAME,...] [--outdir DIR] [--cpu N]
                    [--rank-compare [--rank-time S] [--rank-settings NAME,...]]
                    [--evo-compare [--rank-time S] [--rank-settings NAME,...]]

Prints a Markdown table (ms per run; torch / leirc > 1: leirc is faster)
and the geomean of torch / tuned per family.  Exits 0; 77 when the corpus
is absent.

``--rank-compare`` (issue 58 item 1: where does the learned cost model rank
better?) leaves PyTorch out and tunes each workload four ways, each with
``--time-limit=S`` (default 20) on core 0, then times the four programs
picked, side by side (best of PROCS processes each, interleaved):

* ``sketch/analytic``: ``--tune=sketch --cost=model`` (the analytic model
  ranks the sketch instances, the best verified one is kept);
* ``sketch/learned``: ``--tune=sketch --cost=learned`` (the learned model);
* ``auto/analytic``: ``--tune`` (measured: the sketches, then beam, whose
  candidates the analytic model ranks before the best --expand are measured);
* ``auto/learned+online``: ``--tune --rank-cost=learned`` (the same with the
  learned model ranking, refitted to every measurement of the search).

It prints the measured ms of each picked program, the geomean speed-up
over the program as written per setting, and how often learned's pick
beat analytic's (by more than 5%) and lost to it.  (softmax and the sum
match no sketch rule: ``--tune=sketch`` runs beam there, ranked by the
model named.)

Measured 6 Dec 2026 (leirc of branch online, --fp-contract=on), twice,
``make bench-sketch SKETCH_BENCH_ARGS='--rank-compare --procs 3
--rank-time 20'``, 2-CPU AMD EPYC KVM guest, one thread, taskset -c 0,
about 7 engineers building on the 2 CPUs (ms; run 1 05:41-05:54 UTC,
load 8.0 -> 13.3; run 2 05:54-06:06, load 12.5 -> 10.1)::

    workload                      written  sk/analytic  sk/learned  auto/analytic  auto/learned+online
    run 1
    Gemm_Add_ReLU                 149.455     13.917       2.433        1.977          2.174
    Gemm_Gemm                     431.976     37.485      22.826       48.787         26.778
    Matmul_Scaling_ResidualAdd      0.573      0.125       0.107        0.089          0.101
    Batched_matrix_multiplication 239.651    110.565     169.707       76.682         98.621
    Matmul_with_transposed_A      194.393    135.700     230.218       80.610         71.424
    Tall_skinny_matrix_mult.        0.979      1.013       0.539        0.452          0.436
    conv_pointwise_2D              72.090     78.250      85.651       69.462         82.011
    softmax                         1.097      1.258       0.850        0.673          0.764
    Sum_reduction_over_a_dim.       0.195      0.173       0.252        0.207          0.144
    geomean speed-up                           2.26        2.82         3.64           3.79
    learned faster / slower / within 5%:  sketch 5/4/0, auto 3/5/1
    run 2
    Gemm_Add_ReLU                 129.133     13.902       6.224        6.224          2.601
    Gemm_Gemm                     264.831     27.282      13.038       13.695         33.774
    Matmul_Scaling_ResidualAdd      0.415      0.086       0.088        0.074          0.079
    Batched_matrix_multiplication 263.261    110.945     155.113      148.117        126.009
    Matmul_with_transposed_A       56.198     56.465      94.413       31.735         31.496
    Tall_skinny_matrix_mult.        0.985      0.993       0.519        0.440          0.428
    conv_pointwise_2D              86.924     88.815      86.352       88.066         85.532
    softmax                         0.828      1.035       0.648        0.591          0.622
    Sum_reduction_over_a_dim.       0.220      0.219       0.298        0.105          0.099
    geomean speed-up                           2.10        2.48         3.30           3.35
    learned faster / slower / within 5%:  sketch 4/3/2, auto 3/3/3

Where the model alone picks the program (``--tune=sketch`` with
``--cost=model`` against ``--cost=learned``), the learned model's pick is
faster by geomean in both runs (2.82 against 2.26, 2.48 against 2.10:
about 1.2x), much faster on Gemm_Add_ReLU, Gemm_Gemm, the tall-skinny
matmul and softmax, and consistently slower on the batched matmul and the
transposed-A matmul (about 0.6-0.7x).  Where it only ranks the candidates
before the measured search measures them (``--rank-cost``), the two are
equal within this machine's noise (3.79 against 3.64, 3.35 against 3.30;
the same workload's auto figures move up to 3x between the runs).

With the sketch screening of ``--rank-cost=learned`` (instances the model
rates over twice the best measured are not measured; 06:14-06:21 UTC, load
6.5 -> 14.7, ``--rank-settings auto/analytic,auto/learned+online --only``
the seven matmul-family and conv workloads)::

    workload                      written  auto/analytic  auto/learned+online
    Gemm_Add_ReLU                 115.205      6.143          6.224
    Gemm_Gemm                     280.196     12.154         17.837
    Matmul_Scaling_ResidualAdd      0.412      0.096          0.082
    Batched_matrix_multiplication 221.582     84.636         82.745
    Matmul_with_transposed_A       94.139     31.385         31.478
    Tall_skinny_matrix_mult.        1.007      0.452          0.515
    conv_pointwise_2D              69.472     72.235         39.967
    geomean speed-up                           4.39           4.54
    learned faster / slower / within 5%: 2/2/3

again equal within the noise.

``--evo-compare`` (issue 58 item 2: does the measured sketch search gain by
ranking many instances and measuring the best few, as Ansor and
MetaSchedule do?) tunes each workload with ``--sketch-search=sample``
(each instance drawn is measured) and ``--sketch-search=evolve``
(generations of 32 ranked by the cost model, the best 4 measured), under
``--tune=sketch`` (the stage alone), bare ``--tune`` (the stage on half the
time, then beam) and ``--rank-cost=learned`` (settings ``sketch/sample``,
``sketch/evolve``, ``auto/sample``, ``auto/evolve``,
``sketch/evolve+learned``, ``auto/evolve+learned``), timed as above.

Measured 6 Dec 2026 (leirc of branch evo, --fp-contract=on), one thread,
2-CPU AMD EPYC KVM guest, two vs_torch.py benchmark shards pinned to the
same two CPUs and about 7 engineers building (load 5.4 -> 13.3); ``make
bench-sketch SKETCH_BENCH_ARGS='--evo-compare --rank-settings S,S
--rank-time T --procs 3 --cpu C'`` (ms)::

    --tune=sketch, --rank-time 30, core 0: run 1 09:38-09:51 UTC (load
    5.4 -> 11.6), run 2 09:54-10:11 (12.4 -> 13.3)
    workload                      written  sample  evolve | written  sample  evolve  evolve+learned
    Gemm_Add_ReLU                 156.492   1.789   1.913 | 318.095   2.327   2.070   1.993
    Gemm_Gemm                     923.550  37.999  66.891 | 636.185  19.946  34.133  20.518
    Matmul_Scaling_ResidualAdd      0.413   0.068   0.075 |   0.409   0.078   0.078   0.088
    Batched_matrix_multiplication 581.090 289.346 329.535 | 380.817 178.405 169.914 199.158
    Matmul_with_transposed_A      128.700  52.440  49.051 |  80.713  33.111  30.159  34.970
    Tall_skinny_matrix_mult.        0.998   0.621   0.548 |   0.987   0.475   0.600   0.598
    conv_pointwise_2D             127.990  74.415  83.483 |  72.111  46.196  35.541  76.332
    softmax                         0.644   0.391   0.401 |   0.641   0.393   0.403   0.421
    Sum_reduction_over_a_dim.       0.112   0.109   0.112 |   0.099   0.085   0.112   0.096
    TripletMarginLoss               0.268   0.052   0.049 |   0.271   0.039   0.039   0.038
    geomean speed-up                        4.15    3.84  |           4.68    4.43    4.22
    evolve faster / slower / within 5%: run 1 3/5/2, run 2 3/3/4

    --tune (auto), --rank-time 60, core 1, 09:38-10:02 UTC (load 5.4 -> 12.9)
    workload                      written  sample  evolve
    Gemm_Add_ReLU                 384.806  22.536   2.569
    Gemm_Gemm                     809.162  43.595  38.085
    Matmul_Scaling_ResidualAdd      0.419   0.085   0.097
    Batched_matrix_multiplication 375.025 179.483 163.783
    Matmul_with_transposed_A      169.416  60.470  69.063
    Tall_skinny_matrix_mult.        0.970   0.443   0.442
    conv_pointwise_2D             163.475  94.117  90.606
    softmax                         0.678   0.426   0.399
    Sum_reduction_over_a_dim.       0.106   0.089   0.127
    TripletMarginLoss               0.265   0.047   0.048
    geomean speed-up                        3.60    4.34
    evolve faster / slower / within 5%: 4/3/3

The stage alone lost by about 6% in both runs, and the learned ranking did
not help it (4.22); bare ``--tune`` gained 1.2x, from one workload
(Gemm_Add_ReLU, whose sampled search kept a 22.5 ms program where every
other run found about 2 ms).  Sum_reduction_over_a_dimension matches no
sketch rule, so its search is the same in every setting: its figures
(0.085 to 0.127 ms) show the noise of one workload here, about 1.4x.  So
the stage is kept, not the default: ``--sketch-search=evolve``.  The
analytic model ranks one program's sketch instances poorly (it rates
narrow 4x8 and 2x8 tiles as best on Gemm_Add_ReLU, measured 10x slower
than 4x16); before its estimates were anchored to the nearest measured
instance, the stage's pick there was 10.5 ms against the sampling's 2.1.

Without --rank-compare, measured 6 Dec 2026, 02:27-02:44 UTC, `make bench-sketch SKETCH_BENCH_ARGS='--procs 3
--reps 20'` (leirc cafb35c, --fp-contract=on): a 2-CPU AMD EPYC KVM guest, AVX2,
PyTorch 1.13 (Debian), one thread each, taskset -c 0; load 16.0 before,
14.5 after (about 7 engineers building and testing on 2 CPUs: a median
call is often preempted, and one workload's PyTorch time moved from 2.1 ms,
best call, to 21.8 ms, median, between two runs; the ratios below are of
times taken minutes apart, not a quiet machine's):

    family  workload                          torch ms  written ms  tuned ms  torch/tuned  speed-up
    matmul  Gemm_Add_ReLU                       21.8      566.4       26.8       0.81       21.2
    matmul  Gemm_Gemm                           33.0      919.6       58.5       0.56       15.7
    matmul  Matmul_Scaling_ResidualAdd           0.087      0.408      0.076     1.15        5.4
    matmul  Batched_matrix_multiplication      279.0      524.6      315.7       0.88        1.7
    matmul  Matmul_with_transposed_A            85.5      259.2      103.1       0.83        2.5
    matmul  Tall_skinny_matrix_multiplication    1.00       0.98       0.63      1.59        1.6
    conv    conv_pointwise_2D (conv rule)     3226.7      196.1       91.7      35.2         2.1
    other   softmax (no rule: beam)              0.279      0.914      0.625     0.45        1.5
    other   Sum_reduction_over_a_dimension       0.131      0.127      0.093     1.41        1.4
    geomean torch / tuned: matmul 0.92 (6), conv 35.2 (1), other 0.79 (2)

With --tune="--tune --time-limit=60 --budget=100000" (auto: the sketches,
then beam; 02:45-02:52, load 13.7-15.5, --only=Gemm_Add_ReLU,
Matmul_with_transposed_A,softmax): Gemm_Add_ReLU 21.1 ms torch, 495.7
written, 1.99 tuned (the sketch's packed 4x16 tile in groups of 4 panels,
then a loop_binding of the packing copy; its own search measured the
same program at 2.1 ms and, confirming, 30 ms: the load's spread);
Matmul_with_transposed_A 25.4 / 91.9 / 39.3 (0.65); softmax 0.281 /
0.906 / 0.649 (0.43).

Against ``make bench-vs-torch`` (matmul family 19.0 in its 28-workload
sample): different workloads (the corpus's full sizes here; there the corpus
workloads with data and the zoo, mostly a few microseconds in leirc, where
PyTorch's Python dispatch dominates its time), different tuning flags, and it
then timed PyTorch by its best call rather than the median.  Both scripts run
side by side with the same flags in bench/vs_torch.py's docstring: the one
workload in both, Matmul_Scaling_ResidualAdd, 0.90 here and 1.09 there.

An earlier run (02:08-02:27, load 12-17, an older leirc without the conv
rule, PyTorch's best call rather than its median) gave matmul 0.53
(Gemm_Add_ReLU 0.03: 2.1 ms against 64.3 ms), conv 11.1, other 0.69.

The rfactor rule (reduction_rfactor, leirc's own strategy), 6 Dec 2026
06:08-06:11 UTC, `--only softmax,Sum_reduction_over_a_dimension,
TripletMarginLoss --procs 3 --reps 20`, the same machine, load 9.7-10.5,
the branch's leirc and then main's (858eb11, no rfactor) one after the
other (ms; torch / tuned):

    workload                        torch  written  tuned (rfactor)  tuned (main)
    softmax (16 rows of 16384)      0.278   0.825   0.626  0.44      0.614  0.49
    Sum_reduction_over_a_dimension  0.116   0.108   0.185  (no rule: beam, 8 evaluations)
    TripletMarginLoss (128 x 1024)  0.193   0.268   0.060  3.19      0.277  0.91

TripletMarginLoss's two 1024-long f32 sums of squares each in lanes (the
best of 8 measured instances: 32 and 8 lanes) run 4.4x faster than
written; softmax's exp keeps its row sum slow, lanes or not;
Sum_reduction_over_a_dimension sums over a loop that is not innermost (no
match).
"""

import argparse
import math
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

# the CPU every timed or tuning process is pinned to (--cpu)
CPU: List[str] = ["0"]

# (family, level/workload, PyTorch eager spelling over the corpus's tensor names)
WORKLOADS: List[Tuple[str, str, str]] = [
    ("matmul", "level2/Gemm_Add_ReLU", "torch.relu(nnf.linear(A, H) + G)"),
    ("matmul", "level2/Gemm_Gemm", "nnf.linear(A, G, H) + nnf.linear(C, G, H)"),
    ("matmul", "level2/Matmul_Scaling_ResidualAdd", "nnf.linear(A, I, J) * H + C"),
    ("matmul", "level1/Batched_matrix_multiplication", "torch.bmm(A, C)"),
    ("matmul", "level1/Matmul_with_transposed_A", "A.t() @ C"),
    ("matmul", "level1/Tall_skinny_matrix_multiplication", "A @ C"),
    ("conv", "level1/conv_pointwise_2D", "nnf.conv2d(A, D)"),
    ("other", "level1/softmax", "torch.softmax(A, dim=1)"),
    ("other", "level1/Sum_reduction_over_a_dimension", "torch.sum(A, dim=1, keepdim=True)"),
    ("other", "level1/TripletMarginLoss", "nnf.triplet_margin_loss(A, C, D)"),
]

CHILD = """
import json, sys, time, torch
import torch.nn.functional as nnf
torch.set_num_threads(1)
decls = json.load(open(sys.argv[1]))
reps = int(sys.argv[2])
g = torch.Generator().manual_seed(0)
env = {"torch": torch, "nnf": nnf}
for name, shape in zip(decls["input_known_names"], decls["known_shapes"]):
    env[name] = torch.randn(*shape, generator=g)
ts = []
with torch.no_grad():
    f = eval("lambda: " + sys.argv[3], env)
    f()
    for _ in range(reps):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
ts.sort()
print(ts[len(ts) // 2])
"""


def leirc_time(leirc: List[str], prog: pathlib.Path, decls: Optional[pathlib.Path],
               procs: int) -> Optional[float]:
    """Best over PROCS runs of leirc's measured median host run time."""
    best = None
    cmd = ["taskset", "-c", CPU[0]] + leirc + ["--print-cost", "--cost=measure", "--target=host"]
    if decls:
        cmd += ["--decls", str(decls)]
    for _ in range(procs):
        out = subprocess.run(cmd + [str(prog)], capture_output=True, text=True,
                             check=False).stdout
        m = re.search(r"measured_seconds: (\S+)", out)
        if m:
            t = float(m.group(1))
            best = t if best is None or t < best else best
    return best


def torch_time(decls: pathlib.Path, expr: str, procs: int, reps: int) -> Optional[float]:
    """Best over PROCS fresh processes of PyTorch's median call time."""
    best = None
    for _ in range(procs):
        out = subprocess.run(
            ["taskset", "-c", CPU[0], sys.executable, "-c", CHILD, str(decls), str(reps), expr],
            capture_output=True, text=True, check=False).stdout.strip()
        try:
            t = float(out)
        except ValueError:
            continue
        best = t if best is None or t < best else best
    return best


def tune(leirc: List[str], prog: pathlib.Path, decls: pathlib.Path, args: List[str],
         out: pathlib.Path) -> Tuple[Optional[pathlib.Path], str]:
    """The tuned program (None if leirc failed) and the trace's summary line."""
    trace = out.with_suffix(".jsonl")
    res = subprocess.run(["taskset", "-c", CPU[0]] + leirc + args
                         + ["--decls", str(decls), f"--trace={trace}", "--emit=leir",
                            "-o", str(out), str(prog)],
                         capture_output=True, text=True, check=False)
    summary = ""
    if trace.exists():
        lines = [x for x in trace.read_text().splitlines() if '"summary":true' in x]
        summary = lines[-1] if lines else ""
    if res.returncode != 0 or not out.exists():
        sys.stderr.write(f"sketch_bench: {prog.name}: leirc failed: {res.stderr}")
        return None, summary
    return out, summary


def fmt(t: Optional[float]) -> str:
    """Seconds as a table cell (ms)."""
    return "-" if t is None else f"{t * 1e3:.3f}"


def ratio(a: Optional[float], b: Optional[float]) -> str:
    """a / b as a table cell."""
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


RANK_SETTINGS: List[Tuple[str, str]] = [
    ("sketch/analytic", "--tune=sketch --cost=model"),
    ("sketch/learned", "--tune=sketch --cost=learned"),
    ("auto/analytic", "--tune"),
    ("auto/learned+online", "--tune --rank-cost=learned"),
]


EVO_SETTINGS: List[Tuple[str, str]] = [
    ("sketch/sample", "--tune=sketch --sketch-search=sample"),
    ("sketch/evolve", "--tune=sketch --sketch-search=evolve"),
    ("auto/sample", "--tune --sketch-search=sample"),
    ("auto/evolve", "--tune --sketch-search=evolve"),
    ("sketch/evolve+learned", "--tune=sketch --sketch-search=evolve --rank-cost=learned"),
    ("auto/evolve+learned", "--tune --sketch-search=evolve --rank-cost=learned"),
]

# (stage, base setting, challenger) pairs counted by each comparison
RANK_PAIRS = [("sketch", "sketch/analytic", "sketch/learned"),
              ("auto", "auto/analytic", "auto/learned+online")]
EVO_PAIRS = [("sketch", "sketch/sample", "sketch/evolve"),
             ("auto", "auto/sample", "auto/evolve")]


def rank_compare(args: argparse.Namespace, leirc: List[str], progs: pathlib.Path,
                 outdir: pathlib.Path, only: set) -> int:
    """--rank-compare (analytic against learned ranking) or --evo-compare
    (the sketch instances sampled and measured one at a time against bred in
    generations, ranked, the best few measured): the programs picked."""
    table, pairs, what = ((EVO_SETTINGS, EVO_PAIRS, "evolve") if args.evo_compare
                          else (RANK_SETTINGS, RANK_PAIRS, "learned"))
    chosen = set(filter(None, args.rank_settings.split(",")))
    settings = [(n, a) for n, a in table if not chosen or n in chosen]
    names = [n for n, _ in settings]
    print(f"{'evolve' if args.evo_compare else 'rank'} comparison, --time-limit={args.rank_time}, "
          f"one thread (taskset -c {CPU[0]}), best of {args.procs} processes")
    print()
    print("| workload | written ms | " + " | ".join(f"{n} ms" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    speed: Dict[str, List[float]] = {n: [] for n in names}
    wins = {stage: [0, 0, 0] for stage, _, _ in pairs}  # challenger better, worse, within 5%
    for _family, name, _expr in WORKLOADS:
        base = name.split("/")[1]
        if only and base not in only:
            continue
        prog = progs / f"{name}.leir"
        decls = prog.with_suffix(".decls.json")
        picked: List[Optional[pathlib.Path]] = []
        for n, targs in settings:
            out = outdir / f"{base}.{n.replace('/', '-').replace('+', '-')}.leir"
            got, summary = tune(leirc, prog, decls, shlex.split(targs)
                                + [f"--time-limit={args.rank_time}"], out)
            picked.append(got)
            m = re.search(r'"search":"([^"]*)".*"evaluations":(\d+)', summary)
            if m:
                sys.stderr.write(f"sketch_bench: {base} {n}: search {m.group(1)}, "
                                 f"{m.group(2)} evaluations\n")
        # timed interleaved: round r times every program once more
        best: List[Optional[float]] = [None] * (len(picked) + 1)
        for _ in range(args.procs):
            for i, p in enumerate([prog] + picked):
                if p is None:
                    continue
                t = leirc_time(leirc, p, decls if p == prog else None, 1)
                if t is not None and (best[i] is None or t < best[i]):
                    best[i] = t
        tw = best[0]
        print(f"| {base} | {fmt(tw)} | " + " | ".join(fmt(t) for t in best[1:]) + " |", flush=True)
        for n, t in zip(names, best[1:]):
            if tw and t:
                speed[n].append(tw / t)
        got = dict(zip(names, best[1:]))
        for stage, base_n, chal_n in pairs:
            a = got.get(base_n)
            lt = got.get(chal_n)
            if a and lt:
                wins[stage][0 if lt < a / 1.05 else 1 if lt > a * 1.05 else 2] += 1
    print()
    for n in names:
        rs = speed[n]
        if rs:
            g = math.exp(sum(math.log(r) for r in rs) / len(rs))
            print(f"geomean speed-up over as written, {n}: {g:.2f} ({len(rs)} workloads)")
    for stage, (b, w, e) in wins.items():
        if b + w + e:
            print(f"{stage}: {what}'s pick faster on {b}, slower on {w}, within 5% on {e}")
    return 0


def main() -> int:
    """Measures every workload and prints the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("--tune", default="--tune=sketch --budget=8 --time-limit=120",
                    help="the leirc arguments that tune (default: %(default)s)")
    ap.add_argument("--leirc-args", default="",
                    help="leirc arguments of every run, timed and tuned (e.g. --fp-contract=on)")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--only", default="", help="workload names, comma separated")
    ap.add_argument("--outdir", default="")
    ap.add_argument("--rank-compare", action="store_true",
                    help="analytic against learned ranking (see the module's text); no PyTorch")
    ap.add_argument("--evo-compare", action="store_true",
                    help="the sketch instances sampled one at a time against bred in generations "
                    "(--sketch-search=sample / evolve; see the module's text); no PyTorch")
    ap.add_argument("--rank-settings", default="",
                    help="--rank-compare, --evo-compare: only these settings (comma separated names, "
                    "default all)")
    ap.add_argument("--rank-time", type=float, default=20.0,
                    help="--rank-compare, --evo-compare: the --time-limit of every tuning "
                    "(default %(default)s)")
    ap.add_argument("--cpu", default="0", help="the CPU every run is pinned to (default 0)")
    args = ap.parse_args()
    CPU[0] = args.cpu
    progs = pathlib.Path(args.corpus) / "programs"
    if not progs.is_dir():
        print(f"sketch_bench: no corpus at {args.corpus}")
        return 77
    only = set(filter(None, args.only.split(",")))
    outdir = pathlib.Path(args.outdir or tempfile.mkdtemp(prefix="sketch_bench."))
    outdir.mkdir(parents=True, exist_ok=True)
    leirc = [args.leirc] + shlex.split(args.leirc_args)
    if args.rank_compare or args.evo_compare:
        print(f"leirc: {' '.join(leirc)}; programs under {outdir}")
        return rank_compare(args, leirc, progs, outdir, only)
    print(f"leirc: {' '.join(leirc)}; tune: {args.tune}; programs under {outdir}")
    print()
    print("| family | workload | torch ms | leirc as written ms | tuned ms | torch / written "
          "| torch / tuned | tuned speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    per: Dict[str, List[float]] = {}
    for family, name, expr in WORKLOADS:
        base = name.split("/")[1]
        if only and base not in only:
            continue
        prog = progs / f"{name}.leir"
        decls = prog.with_suffix(".decls.json")
        tt = torch_time(decls, expr, args.procs, args.reps)
        tw = leirc_time(leirc, prog, decls, args.procs)
        tuned, summary = tune(leirc, prog, decls, shlex.split(args.tune),
                              outdir / f"{base}.leir")
        tn = leirc_time(leirc, tuned, None, args.procs) if tuned else None
        print(f"| {family} | {base} | {fmt(tt)} | {fmt(tw)} | {fmt(tn)} | {ratio(tt, tw)} "
              f"| {ratio(tt, tn)} | {ratio(tw, tn)} |", flush=True)
        m = re.search(r'"search":"([^"]*)".*"evaluations":(\d+)', summary)
        if m:
            sys.stderr.write(f"sketch_bench: {base}: search {m.group(1)}, "
                             f"{m.group(2)} evaluations\n")
        if tt and tn:
            per.setdefault(family, []).append(tt / tn)
    print()
    for family, rs in per.items():
        g = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"geomean torch / tuned, {family}: {g:.2f} ({len(rs)} workloads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
