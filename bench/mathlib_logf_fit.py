"""Coefficients of leirc's f32 log (ir/mathlib.c leir_logf).

leir_logf writes x = 2^k m, m in [sqrt(1/2), sqrt(2)), r = m - 1 (exact),
and ln x = k ln 2 + r + r^2 P(r).  P ~ (log1p(r) - r)/r^2 on
[f32(sqrt(1/2)) - 1, f32(sqrt(2)) - 1] with NC coefficients, fitted by
weighted least squares on Chebyshev nodes (numpy; the target by mpmath),
weight |r| + 0.02 (an error d in P moves the result by r^2 d, about |r| d
relative to it), and rounded to f32 one at a time from the constant term
up, the others refitted.  Prints the table, highest degree first (as
leir_mf_logf_poly), and on stderr the fit's largest error, plain and
times |r|.

    mathlib_logf_fit.py [NC]      (default 9; leirc uses 9)
"""

import sys
from typing import List

import mpmath as mp
import numpy as np

NODES = 600


def f32(v: float) -> float:
    """v rounded to the nearest f32."""
    return float(np.float32(v))


def hexf(v: float) -> str:
    """v as a C f32 hex literal, no trailing zeros (0x1.55555p-2f)."""
    m, e = float(v).hex().split("p")
    m = m.rstrip("0").rstrip(".")
    return m + "p" + e + "f"


def main() -> int:
    """Fits P and prints its coefficients."""
    nc = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    mp.mp.prec = 80
    lo = f32(np.sqrt(0.5)) - 1
    hi = f32(np.sqrt(2.0)) - 1
    t = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES)
    r = (lo + hi) / 2 + (hi - lo) / 2 * t
    y = np.array([float((mp.log1p(mp.mpf(v)) - v) / mp.mpf(v) ** 2) for v in r])
    w = np.abs(r) + 0.02
    basis = np.stack([r ** j for j in range(nc)], axis=1)
    c = np.linalg.lstsq(basis * w[:, None], y * w, rcond=None)[0]
    out: List[float] = []
    for j in range(nc):
        out.append(f32(c[j]))
        if j + 1 < nc:
            res = y - basis[:, :j + 1] @ np.array(out)
            rest = np.linalg.lstsq(basis[:, j + 1:] * w[:, None], res * w, rcond=None)[0]
            c = np.concatenate([out, rest])
    err = basis @ np.array(out) - y
    print("fit error: max 2^%.2f, times |r| 2^%.2f" %
          (np.log2(np.max(np.abs(err))), np.log2(np.max(np.abs(err * r)))), file=sys.stderr)
    print(", ".join(hexf(v) for v in reversed(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
