"""Coefficients of leirc's table-driven f32 erf (ir/mathlib.c leir_erff).

Eight intervals of c = min(|x|, 4), i = trunc(fmaf(c, SCALE, BIAS)) (0 to
7; the boundaries (k - BIAS)/SCALE, 0.526 apart from 0.479, where erf
passes 0.5): [0, 0.479) as erf(a) = a + a q(a) (q in powers of a, not a^2:
every interval's polynomial is in the same variable u, so the vector code
selects nothing but the addend), and the others as erf(c) = K + u P(u),
u = c - M, with M an f32 near the interval's centre whose erf lies within
2^-40 of the f32 K.  Each polynomial has NC coefficients, fitted by least
squares on Chebyshev nodes (numpy) over the interval widened by 1e-6 (the
fma that picks the interval rounds) and rounded to f32 one at a time, the
others refitted.  Prints the C header bench/mathlib_erf_table.h (8-entry
tables, one vpermps each) and, on stderr, each interval's fit error
(absolute; relative for interval 0).

    mathlib_erf_fit.py [NC]      (default 7)
"""

import math
import sys
from typing import List, Tuple

import numpy as np

SCALE = 1.9  # interval width 0.526
BIAS = 0.09  # interval 0 is [0, 0.479): erf >= 0.5 from interval 1 on
NI = 8
WIDEN = 1e-6
NODES = 400


def f32(v: float) -> float:
    """v rounded to the nearest f32."""
    return float(np.float32(v))


def fit_rounded(basis: np.ndarray, y: np.ndarray) -> List[float]:
    """Least-squares coefficients over the basis columns, rounded to f32 in turn."""
    c = np.linalg.lstsq(basis, y, rcond=None)[0]
    out: List[float] = []
    for j in range(basis.shape[1]):
        out.append(f32(c[j]))
        if j + 1 < basis.shape[1]:
            r = y - basis[:, :j + 1] @ np.array(out)
            rest = np.linalg.lstsq(basis[:, j + 1:], r, rcond=None)[0]
            c = np.concatenate([out, rest])
    return out


def centre(ctr: float) -> Tuple[float, float, float]:
    """(M, K, |erf(M) - K|): the f32 M near ctr whose erf is closest to an f32 K."""
    best = (math.inf, 0.0, 0.0)
    for s in range(-100000, 100000):
        m = f32(f32(ctr) + s * 2.0 ** -20)
        e = math.erf(m)
        k = f32(e)
        if abs(e - k) < best[0]:
            best = (abs(e - k), m, k)
    return best[1], best[2], best[0]


def main() -> int:
    """Fits the eight polynomials and prints the header."""
    nc = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    cheb = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES)
    bounds = [0.0] + [(k - f32(BIAS)) / f32(SCALE) for k in range(1, NI)] + [4.0]
    w0 = bounds[1] + WIDEN
    a = (cheb + 1) / 2 * w0
    y = np.array([math.erf(v) / v - 1 for v in a])
    b0 = np.vander(a, nc, increasing=True)
    c0 = fit_rounded(b0, y)
    e0 = float(np.max(np.abs(b0 @ np.array(c0) - y)))
    print(f"[0.00, {bounds[1]:.4f}]: erf(a)/a - 1 in a, fit error 2^{math.log2(e0):.1f}",
          file=sys.stderr)
    rows: List[Tuple[float, float, List[float]]] = [(0.0, 0.0, c0)]
    for k in range(1, NI):
        lo, hi = bounds[k] - WIDEN, bounds[k + 1] + WIDEN
        m, kk, d = centre((lo + hi) / 2)
        u = cheb * (hi - lo) / 2 + (lo + hi) / 2 - m
        yk = np.array([math.erf(m + v) for v in u]) - kk
        basis = np.vander(u, nc, increasing=True) * u[:, None]
        cs = fit_rounded(basis, yk)
        err = float(np.max(np.abs(basis @ np.array(cs) - yk)))
        print(f"[{bounds[k]:.4f}, {bounds[k + 1]:.4f}]: M {m!r} K {kk!r} |erf(M) - K| {d:.1e}, "
              f"fit error 2^{math.log2(err):.1f}", file=sys.stderr)
        rows.append((m, kk, cs))

    def hexf(v: float) -> str:
        mant, exp = float.hex(v).split("p")
        mant = mant.rstrip("0").rstrip(".")
        return f"{mant}p{exp}f"

    def line(vals: List[float]) -> str:
        return ", ".join(hexf(v) for v in vals)

    print("/* mathlib_erf_table.h -- written by bench/mathlib_erf_fit.py "
          f"{nc}; do not edit */")
    print(f"#define ET_NC {nc}")
    print(f"#define ET_NI {NI}")
    print(f"#define ET_SCALE {SCALE!r}f")
    print(f"#define ET_BIAS {BIAS!r}f")
    print(f"static const float et_m[8] = {{{line([r[0] for r in rows])}}};")
    print(f"static const float et_k[8] = {{{line([r[1] for r in rows])}}};")
    print("static const float et_c[ET_NC][8] = { /* highest degree first */")
    for j in range(nc - 1, -1, -1):
        print(f"    {{{line([r[2][j] for r in rows])}}},")
    print("};")
    return 0


if __name__ == "__main__":
    sys.exit(main())
