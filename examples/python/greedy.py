"""Greedy optimisation of a LEIR program with the cost model, in ten lines.

Usage: python3 greedy.py [PROGRAM.leir [STEPS]]   (default: examples/matmul.leir, 8)
From the build tree: PYTHONPATH=python LEIR_LIBDIR=_build/.libs python3 examples/python/greedy.py
"""
import pathlib
import sys

import leir

path = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1] / "matmul.leir"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 8
# -- the ten lines --
p = leir.Program.load(path)
print(f"start: {p.cost('host'):.3e} s")
for _ in range(steps):
    children = [p.apply(c) for c in p.candidates()]
    best = min(children, key=lambda q: q.cost("host"), default=None)
    if best is None or best.cost("host") >= p.cost("host"):
        break
    p = best
    print(f"{p.step}: {p.cost('host'):.3e} s")
print(p.text, end="")
