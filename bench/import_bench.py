#!/usr/bin/env python3
"""Import time of every model of the zoo (issue 36): leir.from_torch, median of runs.

Usage: PYTHONPATH=python /usr/bin/python3 bench/import_bench.py [--repeat N] [ZOO_DIR]

Prints one line per model (milliseconds: tracing, shape propagation, lowering and
PyTorch's reference run, i.e. all of from_torch) and a summary; exits 1 when the slowest
model takes 2 s or more.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))

from leir.torch_import import from_torch  # noqa: E402
from leir.torch_import.kernelbench import load_model_file  # noqa: E402

LIMIT_S = 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zoo", nargs="?", default=str(HERE.parent / "testsuite/python/zoo"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for path in sorted(pathlib.Path(args.zoo).glob("*.py")):
        model, inputs = load_model_file(path)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            imp = from_torch(model, inputs, name=path.stem)
            times.append(time.perf_counter() - start)
        nests = imp.text.count("];")
        rows.append((statistics.median(times), path.stem, nests))
        print(f"{path.stem:58s} {statistics.median(times) * 1e3:8.1f} ms  {nests:3d} nests")
    times = sorted(t for t, _, _ in rows)
    slowest = max(rows)
    print(f"\n{len(rows)} models: median {statistics.median(times) * 1e3:.1f} ms, "
          f"total {sum(times):.2f} s, slowest {slowest[1]} {slowest[0] * 1e3:.1f} ms "
          f"(limit {LIMIT_S:.0f} s)")
    return 0 if slowest[0] < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
