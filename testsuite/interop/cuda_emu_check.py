#!/usr/bin/env python3
"""Runs the CUDA C of `leirc --emit=cuda` on the CPU and compares it bit for
bit with leirc's interpreter (issue 9; no GPU needed).

The emitted .cu is compiled as C++20 by the host compiler against
testsuite/interop/cuda-emu/cuda_runtime.h, a stand-in that runs blocks one
after another and a block's threads as real threads with a barrier where the
kernel calls __syncthreads() (sequentially otherwise); launches
`k<<<grid, block>>>(args)` are rewritten as calls of leir_launch.  With
-ffp-contract=off the _rn intrinsics are the IEEE operations they are on the
GPU, so the result must equal the interpreter's exactly (SPEC 13.3: every
back end agrees bit for bit, tree reductions included).

Usage: cuda_emu_check.py LEIRC CORPUS WORKDIR [--only SUBSTR]... [--max-iter N]
       [--cxx C++] [--leir FILE.leir]...
Programs: the corpus programs with at most --max-iter loop iterations (data
from the corpus where it has some, else seeded N(0,1) inputs) and any
--leir files (random inputs from their `%` header).  Prints PASS/FAIL lines
and `cuda-emu: N/M bit-identical`; exit 0 when all are, 1 otherwise, 77
when there is no C++20 compiler.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tvm_check import decls, header_args, inputs_for, iterations  # noqa: E402

CTYPE = {"float32": "float", "float64": "double", "int64": "int64_t", "int32": "int32_t", "bool": "uint8_t",
         "float16": "uint16_t", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t"}
CTYPE.update({"uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"})


def to_host(cu):
    """The .cu text with launches rewritten for cuda-emu/cuda_runtime.h."""
    coop = {}
    for m in re.finditer(r"__global__ void (leir_k\d+)\(.*?\n}\n", cu, re.S):
        coop[m.group(1)] = "__syncthreads" in m.group(0)

    def launch(m):
        return "leir_launch(%s, %s, %s, [&] { %s(%s); });" % (
            m.group(2), m.group(3), "true" if coop.get(m.group(1)) else "false", m.group(1), m.group(4))
    return re.sub(r"(leir_k\d+)<<<(dim3\([^)]*\)), (dim3\([^)]*\))>>>\((.*)\);", launch, cu)


def check(a, name, leir, decl, args, ins, work):
    os.makedirs(work, exist_ok=True)
    for n, arr in ins.items():
        np.save(os.path.join(work, "in_%s.npy" % n), arr)
        np.ascontiguousarray(arr).tofile(os.path.join(work, "in_%s.bin" % n))
    base = [a.leirc, "-w"] + (["--decls", decl] if decl else [])
    cmd = base + ["--run", "--output-dir", work]
    for n in ins:
        cmd += ["--input", "%s=%s" % (n, os.path.join(work, "in_%s.npy" % n))]
    r = subprocess.run(cmd + [leir], capture_output=True, text=True)
    if r.returncode:
        return "leirc --run: " + r.stderr.strip()[:300]
    r = subprocess.run(base + ["--emit=cuda", leir], capture_output=True, text=True)
    if r.returncode:
        return "leirc --emit=cuda: " + r.stderr.strip()[:300]
    with open(os.path.join(work, "prog.cpp"), "w") as f:
        f.write(to_host(r.stdout))
    main = ['#include "prog.cpp"', "#include <cstdio>", "#include <vector>",
            "static std::vector<char> rd(const char *p, size_t n) {",
            "  std::vector<char> b(n ? n : 1, 0); FILE *f = fopen(p, \"rb\");",
            "  if (f) { if (fread(b.data(), 1, n, f) != n) b.assign(n ? n : 1, 0); fclose(f); } return b; }",
            "int main() {"]
    call = []
    for i, (n, shape, dt, isin) in enumerate(args):
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
        path = os.path.join(work, "in_%s.bin" % n) if isin else ""
        main.append('  std::vector<char> b%d = rd("%s", %d);' % (i, path, nbytes))
        call.append("(%s *)b%d.data()" % (CTYPE[dt], i))
    main.append("  if (leir_main(%s) != cudaSuccess) return 1;" % ", ".join(call))
    for i, (n, shape, dt, isin) in enumerate(args):
        if not isin:
            nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
            main.append('  { FILE *f = fopen("%s", "wb"); fwrite(b%d.data(), 1, %d, f); fclose(f); }'
                        % (os.path.join(work, "out_%s.bin" % n), i, nbytes))
    main += ["  return 0;", "}"]
    with open(os.path.join(work, "main.cpp"), "w") as f:
        f.write("\n".join(main) + "\n")
    exe = os.path.join(work, "emu")
    r = subprocess.run([a.cxx, "-std=c++20", "-O1", "-ffp-contract=off", "-pthread", "-w",
                        "-I", os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda-emu"),
                        "-I", work, os.path.join(work, "main.cpp"), "-o", exe], capture_output=True, text=True)
    if r.returncode:
        return "c++: " + r.stderr.strip()[:400]
    r = subprocess.run([exe], capture_output=True, text=True)
    if r.returncode:
        return "run: status %d %s" % (r.returncode, r.stderr.strip()[:200])
    for n, shape, dt, isin in args:
        if isin:
            continue
        want = np.load(os.path.join(work, "%s.npy" % n))
        got = np.fromfile(os.path.join(work, "out_%s.bin" % n), dtype=want.dtype).reshape(want.shape)
        if got.tobytes() != want.tobytes():
            bad = np.flatnonzero(got.view(np.uint8).reshape(-1) != want.view(np.uint8).reshape(-1))
            k = int(bad[0]) // want.dtype.itemsize if bad.size else 0
            return "output %s differs at flat %d: %r vs interpreter %r" % (n, k, got.reshape(-1)[k],
                                                                             want.reshape(-1)[k])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("workdir")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--max-iter", type=float, default=3e7)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--leir", action="append", default=[])
    a = ap.parse_args()
    if not shutil.which(a.cxx) or subprocess.run([a.cxx, "-std=c++20", "-x", "c++", "-fsyntax-only", "-"],
                                                 input="#include <barrier>\n", text=True,
                                                 capture_output=True).returncode:
        print("UNSUPPORTED: cuda-emu: no C++20 compiler with <barrier> (%s)" % a.cxx)
        return 77
    jobs = []
    for p in sorted(glob.glob(os.path.join(a.corpus, "programs", "level*", "*.leir"))):
        if a.only and not any(s in p for s in a.only):
            continue
        with open(p) as f:
            if iterations(f.read()) > a.max_iter:
                continue
        level, name = os.path.basename(os.path.dirname(p)), os.path.basename(p)[:-5]
        args = decls(p[:-5] + ".decls.json")
        ins, _ = inputs_for(None, level, name, args, os.path.join(a.corpus, "data"), 0)
        jobs.append(("%s/%s" % (level, name), p, p[:-5] + ".decls.json", args, ins))
    for p in a.leir:
        args = header_args(p)
        rng = np.random.default_rng(0)
        ins = {}
        for n, s, d, isin in args:
            if not isin:
                continue
            if d == "uint16":  # bf16: the top half of f32 normals
                ins[n] = (rng.standard_normal(size=s).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            elif d == "bool":
                ins[n] = rng.integers(0, 2, size=s).astype(d)
            elif d.startswith(("int", "uint")):
                ins[n] = rng.integers(0, 100, size=s).astype(d)
            else:
                ins[n] = rng.standard_normal(size=s).astype(d)
        jobs.append((os.path.basename(p), p, None, args, ins))
    ok = 0
    for name, leir, decl, args, ins in jobs:
        why = check(a, name, leir, decl, args, ins, os.path.join(a.workdir, re.sub(r"[^A-Za-z0-9_.-]", "_", name)))
        if why:
            print("FAIL: cuda-emu %s: %s" % (name, why), flush=True)
        else:
            ok += 1
            print("PASS: cuda-emu %s (bit-identical to the interpreter)" % name, flush=True)
    print("cuda-emu: %d/%d bit-identical to the interpreter" % (ok, len(jobs)))
    return 0 if ok == len(jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
