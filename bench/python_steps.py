#!/usr/bin/env python3
"""The cost of one optimisation step through Python (libleir in memory)
against the same through leirc processes, and StepEnv's steps per second.

One step is what an agent does per action: apply a candidate to a program
and list the candidates of the new one.
  Python:  q = p.apply(candidate); q.candidates()
  leirc:   leirc -w -O SPELLING --emit=leir --print-decls -o q.leir p.leir
           leirc -w --list-applicable q.leir
over corpus programs (``--programs`` of them, ``--steps`` candidates each,
spread over the candidate list).  Prints the median and quartiles per
step (target: a Python step under 2 ms), then the steps per second of
leir.env.StepEnv (cost model; with and without the per-step verification
in the interpreter) on the same programs, and the machine (CPU model,
cores, load average), since the figures depend on it.

Usage (from the build tree; `make bench-python` does this):
  PYTHONPATH=$TOP/python LEIR_LIBDIR=.libs python3 $TOP/bench/python_steps.py \\
      --leirc ./leirc --corpus $TOP/../shared/corpus
Exit status 77 when the corpus or libleir is missing.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time


def machine() -> str:
    model = platform.processor() or "?"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}; {os.cpu_count()} cores; load average {load}; Python {platform.python_version()}"


def quartiles(xs: list[float]) -> str:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"median {q[1] * 1e3:.3f} ms (quartiles {q[0] * 1e3:.3f} .. {q[2] * 1e3:.3f} ms, n={len(xs)})"


_LOOP = re.compile(r"[LBPVU]\^\{(\d+)\}_\{[a-z0-9_]+=0\}")


def work(text: str) -> int:
    """About how many statement executions running ``text`` takes."""
    total, stack, pending, i = 0, [1], 1, 0
    while i < len(text):
        m = _LOOP.match(text, i)
        if m:
            pending *= int(m.group(1))
            i = m.end()
            continue
        ch = text[i]
        if ch == "[" and (pending != 1 or text[i - 1:i] == "}"):
            stack.append(stack[-1] * pending)
            pending = 1
        elif ch == "]" and len(stack) > 1 and text[i + 1:i + 2] == ";":
            stack.pop()
        elif ch == ";":
            total += stack[-1]
        i += 1
    return total


def spread(items: list, k: int) -> list:
    if len(items) <= k:
        return items
    return [items[(i * (len(items) - 1)) // (k - 1)] for i in range(k)] if k > 1 else items[:1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--leirc", default=os.environ.get("LEIRC", "leirc"))
    ap.add_argument("--corpus", default=str(pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))
    ap.add_argument("--programs", type=int, default=24, help="corpus programs (spread over the sorted list)")
    ap.add_argument("--steps", type=int, default=8, help="candidates per program, through Python")
    ap.add_argument("--leirc-steps", type=int, default=2, help="candidates per program, through leirc")
    ap.add_argument("--env-steps", type=int, default=40, help="StepEnv steps per program")
    ap.add_argument("--verify-max-work", type=float, default=2e6,
                    help="StepEnv with verification only on programs of at most this many statement executions")
    args = ap.parse_args()

    corpus = pathlib.Path(args.corpus)
    files = sorted(corpus.glob("programs/level*/*.leir"))
    if not files:
        print(f"python_steps: no corpus at {corpus}")
        return 77
    try:
        import leir
        leir.library_version()
    except (ImportError, OSError) as e:
        print(f"python_steps: {e}")
        return 77
    files = spread(files, args.programs)
    print(f"machine: {machine()}")
    print(f"libleir {leir.library_version()} ({leir.library_path()}); {len(files)} corpus programs")

    # -- through Python
    py: list[float] = []
    py_cpu: list[float] = []  # CPU time of this thread: what the step costs on a loaded machine
    raw_cpu: list[float] = []  # the same step as bare C calls: the library's share
    from leir import _lib
    L = _lib.lib()
    jobs: list[tuple[leir.Program, str]] = []
    for f in files:
        decls = f.with_suffix(".decls.json")
        p = leir.Program.load(f, decls if decls.exists() else None)
        cands = p.candidates()
        for c in spread(cands, args.steps):
            t0, c0 = time.perf_counter(), time.thread_time()
            q = p.apply(c)
            q.candidates()
            py.append(time.perf_counter() - t0)
            py_cpu.append(time.thread_time() - c0)
            h, ph = p.context._handle, p._handle
            with p.context._call():
                c0 = time.thread_time()
                qh = L.leir_program_apply(h, ph, c.spelling.encode(), None)
                cs = L.leir_candidates_list(h, qh, None)
                L.leir_candidates_count(cs)
                raw_cpu.append(time.thread_time() - c0)
                L.leir_candidates_free(cs)
                L.leir_program_free(qh)
        for c in spread(cands, args.leirc_steps):
            jobs.append((p, c.spelling))
    def met(xs: list[float]) -> str:
        return "target < 2 ms met" if statistics.median(xs) < 2e-3 else "target < 2 ms NOT met"

    print(f"python step (apply + candidates): {quartiles(py)}; {met(py)}")
    print(f"  the same in CPU time:           {quartiles(py_cpu)}; {met(py_cpu)}")
    print(f"  libleir's share (bare C calls): {quartiles(raw_cpu)} CPU time")

    # -- through leirc processes
    cli: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        src, out = pathlib.Path(tmp, "p.leir"), pathlib.Path(tmp, "q.leir")
        for p, spelling in jobs:
            src.write_text(p.header_text)
            t0 = time.perf_counter()
            subprocess.run([args.leirc, "-w", "-O", spelling, "--emit=leir", "--print-decls", "-o", str(out),
                            str(src)], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([args.leirc, "-w", "--list-applicable", str(out)], check=True, stdout=subprocess.DEVNULL)
            cli.append(time.perf_counter() - t0)
    ratio = statistics.median(cli) / statistics.median(py)
    print(f"leirc step (two processes):       {quartiles(cli)}; {ratio:.0f}x the Python step")

    # -- StepEnv
    try:
        from leir.env import StepEnv
    except ImportError as e:
        print(f"StepEnv: skipped ({e})")
        return 0
    for verify in (False, True):
        n, elapsed, programs = 0, 0.0, 0
        for f in files:
            if verify and work(f.read_text()) > args.verify_max_work:
                continue
            programs += 1
            decls = f.with_suffix(".decls.json")
            p = leir.Program.load(f, decls if decls.exists() else None)
            env = StepEnv(p, max_steps=args.env_steps, verify=verify)
            env.reset(seed=0)
            env.action_space.seed(0)
            t0 = time.perf_counter()
            for _ in range(args.env_steps):
                mask = env.action_masks()
                legal = [i for i in range(len(mask)) if mask[i]]
                action = legal[int(env.np_random.integers(len(legal)))] if legal else 0
                *_, terminated, truncated, _ = env.step(action)
                n += 1
                if terminated or truncated:
                    break
            elapsed += time.perf_counter() - t0
        what = (f"cost model and verification in the interpreter, programs under {args.verify_max_work:.0e} "
                "statement executions" if verify else "cost model, no verification")
        print(f"StepEnv ({what}): {n / elapsed:.0f} steps/s ({n} steps on {programs} programs, "
              "random legal actions)")
    print(f"machine after: load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
