#!/usr/bin/env python3
"""Joins two tables of bench/tvm_bench.py (issue 41): per program the TVM /
leirc ratios before and after (one thread, all CPUs) and after's all-CPU
time over its one-thread time; then for each table the geometric means over
the corpus programs (SGEMM rows left out) and over every row (as
tvm_bench.py prints them), the ten worst programs after (one thread) and the
programs whose all-CPU time is more than 10 % above their one-thread time.

Usage: tvm_compare.py BEFORE.md AFTER.md      (the saved output of tvm_bench.py)
"""
import math
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            c = [x.strip() for x in line.split("|")]
            if len(c) < 8 or not c[1] or c[1] == "program" or c[1].startswith("---"):
                continue
            try:
                rows[c[1]] = tuple(float(x) for x in c[3:8])  # TVM, 1t, all, ratio 1t, ratio all
            except ValueError:
                pass
    return rows


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    a, b = load(sys.argv[1]), load(sys.argv[2])
    both = [k for k in a if k in b]
    print("| program | TVM/leirc 1 thread before | after | TVM/leirc all CPUs before | after | after: all-CPU / 1-thread time |")
    print("|---|---|---|---|---|---|")
    for k in both:
        print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |" % (k, a[k][3], b[k][3], a[k][4], b[k][4], b[k][2] / b[k][1]))
    corpus = [k for k in both if not k.startswith("SGEMM")]
    for name, d in (("before", a), ("after", b)):
        print("%s: geometric mean TVM/leirc, %d corpus programs: %.2f (1 thread), %.2f (all CPUs); "
              "all %d rows: %.2f, %.2f" % (name, len(corpus), gmean([d[k][3] for k in corpus]),
                                           gmean([d[k][4] for k in corpus]), len(both),
                                           gmean([d[k][3] for k in both]), gmean([d[k][4] for k in both])))
        slow = sorted(((d[k][2] / d[k][1], k) for k in both if d[k][2] > 1.1 * d[k][1]), reverse=True)
        print("%s: all CPUs more than 10%% slower than 1 thread: %d%s" % (
            name, len(slow), (": " + ", ".join("%s %.2fx" % (k.split("/")[-1], r) for r, k in slow)) if slow else ""))
    worst = sorted((b[k][3], k) for k in corpus)[:10]
    print("after: worst 10 (1 thread): " + ", ".join("%s %.2f" % (k.split("/")[-1], r) for r, k in worst))
    below = [(r, k) for r, k in sorted((b[k][3], k) for k in corpus) if r < 0.9]
    print("after: below 0.9 (1 thread): %d" % len(below))
    return 0


if __name__ == "__main__":
    sys.exit(main())
