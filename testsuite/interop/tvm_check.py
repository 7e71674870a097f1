#!/usr/bin/env python3
"""TVM as a third executor of the corpus (issue 9).

For every corpus program: leirc writes its TensorIR (`--emit=tirx
--target=host`), TVM parses it (tvm.script.from_source), builds it for the
`llvm` (CPU) target and runs it on the corpus data (or, for programs without
data, on seeded N(0,1) inputs that leirc's interpreter gets too, through
--input); the outputs are compared with those of `leirc --run`.

A program matches when every output is within the f32 class-T rule of
STRATEGIES.md 0.4 (|x-r| <= 1e-6 + 1e-4 |r|, NaN/Inf at the same places) or,
failing that, the reference's acceptance rule (SPEC 13.4).  TVM's exp/log/pow
come from its own lowering (libm, LLVM intrinsics), not from leirc's math
routines, so bit-equality is counted but not required.

Running every corpus program is out of reach of a small machine (the corpus
holds 879 G loop iterations; one 3-D convolution alone 284 G), so the
outputs are computed by the interpreter up to --interp-budget iterations
(the product of the loop extents, summed over the nests), by leirc's host
code (`--run --target=host`, bit-identical to the interpreter by leirc's
contract, SPEC 13.3) up to --budget (default 2e10: about half a minute a
program for each side here).  A program above --budget whose nests all start
with the same batch loop is run as batch 1 of N (reduce_batch: the same
statements and subscripts, 1/N of the work); the others above it are only
parsed and built (reported as such; --budget 0 runs everything).  With the
default every corpus program runs: 141 as written, the 5 largest (MatMul3D/4D
pairs and 3-D convolutions, 5e10 to 2.8e11 iterations) as batch 1 of 16.

Usage: tvm_check.py LEIRC CORPUS WORKDIR [--only SUBSTR]... [--budget N]
                    [--interp-budget N] [--seed N]
Prints one line per program and a summary; exit status 0 when every program
parses and builds and every program that ran matches, 1 otherwise.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import time

import numpy as np

try:  # the helpers below serve cuda_emu_check.py too, which needs no TVM
    import tvm
except ImportError:
    tvm = None

DTYPES = {"torch.float32": "float32", "torch.float64": "float64", "torch.float16": "float16",
          "torch.int64": "int64", "torch.int32": "int32", "torch.bool": "bool"}


def iterations(text):
    """Loop iterations of a program: per top-level nest, the product of all its extents."""
    total = 0
    for nest in text.strip().split("];"):
        ext = [int(x) for x in re.findall(r"\^\{(\d+)\}_\{", nest)]
        if ext:
            total += math.prod(ext)
    return total


def reduce_batch(text, decl):
    """A batch-1 variant of a program too big to run here, or None.

    Applies when every top-level nest starts with the same batch loop
    `B^{N}_{X=0}` and the index X occurs only as the first subscript of
    tensors whose first dimension is N: then batch element 0 of every
    output is computed by the same statements with X = 0 alone, and the
    program with `B^{1}_{X=0}` and those first dimensions 1 exercises every
    statement, loop and subscript of the original.  Returns (text, decls
    dict, names of the reduced tensors, N)."""
    nests = [n for n in text.strip().split("];") if n.strip()]
    heads = {re.match(r"B\^\{(\d+)\}_\{(\w+)=0\}", n.strip()) is not None and
             re.match(r"B\^\{(\d+)\}_\{(\w+)=0\}", n.strip()).groups() for n in nests}
    if len(heads) != 1 or False in heads:
        return None
    n, x = heads.pop()
    n = int(n)
    # every use of X: a loop header or the first subscript of a tensor
    uses = re.findall(r"[^\w]%s[^\w]" % x, text)
    lead = re.findall(r"([A-Za-z]\w*)\^\{[^}]*\}_\{%s," % x, text)
    if len(uses) != len(nests) + len(lead):
        return None
    with open(decl) as f:
        d = json.load(f)
    names = set(lead)
    for name, shape in zip(d["known_names"], d["known_shapes"]):
        if name in names:
            if not shape or shape[0] != n:
                return None
            shape[0] = 1
    return text.replace("B^{%d}_{%s=0}" % (n, x), "B^{1}_{%s=0}" % x), d, names, n


def decls(path):
    with open(path) as f:
        d = json.load(f)
    names = d["known_names"]
    ins = set(d["input_known_names"])
    return [(n, tuple(s), DTYPES.get(t, t), n in ins)
            for n, s, t in zip(names, d["known_shapes"], d["known_dtype"])]


# the dtype of a `%` header's tag; bf16 travels as its 16 bits (interp/npy.h's convention)
HDR = {"f32": "float32", "f64": "float64", "i64": "int64", "i32": "int32", "bool": "bool", "f16": "float16",
       "bf16": "uint16", "u64": "uint64", "u32": "uint32", "i8": "int8", "u8": "uint8", "i16": "int16",
       "u16": "uint16"}


def header_args(path, dtypes=HDR):
    """(name, shape, dtype, is_input) from a `%` header, dtypes mapping its tags (KeyError on another)."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"%(in|param|out)\s+(\w+)\s*:\s*(\w+)\[([0-9, ]*)\]", line)
            if m:
                shape = tuple(int(x) for x in m.group(4).split(",") if x.strip())
                out.append((m.group(2), shape, dtypes[m.group(3)], m.group(1) != "out"))
    return out


