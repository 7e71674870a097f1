"""PyTorch's element throughput for the operations of bench/mathlib_bench.c.

One thread (torch.set_num_threads(1)), no autograd, out= tensors, N
elements drawn uniformly from the same ranges as mathlib_bench, best of REPS
calls; the whole measurement is repeated in PROCS fresh processes and the
best rate per operation kept (PyTorch's time for one call varies a lot
between processes).  Writes lines "ROUTINE DTYPE ELEM_PER_S" to OUT, which
`mathlib_bench --torch OUT` prints beside leirc's, glibc's and Sleef's.

    mathlib_torch.py OUT [--n N] [--reps R] [--procs P] [--avx2]
    mathlib_torch.py --erf-values OUT [--stride S]

The second form writes torch.erf's f32 results for the bit patterns 0, S,
2S, ... < 2^32 (raw little-endian f32, in that order) for
`bench/mathlib_exhaustive --stride S --values OUT erff_values`, which
states their error against the correctly rounded result with the harness
that measures leirc's routines (`make mathlib-torch-erf`).

--avx2 runs PyTorch's AVX2 kernels (ATEN_CPU_CAPABILITY=avx2 in the
processes that measure), as `mathlib_bench --avx2` runs leirc's code for an
AVX2 CPU (issue 59: the code paths of Zen 3 measured on an AVX-512 machine).

Exits 0 and writes nothing but a note when torch is missing.
"""

import argparse
import os
import subprocess
import sys
import time
from typing import Dict, List, Tuple

# name, lo, hi: as mathlib_bench.c's rname/rlo/rhi
ROUTINES: List[Tuple[str, float, float]] = [
    ("exp", -20.0, 20.0), ("log", 1e-3, 1e3), ("tanh", -5.0, 5.0),
    ("erf", -4.0, 4.0), ("pow", 0.1, 10.0), ("x**3", -10.0, 10.0),
    ("x**0.5", 0.0, 1e4), ("sqrt", 0.0, 1e4),
]


def measure(n: int, reps: int) -> Dict[Tuple[str, str], float]:
    """Elements per second of each operation in this process."""
    import torch  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(1)
    rates: Dict[Tuple[str, str], float] = {}
    with torch.no_grad():
        for dt_name, dt in (("f32", torch.float32), ("f64", torch.float64)):
            for name, lo, hi in ROUTINES:
                a = torch.rand(n, generator=gen, dtype=dt) * (hi - lo) + lo
                y = torch.rand(n, generator=gen, dtype=dt) * 6 - 3
                d = torch.empty(n, dtype=dt)
                ops = {
                    "exp": lambda: torch.exp(a, out=d),
                    "log": lambda: torch.log(a, out=d),
                    "tanh": lambda: torch.tanh(a, out=d),
                    "erf": lambda: torch.erf(a, out=d),
                    "pow": lambda: torch.pow(a, y, out=d),
                    "x**3": lambda: torch.pow(a, 3.0, out=d),
                    "x**0.5": lambda: torch.pow(a, 0.5, out=d),
                    "sqrt": lambda: torch.sqrt(a, out=d),
                }
                op = ops[name]
                op()
                best = 0.0
                for _ in range(reps):
                    t = time.perf_counter()
                    op()
                    t = time.perf_counter() - t
                    if t > 0 and (best == 0.0 or t < best):
                        best = t
                rates[(name, dt_name)] = n / best if best > 0 else 0.0
    return rates


def erf_values(out: str, stride: int) -> None:
    """Writes torch.erf of the f32 patterns 0, stride, 2 stride, ... to OUT."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(1)
    chunk = stride << 22  # patterns a chunk spans: 2^22 inputs
    with open(out, "wb") as f, torch.no_grad():
        for first in range(0, 1 << 32, chunk):
            bits = np.arange(first, min(first + chunk, 1 << 32), stride,
                             dtype=np.uint64).astype(np.uint32)
            x = torch.from_numpy(bits.view(np.float32))
            f.write(torch.erf(x).numpy().astype("<f4").tobytes())


def main() -> int:
    """Runs the processes and writes OUT."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--erf-values", metavar="OUT",
                    help="write torch.erf's results on the stride's grid")
    ap.add_argument("--stride", type=int, default=257)
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--avx2", action="store_true", help="PyTorch's AVX2 kernels (ATEN_CPU_CAPABILITY=avx2)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.erf_values:
        try:
            erf_values(args.erf_values, max(1, args.stride))
        except ImportError:
            print("mathlib_torch: no torch; no values written")
            return 77
        return 0
    if not args.out:
        ap.error("OUT is required")
    if args.child:
        for (name, dt), rate in measure(args.n, args.reps).items():
            print(f"{name} {dt} {rate:.6g}")
        return 0
    try:
        import torch  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        print("mathlib_torch: no torch; the torch column stays empty")
        open(args.out, "w", encoding="utf-8").close()
        return 0
    best: Dict[Tuple[str, str], float] = {}
    for _ in range(max(1, args.procs)):
        out = subprocess.run(
            [sys.executable, __file__, args.out, "--child", "--n", str(args.n),
             "--reps", str(args.reps)],
            check=True, capture_output=True, text=True,
            env=dict(os.environ, ATEN_CPU_CAPABILITY="avx2") if args.avx2 else None).stdout
        for line in out.splitlines():
            name, dt, rate = line.split()
            best[(name, dt)] = max(best.get((name, dt), 0.0), float(rate))
    with open(args.out, "w", encoding="utf-8") as f:
        for (name, dt), rate in best.items():
            f.write(f"{name} {dt} {rate:.6g}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
