#!/usr/bin/env python3
"""leir.compile's cost per call and per compilation (issue 60).

Usage: PYTHONPATH=python LEIR_LIBDIR=_build/.libs LEIRC=_build/leirc \\
           /usr/bin/python3 bench/compile_bench.py [--zoo DIR] [--calls N] [--rounds R]

Per call, for a few zoo models (CPU time of the process, median over R
rounds of N calls each, the variants interleaved in every round):
  kernel     Compiled.run_pointers on prepared buffers: the compiled code and
             one ctypes call, no Python work per argument
  compiled   the leir.compile callable on torch tensors (argument checks,
             output tensors, the same call)
  overhead   compiled - kernel: the Python overhead of a call (target < 20 us)
  Compiled.run  the same program on NumPy arrays through leir.Compiled.run
  Program.run   Program.run(target="host"), which compiles at every call
  torch      the module itself (eager PyTorch, torch.no_grad)
Per compilation: leir.compile untuned, with a tuning that runs leirc --tune
(--tune=greedy --cost=model --budget=8) into an empty cache, and the same
again from the cache (what a second process pays).

Prints the machine, its load and the thread count first.  Exits 1 when an
overhead is 20 us or more (a loaded machine may make it so: rerun).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import leir  # noqa: E402
from leir.torch_import.kernelbench import load_model_file  # noqa: E402

TARGET_US = 20.0
MODELS = ("relu", "Gemm_Add_ReLU", "softmax", "conv2d")
TUNE = {"search": "greedy", "cost": "model", "budget": 8}


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def per_call_us(fn, calls: int) -> float:
    """CPU time of the process (all its threads) per call: the load of a
    shared machine inflates the wall clock, not this."""
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", default=str(HERE.parent / "testsuite/python/zoo"))
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--program-run-calls", type=int, default=5)
    args = parser.parse_args()
    zoo = pathlib.Path(args.zoo)

    load = os.getloadavg()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}; "
          f"Python {platform.python_version()}, torch {torch.__version__}, libleir {leir.library_version()}")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; torch threads "
          f"{torch.get_num_threads()}; host JIT threads: its default (the CPUs of the process)")
    print(f"per call, microseconds of CPU time (median of {args.rounds} rounds of {args.calls} calls; "
          f"Program.run: {args.program_run_calls} calls a round)")
    print(f"{'model':<16} {'kernel':>9} {'compiled':>9} {'overhead':>9} {'Compiled.run':>13} "
          f"{'Program.run':>12} {'torch':>9}")
    worst = 0.0
    torch.set_grad_enabled(False)
    for name in MODELS:
        model, inputs = load_model_file(zoo / f"{name}.py")
        f = leir.compile(model, inputs)
        c = f._compiled
        buffers = (ctypes.c_void_p * max(len(c.tensors), 1))()
        arrays = {}
        for i, t in enumerate(c.tensors):
            if t.role == "out":
                a = np.empty(t.shape, dtype=t.numpy_dtype)
            elif f.imported.roles.get(t.name) == "param":
                a = f.imported.arrays[t.name]
            else:
                arg = next(k for k, (_, n) in enumerate(f.imported.arguments) if n == t.name)
                a = inputs[arg].numpy()
                arrays[t.name] = a
            buffers[i] = a.ctypes.data
            arrays.setdefault(t.name, a)
        run_inputs = {t.name: arrays[t.name] for t in c.tensors if t.role != "out"}
        variants = {
            "kernel": (lambda: c.run_pointers(buffers), args.calls),
            "compiled": (lambda: f(*inputs), args.calls),
            "Compiled.run": (lambda: c.run(run_inputs), args.calls),
            "Program.run": (lambda: f.program.run(run_inputs, target="host"), args.program_run_calls),
            "torch": (lambda: model(*inputs), args.calls),
        }
        for fn, _ in variants.values():  # warm up
            fn()
        rounds: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(args.rounds):
            for key, (fn, n) in variants.items():
                rounds[key].append(per_call_us(fn, n))
        med = {k: statistics.median(v) for k, v in rounds.items()}
        overhead = med["compiled"] - med["kernel"]
        worst = max(worst, overhead)
        print(f"{name:<16} {med['kernel']:>9.2f} {med['compiled']:>9.2f} {overhead:>9.2f} "
              f"{med['Compiled.run']:>13.2f} {med['Program.run']:>12.1f} {med['torch']:>9.2f}")

    print("compilation, seconds (leir.compile; the tuned ones with "
          f"tune={TUNE})")
    print(f"{'model':<16} {'untuned':>9} {'tune: first':>12} {'tune: cached':>13}")
    for name in MODELS:
        model, inputs = load_model_file(zoo / f"{name}.py")
        with tempfile.TemporaryDirectory(prefix="leir-bench-cache-") as cache:
            t0 = time.perf_counter()
            leir.compile(model, inputs)
            t1 = time.perf_counter()
            first = leir.compile(model, inputs, tune=TUNE, cache_dir=cache)
            t2 = time.perf_counter()
            again = leir.compile(model, inputs, tune=TUNE, cache_dir=cache)
            t3 = time.perf_counter()
        assert first.how == "tuned" and again.how == "cached", (first.how, again.how)
        print(f"{name:<16} {t1 - t0:>9.3f} {t2 - t1:>12.3f} {t3 - t2:>13.3f}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    verdict = "met" if worst < TARGET_US else "NOT met"
    print(f"largest Python overhead per call: {worst:.2f} us (target < {TARGET_US:g} us: {verdict})")
    return 0 if worst < TARGET_US else 1


if __name__ == "__main__":
    sys.exit(main())