def inputs_for(prog_dir, level, name, args, data_root, seed, scale=1.0):
    """NAME -> array for every input; 'corpus' or 'random' says which."""
    man = os.path.join(data_root, level, name, "manifest.json")
    if os.path.exists(man):
        with open(man) as f:
            m = json.load(f)
        got = {t["leir_name"]: np.load(os.path.join(os.path.dirname(man), t["file"]))
               for t in m["tensors"] if t["role"] != "output"}
        if all(n in got for n, _, _, isin in args if isin):
            return got, "corpus"
    rng = np.random.default_rng(seed)
    got = {}
    for n, shape, dt, isin in args:
        if not isin:
            continue
        if dt == "bool":
            got[n] = rng.integers(0, 2, size=shape).astype(bool)
        elif dt.startswith("int"):
            got[n] = rng.integers(0, 2, size=shape).astype(dt)
        else:
            got[n] = (rng.standard_normal(size=shape) * scale).astype(dt)
    return got, "random"


def closeness(x, r):
    """'bit', 'tol' (class T, f32), 'ref' (SPEC 13.4) or a description of the difference."""
    if x.shape != r.shape:
        return "shape %s vs %s" % (x.shape, r.shape)
    if x.dtype.kind != "f":
        return "bit" if np.array_equal(x, r) else "differ (integer)"
    if x.dtype == r.dtype and x.tobytes() == r.tobytes():
        return "bit"
    xf, rf = x.astype(np.float64), r.astype(np.float64)
    fin = np.isfinite(xf) & np.isfinite(rf)
    same_nonfinite = np.array_equal(np.isnan(xf), np.isnan(rf)) and np.array_equal(
        np.where(np.isinf(xf), xf, 0), np.where(np.isinf(rf), rf, 0))
    d = np.abs(xf - rf)[fin]
    rr = np.abs(rf)[fin]
    if same_nonfinite and np.all(d <= 1e-6 + 1e-4 * rr):
        return "tol"
    both = (np.isnan(xf) & np.isnan(rf)) | (np.isinf(xf) & (xf == rf))
    keep = ~both
    dd = np.abs(xf - rf)[keep]
    if dd.size == 0:
        return "ref"
    atol = np.nanmax(dd)
    rtol = np.nanmax(dd / (np.abs(rf[keep]) + 1e-8))
    mse = np.nanmean(dd ** 2)
    if rtol <= 5e-3 or atol <= 1e-7 or mse <= 1e-5 or atol < 1e-3:
        return "ref"
    return "differ: max abs %.3g, max rel %.3g, mse %.3g" % (atol, rtol, mse)


def run_leirc(leirc, leir, decl, inputs, work, host):
    cmd = [leirc, "--run", "-w", "--decls", decl, "--output-dir", work] + (["--target=host"] if host else [])
    for n in inputs:
        cmd += ["--input", "%s=%s" % (n, os.path.join(work, "in_%s.npy" % n))]
    cmd.append(leir)
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def make_tensor(a, dev):
    mk = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
    return mk(np.require(a, requirements="C"), dev)  # keeps 0-d arrays 0-d


