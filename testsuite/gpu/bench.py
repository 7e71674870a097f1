#!/usr/bin/env python3
"""bench.py LEIRRT_RUN BENCH_DIR -- time one leirc PTX benchmark on the GPU
and the same computation in PyTorch (cuBLAS / PyTorch's own kernels).

BENCH_DIR holds prog.ptx and kind: "matmul A C D" (D = A @ C) or
"softmax A C" (C = softmax(A) over the last dimension).  Inputs are seeded
uniform random numbers in [-1, 1).  Both sides are timed on the GPU with
events after a warm-up, and the median is reported; leirc's time comes from
leirrt-run (launches only, no copies).  Prints one line:

  bench NAME: leirc M ms (min ..., G GFLOP/s, N runs) | torch ... | ratio ...

Needs numpy; without PyTorch (or without CUDA in it) only leirc's time is
given.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

NP_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64,
             "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
             "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
             "u64": np.uint64, "bool": np.bool_}
TARGET_S = 12.0   # time to spend on leirc's repeats


def plan(run, ptx):
    """{name: (role, dtype, shape)} from `leirrt-run --plan`."""
    out = subprocess.run([run, "--plan", ptx], check=True, text=True,
                         capture_output=True).stdout
    tensors = {}
    for line in out.splitlines():
        m = re.match(r"tensor (\w+) (\w+) (\w+) \(([\d,]*)\)", line)
        if m:
            shape = tuple(int(x) for x in m.group(4).split(",") if x)
            tensors[m.group(1)] = (m.group(2), m.group(3), shape)
    return tensors


def make_inputs(tensors, folder):
    rng = np.random.default_rng(1234)
    values = {}
    for name, (role, dtype, shape) in tensors.items():
        if role not in ("in", "param"):
            continue
        if dtype not in NP_DTYPES:
            raise SystemExit("bench: dtype %s of %s not supported" % (dtype, name))
        v = rng.uniform(-1, 1, size=shape).astype(NP_DTYPES[dtype])
        np.save(os.path.join(folder, name + ".npy"), v)
        values[name] = v
    return values


def run_leirc(run, ptx, names, folder, repeat):
    args = [run, ptx, "--output-dir", os.path.join(folder, "out"),
            "--repeat", str(repeat)]
    for n in names:
        args += ["--input", "%s=%s" % (n, os.path.join(folder, n + ".npy"))]
    p = subprocess.run(args, text=True, capture_output=True)
    if p.returncode != 0:
        raise SystemExit("leirrt-run failed (exit %d): %s" % (p.returncode,
                                                              p.stderr.strip()))
    m = re.search(r"time_ms median=([\d.]+) min=([\d.]+) runs=(\d+)", p.stdout)
    return float(m.group(1)), float(m.group(2)), int(m.group(3))


def torch_time(kind, values, args):
    """(median ms, result as numpy, label) or a reason string."""
    try:
        import torch
    except ImportError:
        return "PyTorch not installed"
    if not torch.cuda.is_available():
        return "PyTorch has no CUDA device"
    torch.backends.cuda.matmul.allow_tf32 = False   # plain FP32, like leirc
    torch.backends.cudnn.allow_tf32 = False
    if kind == "matmul":
        a, c = (torch.from_numpy(values[n]).cuda() for n in args[:2])
        fn, label = (lambda: torch.matmul(a, c)), "torch.matmul (cuBLAS)"
    else:
        a = torch.from_numpy(values[args[0]]).cuda()
        fn, label = (lambda: torch.softmax(a, dim=-1)), "torch.softmax"
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(50):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        r = fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times), r.cpu().numpy(), label


def main():
    run, folder = sys.argv[1], sys.argv[2].rstrip("/")
    name = os.path.basename(folder)
    ptx = os.path.join(folder, "prog.ptx")
    kind, *args = open(os.path.join(folder, "kind")).read().split()
    tensors = plan(run, ptx)
    with tempfile.TemporaryDirectory() as tmp:
        values = make_inputs(tensors, tmp)
        first, _, _ = run_leirc(run, ptx, values, tmp, 1)
        repeat = max(3, min(50, int(TARGET_S * 1000 / max(first, 0.01))))
        med, low, n = run_leirc(run, ptx, values, tmp, repeat)
        out = np.load(os.path.join(tmp, "out", args[-1] + ".npy"))
    if kind == "matmul":
        m, k = tensors[args[0]][2]
        n_ = tensors[args[1]][2][1]
        work = 2.0 * m * n_ * k / 1e9
        rate = lambda ms: "%.1f GFLOP/s" % (work / (ms / 1e3))
    else:
        moved = 2.0 * out.size * out.itemsize / 1e9
        rate = lambda ms: "%.1f GB/s" % (moved / (ms / 1e3))
    line = "bench %s: leirc %.4f ms (min %.4f, %s, %d runs)" % (
        name, med, low, rate(med), n)
    t = torch_time(kind, values, args)
    if isinstance(t, str):
        line += " | torch: %s" % t
    else:
        tms, ref, label = t
        err = np.abs(out.astype(np.float64) - ref.astype(np.float64))
        rel = err / np.maximum(np.abs(ref.astype(np.float64)), 1e-8)
        line += " | %s %.4f ms (%s) | leirc/torch time %.2fx | max abs err %.3g, max rel err %.3g" % (
            label, tms, rate(tms), med / tms, err.max(), rel.max())
    print(line)


if __name__ == "__main__":
    try:
        main()
    except (Exception, SystemExit) as e:  # one line in the summary, not a trace
        if isinstance(e, SystemExit) and e.code in (None, 0):
            raise
        print("bench %s: error: %s" % (os.path.basename(sys.argv[2].rstrip("/")), e))
        sys.exit(1)
