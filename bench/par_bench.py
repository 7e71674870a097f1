#!/usr/bin/env python3
"""When a parallel nest pays on this machine (issue 41): host run time of
corpus programs on one thread against two or more threads, side by side.

For each corpus program (LEIR_CORPUS/programs/level*/NAME.leir, with its
.decls.json; `leirc --run`'s random inputs, seed 0: bench/tvm_bench.c; zeros
before 4 Dec 2026), bench/tvm_bench runs it REPS times and keeps the
best, in three configurations, interleaved per program so that the load
of the machine hits all three alike, ROUNDS times over (the best of all):

  1t     --threads 1                          (`taskset -c 0`: one CPU)
  Nt-all --threads N --par-min-work 1         every parallel nest on N threads
  Nt     --threads N                          the default rule (the cost model: CG_PAR_MIN_S)

`iterations` is the program's innermost iterations (the largest nest's
work decides whether it runs in parallel: codegen/parallel.h).  A row's
Nt-all / 1t tells whether running that program's parallel nests on N
threads pays; Nt / 1t is what the default rule gives.  N defaults to the
CPUs of this process.  Prints the machine, its load before and after, and
a Markdown table.  --baseline OTHER_TVM_BENCH adds a column: that build
(another commit's bench/tvm_bench, say) on N threads with its defaults, in
the same interleaved run.

Usage: par_bench.py TVM_BENCH CORPUS [--threads N] [--reps R] [--only REGEX]
                    [--max-iter M] [--baseline OTHER_TVM_BENCH] [--rounds K]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testsuite", "interop"))
from tvm_check import iterations  # noqa: E402


def best(tb, args, spec, pin):
    cmd = (["taskset", "-c", pin] if pin else []) + [tb] + args + [spec]
    r = subprocess.run(cmd, capture_output=True, text=True)
    f = r.stdout.split()
    return float(f[2]) if len(f) >= 3 and f[2] != "error" else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvm_bench")
    ap.add_argument("corpus")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=None, help="regex: only programs whose name matches")
    ap.add_argument("--max-iter", type=float, default=1e8)
    ap.add_argument("--baseline", default=None, help="another tvm_bench: its N-thread time as a column")
    a = ap.parse_args()
    n = a.threads
    cpus = sorted(os.sched_getaffinity(0))
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    print("machine: %s, %d CPUs (affinity %s); threads N = %d; best of %d x %d; load before: %s"
          % (model, len(cpus), ",".join(map(str, cpus)), n, a.rounds, a.reps, " ".join(
              "%.2f" % x for x in os.getloadavg())))
    base = " base %dt us | base %dt / 1t |" % (n, n) if a.baseline else ""
    print("| program | iterations | 1t us | %dt-all us | %dt us | %dt-all / 1t | %dt / 1t |%s" % (n, n, n, n, base))
    print("|---|---|---|---|---|---|---|%s" % ("---|---|" if a.baseline else ""))
    rows = 0
    for p in sorted(glob.glob(os.path.join(a.corpus, "programs", "level*", "*.leir"))):
        name = os.path.basename(p)[:-5]
        if a.only and not re.search(a.only, name):
            continue
        with open(p) as f:
            it = iterations(f.read())
        if it > a.max_iter:
            continue
        decls = p[:-5] + ".decls.json"
        spec = "%s:%s:" % (p, decls if os.path.exists(decls) else "")
        reps = ["--reps", str(a.reps)]
        inf = float("inf")
        t1 = tall = tdef = tb = inf
        for _ in range(max(a.rounds, 1)):
            t1 = min(t1, best(a.tvm_bench, reps + ["--threads", "1"], spec, str(cpus[0])))
            tall = min(tall, best(a.tvm_bench, reps + ["--threads", str(n), "--par-min-work", "1"], spec, None))
            tdef = min(tdef, best(a.tvm_bench, reps + ["--threads", str(n)], spec, None))
            if a.baseline:
                tb = min(tb, best(a.baseline, reps + ["--threads", str(n)], spec, None))
        extra = " %.1f | %.2f |" % (tb * 1e6, tb / t1) if a.baseline else ""
        print("| %s | %.3g | %.1f | %.1f | %.1f | %.2f | %.2f |%s"
              % (name, it, t1 * 1e6, tall * 1e6, tdef * 1e6, tall / t1, tdef / t1, extra), flush=True)
        rows += 1
    print("load after: %s; %d programs" % (" ".join("%.2f" % x for x in os.getloadavg()), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
