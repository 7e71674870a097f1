#!/usr/bin/env python3
"""compare.py EXPECTED_DIR ACTUAL_DIR -- bit-exact comparison of .npy files.

Every EXPECTED_DIR/NAME.npy must have an ACTUAL_DIR/NAME.npy with the same
dtype, the same shape and the same bytes (NaNs included: leirc's back ends
agree bit for bit, SPEC 13.3).  Prints 'equal: N tensors' and exits 0, or
prints one line per difference (the first differing element, both values
and, for floats, the distance in ulps) and exits 1.  Needs numpy.
"""
import os
import sys

import numpy as np


def ulps(a, b):
    """Distance in units in the last place between two floats of one dtype."""
    if a.dtype.kind != "f":
        return None
    ibits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = int(a.view(ibits)[0])
    ib = int(b.view(ibits)[0])
    # Map the sign-magnitude float order onto the integers.
    top = 1 << (8 * a.dtype.itemsize - 1)
    ia = top - ia if ia < 0 else ia + top
    ib = top - ib if ib < 0 else ib + top
    return abs(ia - ib)


def compare(exp_path, act_path):
    """None when bit-identical, else a one-line description."""
    name = os.path.basename(exp_path)
    if not os.path.exists(act_path):
        return "%s: no such output" % name
    e = np.load(exp_path, allow_pickle=False)
    a = np.load(act_path, allow_pickle=False)
    if e.dtype != a.dtype or e.shape != a.shape:
        return "%s: expected %s%s, got %s%s" % (
            name, e.dtype, list(e.shape), a.dtype, list(a.shape))
    eb = np.ascontiguousarray(e).view(np.uint8).reshape(-1)
    ab = np.ascontiguousarray(a).view(np.uint8).reshape(-1)
    if np.array_equal(eb, ab):
        return None
    size = max(e.dtype.itemsize, 1)
    ne = eb.reshape(-1, size)
    na = ab.reshape(-1, size)
    diff = np.nonzero((ne != na).any(axis=1))[0]
    i = int(diff[0])
    ev = e.reshape(-1)[i]
    av = a.reshape(-1)[i]
    idx = np.unravel_index(i, e.shape) if e.ndim else ()
    u = ulps(e.reshape(-1)[i:i + 1], a.reshape(-1)[i:i + 1])
    return "%s: %d of %d elements differ; first at %s: expected %r, got %r%s" % (
        name, len(diff), e.size, list(int(k) for k in idx), ev.item(), av.item(),
        "" if u is None else " (%d ulp)" % u)


def main():
    if len(sys.argv) != 3:
        print("usage: compare.py EXPECTED_DIR ACTUAL_DIR", file=sys.stderr)
        return 2
    exp_dir, act_dir = sys.argv[1:]
    names = sorted(f for f in os.listdir(exp_dir) if f.endswith(".npy"))
    if not names:
        print("no expected outputs in %s" % exp_dir)
        return 1
    problems = [p for p in (compare(os.path.join(exp_dir, n),
                                    os.path.join(act_dir, n)) for n in names)
                if p]
    for p in problems:
        print(p)
    if problems:
        return 1
    print("equal: %d tensors" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
