#!/usr/bin/env python3
"""Host run time of leirc's code against TVM's CPU build of the same program,
side by side in one run (issue 9).

For each program: leirc --emit=tirx --target=host gives the TensorIR; TVM
(PyPI's apache-tvm 0.27) builds it for `llvm -mcpu=<this CPU>` with its
default pipeline (no schedule: loops as written, one thread) and times it
with time_evaluator (best of --reps); leirc's side is bench/tvm_bench.c
(the host JIT, best of --reps), once on one thread (as TVM's build runs)
and once on all CPUs (leirc's B/P loops run in parallel where §9.8 allows).
Both get the same inputs (seeded N(0,1), bools 0/1).

Programs: every corpus program with at most --max-iter loop iterations,
then SGEMM 1024^3 (examples/sgemm1024.leir) as written and after each
`-O` pipeline of --sgemm-O (default: loop_reorder(nest=0,loop1=a,loop2=c),
the i-k-j order).  The transformed LEIR is written by `leirc -O ...
--emit=leir --print-decls`; TVM builds that program's TIR, so the same
steps are expressed in both.

Usage: tvm_bench.py LEIRC TVM_BENCH TOP_SRCDIR WORKDIR [--max-iter N] [--reps R]
                    [--min-time S] [--max-reps N] [--rounds K]
                    [--sgemm-O PIPELINE]... [--no-corpus] [--only REGEX] [--no-sgemm]
--min-time S raises the reps of a program to fill about S seconds a side
(at most --max-reps): best-of-5 of a 13 us program swings by 20-30 % on a
shared 2-CPU machine.  --rounds K measures the three sides in turn K times.
Prints a Markdown table: program, iterations, TVM s, leirc 1-thread s,
leirc all-CPU s, TVM/leirc ratios; then the geometric means.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import tvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testsuite", "interop"))
from tvm_check import decls, header_args, iterations  # noqa: E402


def cpu_target():
    try:
        cpu = tvm.target.codegen.llvm_get_system_cpu()
    except Exception:  # noqa: BLE001 -- older/newer API: plain llvm
        cpu = None
    return tvm.target.Target({"kind": "llvm", "mcpu": cpu}) if cpu else tvm.target.Target("llvm")


# the header tags tvm_bench takes (header_args: KeyError on another)
HEADER_DTYPES = {"f32": "float32", "f64": "float64", "i64": "int64", "i32": "int32", "bool": "bool", "f16": "float16"}


def run_one(a, leir, decl, work, target):
    os.makedirs(work, exist_ok=True)
    args = decls(decl) if decl else header_args(leir, HEADER_DTYPES)
    rng = np.random.default_rng(0)
    ins = {}
    for n, shape, dt, isin in args:
        if isin:
            ins[n] = rng.integers(0, 2, size=shape).astype(dt) if dt in ("bool", "int64") else \
                rng.standard_normal(size=shape).astype(dt)
            np.save(os.path.join(work, "in_%s.npy" % n), ins[n])
    py = os.path.join(work, "main.py")
    cmd = [a.leirc, "-w", "--emit=tirx", "--target=host", leir, "-o", py] + (["--decls", decl] if decl else [])
    subprocess.run(cmd, check=True, capture_output=True)
    with open(py) as f:
        fn = tvm.script.from_source(f.read())
    lib = tvm.compile(tvm.IRModule({"main": fn}), target=target)
    dev = tvm.cpu()
    mk = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
    tens = [mk(np.require(ins[n] if isin else np.zeros(shape, dt), requirements="C"), dev)
            for n, shape, dt, isin in args]
    rt = lib.mod if hasattr(lib, "mod") else lib
    reps = a.reps
    if a.min_time > 0:  # enough runs that a short program's best is not one lucky or unlucky run
        probe = min(rt.time_evaluator("main", dev, number=1, repeat=3)(*tens).results)
        reps = max(reps, min(a.max_reps, int(math.ceil(a.min_time / max(probe, 1e-9)))))
    spec = "%s:%s:%s" % (leir, decl or "", work)
    tvm_s, res = float("inf"), {1: float("inf"), 0: float("inf")}
    for _ in range(a.rounds):  # TVM, leirc on 1 thread, leirc on all CPUs, in turn; best of each
        tvm_s = min(tvm_s, min(rt.time_evaluator("main", dev, number=1, repeat=reps)(*tens).results))
        for threads in (1, 0):
            r = subprocess.run([a.tvm_bench, "--reps", str(reps), "--threads", str(threads), spec],
                               capture_output=True, text=True)
            f = r.stdout.split()
            res[threads] = min(res[threads], float(f[2]) if len(f) >= 3 and f[2] != "error" else float("nan"))
    return tvm_s, res[1], res[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leirc")
    ap.add_argument("tvm_bench")
    ap.add_argument("top_srcdir")
    ap.add_argument("workdir")
    ap.add_argument("--max-iter", type=float, default=1e8)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.0,
                    help="seconds: run each side at least this long (more reps for short programs)")
    ap.add_argument("--max-reps", type=int, default=100000, help="at most this many reps with --min-time")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure TVM, leirc 1 thread, leirc all CPUs in turn this many times; best of each")
    ap.add_argument("--sgemm-O", action="append", default=None)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--only", default=None, help="regex: only corpus programs whose name matches")
    ap.add_argument("--no-sgemm", action="store_true")
    a = ap.parse_args()
    target = cpu_target()
    corpus = os.path.join(a.top_srcdir, "..", "shared", "corpus")
    progs = []
    if not a.no_corpus:
        for p in sorted(glob.glob(os.path.join(corpus, "programs", "level*", "*.leir"))):
            with open(p) as f:
                it = iterations(f.read())
            if it <= a.max_iter and (a.only is None or re.search(a.only, os.path.basename(p))):
                progs.append((os.path.relpath(p, os.path.join(corpus, "programs"))[:-5], p, p[:-5] + ".decls.json", it))
    sgemm = os.path.join(a.top_srcdir, "examples", "sgemm1024.leir")
    if not a.no_sgemm:
        progs.append(("SGEMM 1024^3 as written", sgemm, None, 1024 ** 3))
    for i, pipe in enumerate([] if a.no_sgemm else a.sgemm_O or ["loop_reorder(nest=0,loop1=a,loop2=c)"]):
        out = os.path.join(a.workdir, "sgemm1024.O%d.leir" % (i + 1))
        os.makedirs(a.workdir, exist_ok=True)
        subprocess.run([a.leirc, "-O", pipe, "--emit=leir", "--print-decls", "-o", out, sgemm], check=True)
        progs.append(("SGEMM 1024^3 -O " + pipe, out, None, 1024 ** 3))
    print("TVM %s, target llvm -mcpu=%s; leirc host JIT; best of %d%s, %d round%s; %d CPUs; load %.2f"
          % (tvm.__version__, target.attrs.get("mcpu", "?"), a.reps,
             " (more to fill %g s)" % a.min_time if a.min_time > 0 else "", a.rounds,
             "" if a.rounds == 1 else "s", os.cpu_count(), os.getloadavg()[0]))
    print("| program | iterations | TVM s | leirc 1 thread s | leirc all CPUs s | TVM / leirc 1t | TVM / leirc |")
    print("|---|---|---|---|---|---|---|")
    r1, rn = [], []
    for name, leir, decl, it in progs:
        work = os.path.join(a.workdir, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        try:
            t, l1, ln = run_one(a, leir, decl, work, target)
        except Exception as e:  # noqa: BLE001 -- report and go on
            print("| %s | %.3g | error: %s | | | | |" % (name, it, str(e).splitlines()[-1][:80]))
            continue
        if not (l1 > 0 and ln > 0 and t > 0):
            print("| %s | %.3g | %.3g | %.3g | %.3g | - | - |" % (name, it, t, l1, ln), flush=True)
            continue
        r1.append(t / l1)
        rn.append(t / ln)
        print("| %s | %.3g | %.3g | %.3g | %.3g | %.2f | %.2f |" % (name, it, t, l1, ln, t / l1, t / ln), flush=True)
    if r1:
        g1 = math.exp(sum(math.log(x) for x in r1) / len(r1))
        gn = math.exp(sum(math.log(x) for x in rn) / len(rn))
        print("geometric mean TVM/leirc over %d programs: %.2f (leirc on 1 thread), %.2f (leirc on all CPUs)"
              % (len(r1), g1, gn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
