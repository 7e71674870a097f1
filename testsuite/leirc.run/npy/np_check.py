"""Cross-check of leirc's .npy output with NumPy (run by npy.exp).

Usage: np_check.py LEIRC NP_LEIR TMPDIR
Writes the inputs with NumPy, runs `leirc --run`, loads the outputs with
NumPy and checks them bit for bit against NumPy's own computation in the
same order and precision.  Prints `np-check: ok` or `np-check: FAIL ...`;
exits 77 when NumPy is missing."""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("np-check: no numpy")
    sys.exit(77)


def bf16_bits(x32):
    """float32 -> bfloat16 bits, round to nearest even (finite values)."""
    u = x32.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def main():
    leirc, prog, tmp = sys.argv[1:4]
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 4)) * 10).astype(np.float32)
    w = (rng.standard_normal(4) + 3).astype(np.float32)
    q = (rng.standard_normal((3, 4)) * 4).astype(np.float16)
    for name, arr in (("A", a), ("W", w), ("Q", q)):
        np.save(os.path.join(tmp, name + ".npy"), arr)
    args = [leirc, "--run", prog, "--output-dir", tmp]
    for name in "AWQ":
        args += ["--input", "%s=%s" % (name, os.path.join(tmp, name + ".npy"))]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        print("np-check: FAIL leirc exited %d: %s" % (r.returncode, r.stderr))
        return 1
    out = {n: np.load(os.path.join(tmp, n + ".npy")) for n in "CSHZN"}
    want_s = np.zeros(3, np.float32)
    for i in range(3):
        acc = np.float32(0)
        for j in range(4):
            acc = np.float32(acc + np.float32(a[i, j] / w[j]))
        want_s[i] = acc
    want = {
        "C": (a * w + a).astype(np.float32),
        "S": want_s,
        "H": (q * q - q).astype(np.float16),
        "Z": bf16_bits((a * w).astype(np.float32)),
        "N": np.trunc((a * np.float32(10)).astype(np.float64)).astype(np.int64),
    }
    for n, x in want.items():
        got = out[n]
        if got.dtype != x.dtype or got.shape != x.shape:
            print("np-check: FAIL %s is %s%s, expected %s%s" % (n, got.dtype, got.shape, x.dtype, x.shape))
            return 1
        if got.tobytes() != x.tobytes():
            print("np-check: FAIL %s differs:\n%r\n%r" % (n, got, x))
            return 1
    print("np-check: ok")
    return 0


sys.exit(main())
