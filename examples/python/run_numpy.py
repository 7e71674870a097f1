"""Run a LEIR program on NumPy data and compare with NumPy.

The matrix product of examples/matmul.leir (D = A @ C, f32) on random data,
in the reference interpreter and through the host JIT, against numpy.matmul.

Usage: python3 run_numpy.py
From the build tree: PYTHONPATH=python LEIR_LIBDIR=_build/.libs python3 examples/python/run_numpy.py
"""
import pathlib

import numpy as np

import leir

p = leir.Program.load(pathlib.Path(__file__).parents[1] / "matmul.leir")
for t in p.tensors:
    print(t)
rng = np.random.default_rng(0)
a = rng.standard_normal((64, 32), dtype=np.float32)
c = rng.standard_normal((32, 48), dtype=np.float32)
want = a @ c
for target in ("interp", "host"):
    d = p.run({"A": a, "C": c}, target=target)["D"]
    err = float(np.max(np.abs(d - want)))
    print(f"{target}: max |leir - numpy| = {err:.3g}")
    assert np.allclose(d, want, rtol=1e-5, atol=1e-5), target
# the interpreter and the JIT agree bit for bit
assert p.run({"A": a, "C": c})["D"].tobytes() == p.run({"A": a, "C": c}, target="host")["D"].tobytes()
print("ok")