def check_one(leirc, path, data_root, work, seed, budget, interp_budget, scale=1.0, reduced=None):
    level = os.path.basename(os.path.dirname(path))
    name = os.path.basename(path)[:-5]
    if reduced:  # a batch-1 variant (reduce_batch): the original's directory and level
        level = reduced[1]
    decl = path[:-5] + ".decls.json"
    os.makedirs(work, exist_ok=True)
    res = {"name": "%s/%s" % (level, name), "parsed": False, "built": False, "matched": False}
    py = os.path.join(work, "main.py")
    r = subprocess.run([leirc, "--emit=tirx", "--target=host", "-w", "--decls", decl, path, "-o", py],
                       capture_output=True, text=True)
    if r.returncode:
        res["why"] = "leirc --emit=tirx: " + r.stderr.strip()[:300]
        return res
    with open(py) as f:
        src = f.read()
    try:
        fn = tvm.script.from_source(src)
    except Exception as e:  # noqa: BLE001 -- any parser error is a failure to report
        res["why"] = "parse: " + " | ".join(str(e).strip().splitlines()[-5:])
        return res
    res["parsed"] = True
    try:
        lib = tvm.compile(tvm.IRModule({"main": fn}), target="llvm")
    except Exception as e:  # noqa: BLE001
        res["why"] = "build: " + str(e).strip()[-400:]
        return res
    res["built"] = True
    with open(path) as f:
        iters = iterations(f.read())
    if budget and iters > budget:
        red = None if reduced else reduce_batch(open(path).read(), decl)
        if red is None or iterations(red[0]) > budget:
            res["skipped"] = "%.3g iterations, over --budget" % iters
            return res
        text, d, names, n = red
        rpath = os.path.join(work, "batch1", name + ".leir")
        os.makedirs(os.path.dirname(rpath), exist_ok=True)
        with open(rpath, "w") as f:
            f.write(text)
        with open(rpath[:-5] + ".decls.json", "w") as f:
            json.dump(d, f)
        r = check_one(leirc, rpath, data_root, os.path.join(work, "batch1"), seed, budget, interp_budget, scale,
                      reduced=(os.path.dirname(path), level, names, n))
        r["name"] = res["name"]
        r["batch"] = "batch %d of %d (%.3g of %.3g iterations)" % (1, n, iterations(text), iters)
        return r
    host = iters > interp_budget
    res["oracle"] = "host" if host else "interp"
    args = decls(decl)
    prog_dir = reduced[0] if reduced else os.path.dirname(path)
    ins, res["data"] = inputs_for(prog_dir, level, name, args,
                                  os.path.join(os.path.dirname(os.path.dirname(prog_dir)), "data"),
                                  seed, scale)
    if reduced and res["data"] == "corpus":  # the corpus data of batch element 0
        ins = {n: (a[:1] if n in reduced[2] else a) for n, a in ins.items()}
    for n, a in ins.items():
        np.save(os.path.join(work, "in_%s.npy" % n), a)
    ok, err = run_leirc(leirc, path, decl, [n for n, _, _, isin in args if isin], work, host)
    if not ok:
        res["why"] = "leirc --run%s: %s" % (" --target=host" if host else "", err[:300])
        return res
    dev = tvm.cpu()
    tens = []
    for n, shape, dt, isin in args:
        a = ins[n].astype(dt) if isin else np.full(shape, np.nan if dt.startswith("float") else 0, dt)
        tens.append(make_tensor(a, dev))
    lib["main"](*tens)
    worst = "bit"
    rank = {"bit": 0, "tol": 1, "ref": 2}
    for (n, _, _, isin), t in zip(args, tens):
        if isin:
            continue
        want = np.load(os.path.join(work, "%s.npy" % n))
        c = closeness(t.numpy(), want)
        if rank.get(c, 3) > rank.get(worst, 3):
            worst = c if c in rank else "%s: %s" % (n, c)
    res["closeness"] = worst
    res["matched"] = worst in rank
    if not res["matched"]:
        res["why"] = worst
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("workdir")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=2e10)
    ap.add_argument("--interp-budget", type=float, default=3e8)
    ap.add_argument("--retry-scale", type=float, default=0.1,
                    help="random inputs times this when the first comparison differs (0: no retry)")
    a = ap.parse_args()
    if tvm is None:
        print("UNSUPPORTED: tvm: no tvm module for %s" % sys.executable)
        return 77
    progs = sorted(glob.glob(os.path.join(a.corpus, "programs", "level*", "*.leir")))
    if a.only:
        progs = [p for p in progs if any(s in p for s in a.only)]
    print("TVM %s, target llvm, %d programs" % (tvm.__version__, len(progs)), flush=True)
    tally = {"parsed": 0, "built": 0, "matched": 0, "bit": 0, "tol": 0, "ref": 0, "corpus": 0, "random": 0,
             "skipped": 0, "interp": 0, "host": 0}
    failed = []
    for p in progs:
        t0 = time.time()
        work = os.path.join(a.workdir, os.path.basename(os.path.dirname(p)), os.path.basename(p)[:-5])
        try:
            r = check_one(a.leirc, p, a.corpus + "/data", work, a.seed, a.budget, a.interp_budget)
            if not r["matched"] and r.get("closeness") and r.get("data") == "random" and a.retry_scale:
                # NaN semantics differ: TVM's max/min is select(a > b, a, b),
                # leirc's ignores a NaN operand (SPEC 13.2); overflowing
                # random inputs make NaNs (e.g. tanh as exp(x)-exp(-x) over
                # exp(x)+exp(-x)).  The same program on smaller inputs:
                first = r["closeness"]
                r = check_one(a.leirc, p, a.corpus + "/data", work, a.seed, a.budget, a.interp_budget,
                              a.retry_scale)
                if r["matched"]:
                    r["closeness"] += "; inputs x%g (at x1: %s)" % (a.retry_scale, first)
        except Exception as e:  # noqa: BLE001 -- report and go on with the next program
            r = {"name": os.path.relpath(p, os.path.join(a.corpus, "programs"))[:-5], "parsed": False, "built": False, "matched": False, "why": "harness: %s" % e}
        for k in ("parsed", "built", "matched"):
            tally[k] += bool(r[k])
        if r.get("closeness", "").split(";")[0] in ("bit", "tol", "ref"):
            tally[r["closeness"].split(";")[0]] += 1
        if "data" in r:
            tally[r["data"]] += 1
        if "oracle" in r:
            tally[r["oracle"]] += 1
        if r.get("skipped"):
            tally["skipped"] += 1
            print("PASS: tvm %s (parsed and built; not run: %s)" % (r["name"], r["skipped"]), flush=True)
        elif r["matched"]:
            tally["rescaled"] = tally.get("rescaled", 0) + ("inputs x" in r["closeness"])
            tally["batch1"] = tally.get("batch1", 0) + ("batch" in r)
            print("PASS: tvm %s (%s, %s data, %s%s, %.1fs)" % (r["name"], r["closeness"], r["data"], r["oracle"],
                                                              ", " + r["batch"] if "batch" in r else "",
                                                              time.time() - t0), flush=True)
        else:
            failed.append(r["name"])
            print("FAIL: tvm %s: %s" % (r["name"], r.get("why", "?")), flush=True)
    n = len(progs)
    ran = n - tally["skipped"]
    print("tvm: parsed %d/%d, built %d/%d, run %d (%d over the budget), matching %d/%d (bit-identical %d, "
          "within the f32 rule %d, within the reference rule only %d; corpus data %d, random inputs %d; "
          "oracle: interpreter %d, host code %d; matched only on inputs x%g: %d; run as batch 1 of N: %d)"
          % (tally["parsed"], n, tally["built"], n, ran, tally["skipped"], tally["matched"], ran, tally["bit"],
             tally["tol"], tally["ref"], tally["corpus"], tally["random"], tally["interp"], tally["host"],
             a.retry_scale, tally.get("rescaled", 0), tally.get("batch1", 0)))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
