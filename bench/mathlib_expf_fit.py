"""Coefficients and tables of leirc's f32 exp (ir/mathlib.c leir_expf).

leir_expf writes x = (k + j/N) ln 2 + r, |r| <= ln2/(2N) (a little more:
the f32 1/ln2 and the reduction's rounding), and
e^x = 2^k 2^(j/N) e^r with e^r - 1 ~ p = r + r^2 Q(r).  Q ~ (e^r - 1 - r)/r^2
with NC coefficients, fitted by least squares on Chebyshev nodes of the
absolute error r^2 Q(r) - (e^r - 1 - r) (numpy; the target by mpmath), and
rounded to f32 one at a time from the constant term up, the others
refitted.  The table: Thi[j] = 2^(j/N) rounded to f32, Tlo[j] = 2^(j/N) -
Thi[j] rounded to f32.  Prints Q's coefficients highest degree first (as
leir_mf_expf_poly), then Thi and Tlo, and on stderr the fit's largest
error (absolute, in e^r - 1) and the tables' largest |Thi + Tlo - 2^(j/N)|.

    mathlib_expf_fit.py [N [NC]]      (default 16 2; leirc uses 16 2)
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
    if v == 0:
        return "0x0p+0f"
    m, e = float(v).hex().split("p")
    m = m.rstrip("0").rstrip(".")
    return m + "p" + e + "f"


def main() -> int:
    """Fits Q, builds the tables and prints them."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    nc = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    mp.mp.prec = 100
    hi = float(mp.log(2)) / (2 * n) * 1.02
    t = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES)
    r = hi * t
    y = np.array([float(mp.expm1(mp.mpf(v)) - v) for v in r])
    basis = np.stack([r ** (j + 2) for j in range(nc)], axis=1)
    c = np.linalg.lstsq(basis, y, rcond=None)[0]
    out: List[float] = []
    for j in range(nc):
        out.append(f32(c[j]))
        if j + 1 < nc:
            res = y - basis[:, :j + 1] @ np.array(out)
            rest = np.linalg.lstsq(basis[:, j + 1:], res, rcond=None)[0]
            c = np.concatenate([out, rest])
    err = basis @ np.array(out) - y
    print("fit error: max 2^%.2f on |r| <= %.6f" % (np.log2(np.max(np.abs(err))), hi), file=sys.stderr)
    print(", ".join(hexf(v) for v in reversed(out)))
    thi, tlo, terr = [], [], 0.0
    for j in range(n):
        e = mp.power(2, mp.mpf(j) / n)
        h = f32(float(e))
        lo = f32(float(e - h))
        thi.append(h)
        tlo.append(lo)
        terr = max(terr, abs(float(e - h - lo)))
    print("table error: max 2^%.2f" % (float(mp.log(terr, 2)) if terr else -999), file=sys.stderr)
    print(", ".join(hexf(v) for v in thi))
    print(", ".join(hexf(v) for v in tlo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
