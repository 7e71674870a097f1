"""leirc against PyTorch on one CPU thread: every workload, as imported and after ``leirc --tune``.

The workloads are every corpus workload with data (the Step-TP authors'
translation, ``programs/LEVEL/NAME.leir`` with its ``.decls.json``; PyTorch
runs the zoo model of the same name, whose input shapes must be the
corpus's) and every model of the zoo (``testsuite/python/zoo`` and
``zoo_steptp``, imported with ``leir.from_torch``).  For each, side by side
in this one run, all pinned to CPU 0 (``taskset -c 0``; ``--cpu``):

- leirc as imported: ``leirc --print-cost --cost=measure --target=host``
  (the host JIT's median of timed runs), the best of PROCS fresh processes;
- leirc tuned: ``leirc --tune`` with its default time limit (60 s;
  ``--time-limit`` shortens it), one thread as well; leirc verifies the tuned
  program against the imported one (class E bit-equal, class T within the
  tolerance) before it writes it; then timed as above;
- PyTorch eager: ``torch.no_grad()``, ``torch.set_num_threads(1)``, timed
  as leirc times its program: the median of REPS (5) calls after a warm-up,
  the best of PROCS fresh processes (results files before format 3, and so
  before 6 Dec 2026, hold the best call of up to 20 instead, which favours
  PyTorch on a loaded machine: ``eager_best`` keeps that figure);
- ``torch.compile`` the same way where this PyTorch has it and it works on
  the CPU ("n/a" otherwise: Debian's torch 1.13 has none).

A table per category (matmul family, conv, activations, norms,
reductions/losses, scans, other) gives the times and PyTorch / leirc
(> 1: leirc faster) with geomeans, then a summary; the machine, the threads
and the load (``uptime`` before and after) are printed.  The tuned programs
are kept under WORK/tuned (the build tree's bench-vs-torch/ under make),
keyed by the program, the decls and the tuning flags: ``--reuse`` takes them
instead of tuning again.

The results file (``--results``; default WORK/results.json, or
WORK/shard-I-of-N.json with ``--shard I/N``) is rewritten after every
workload, so a run stopped part way leaves a valid partial shard.  It holds
the commit, the machine, the CPU, the date and the load before and after (the
run's and each workload's), leirc's tuning flags and every figure.  The full
run takes hours of one core: it is done in shards, possibly over several
sessions, their files kept in bench/vs-torch-results/; ``--tables`` merges
any number of results files (or the folders holding them) into one set of
tables, says how many of all the workloads they cover and which shards are
missing or partial, and keeps the latest measurement of a workload measured
twice (and says so).

    vs_torch.py LEIRC [--corpus DIR] [--time-limit S] [--no-tune] [--reuse]
                [--only REGEX] [--category C,...] [--per-category K]
                [--shard I/N] [--procs P] [--reps R] [--work DIR] [--cpu N]
                [--results FILE] [--list]
    vs_torch.py --tables RESULTS.json|DIR ...

Against ``make bench-sketch`` (bench/sketch_bench.py), which gave the matmul
family 0.92 where a 28-workload sample of this script gave 19.0: the two
measure different workloads.  bench-sketch takes six corpus programs at the
corpus's sizes (0.1-300 ms in PyTorch) that have no data in the corpus, so
they are not here; here the matmul family is the 12 corpus workloads with
data and the zoo's, most of them a few microseconds in leirc, where
PyTorch's figure is its Python call and dispatch (20-80 us) and leirc's a C
call of JIT code (the summary's last columns keep PyTorch >= 100 us for
that).  Gemm_Add_ReLU is 128x1024 by 512x1024 in bench-sketch, 16x32 by 24x32
in the zoo.  Only Matmul_Scaling_ResidualAdd is in both, at the same shapes.
Side by side on CPU 1, 6 Dec 2026 05:38-05:52 UTC (load 3.6 -> 11.2; 2-CPU
AMD EPYC; leirc 5ff28ba), both with bare ``leirc --tune --time-limit=20``,
no --fp-contract, PyTorch and leirc each the median of 5 after a warm-up,
best of 3 processes::

    sketch_bench.py ./leirc CORPUS --cpu 1 --procs 3 --reps 5 \
      --tune="--tune --time-limit=20" --only Gemm_Add_ReLU,Gemm_Gemm,\
      Matmul_Scaling_ResidualAdd,Batched_matrix_multiplication,\
      Matmul_with_transposed_A,Tall_skinny_matrix_multiplication
    vs_torch.py ./leirc --cpu 1 --time-limit 20 --category "matmul family" \
      --only '^corpus/|zoo/Gemm_Add_ReLU$|zoo/Gemm_Gemm$|zoo/Matmul_Scaling_ResidualAdd$'

PyTorch / tuned leirc: bench-sketch's six 1.31 (Gemm_Add_ReLU 0.98, Gemm_Gemm
0.53, Matmul_Scaling_ResidualAdd 0.90, bmm 1.15, transposed A 0.67,
tall-skinny 14.2, whose PyTorch median was 7.9 ms that run against 1.0 ms
in the earlier one: load; 0.82 without it); this script's 15: 7.17 (12
corpus 6.62; zoo Gemm_Add_ReLU 26.4 and Gemm_Gemm 21.7 at the zoo's sizes),
the 6 where PyTorch takes >= 100 us 1.83; Matmul_Scaling_ResidualAdd 1.09
here against 0.90 there (PyTorch 120 us against 75 us minutes apart, the
load having tripled).  The rest of the gap came from how they were run:
bench-sketch's ``--tune=sketch --budget=8 --time-limit=120`` with
``--fp-contract=on``, against bare ``--tune`` at 20 s with leirc's default
contraction; and this script timed PyTorch by its best call of up to 20
against leirc's median of 5, which favoured PyTorch (the same run's ratios
with PyTorch's best call: all 5.81, >= 100 us 1.39): it now times PyTorch as
leirc and bench-sketch do, the median.

Exits 0 (a leirc or PyTorch run that failed is a cell saying why, and
counted at the end); 77 when torch is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import pathlib
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = pathlib.Path(__file__).resolve().parent
TOP = HERE.parent
sys.path.insert(0, str(TOP / "python"))

# the summary's second table: the workloads where PyTorch takes this long
BIG_S = 100e-6

# the CPU every timed or tuning process is pinned to (--cpu)
CPU: List[str] = ["0"]

CATEGORIES: List[str] = ["matmul family", "conv", "activations", "norms", "reductions/losses", "scans",
                         "other"]

# (category, pattern on the workload's name), the first that matches wins
RULES: List[Tuple[str, str]] = [
    ("conv", r"conv"),
    ("matmul family", r"gemm|matmul|bmm|linear|mlp|addmm|einsum|matvec|attention|^mha|^mqa|^gqa"),
    ("scans", r"cum(sum|prod)|scan"),
    ("reductions/losses", r"loss|entropy|similarity|kl_div|nll|hinge"),
    ("norms", r"norm|softmax"),
    ("reductions/losses", r"sum|mean|max|min|prod|argm|var|std|pool|logsumexp|reduction|amin"),
    ("activations", r"relu|gelu|tanh|sigmoid|softplus|swish|silu|selu|elu|mish|hard|softsign|clamp|abs|"
                    r"elementwise_math|log_log|leaky"),
]

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import torch
from leir.torch_import.kernelbench import load_model_file
torch.set_num_threads(1)
reps = int(sys.argv[3])
model, inputs = load_model_file(sys.argv[2])
out = {"shapes": [list(x.shape) if hasattr(x, "shape") else None for x in inputs]}

def timed(f):
    # as leirc --cost=measure times its program: one warm-up (kept as the first
    # timed call when over 1 s), the median of REPS timed calls; the best call too
    t = time.perf_counter(); f(); t = time.perf_counter() - t
    ts = [t] if t > 1.0 else []
    while len(ts) < reps:
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    ts.sort()
    n = len(ts)
    return (ts[n // 2] if n % 2 else 0.5 * (ts[n // 2 - 1] + ts[n // 2])), ts[0]

with torch.no_grad():
    out["eager"], out["eager_best"] = timed(lambda: model(*inputs))
    if not hasattr(torch, "compile"):
        out["compile"] = None
        out["compile_note"] = "n/a (torch " + torch.__version__.split("+")[0] + ")"
    else:
        try:
            cm = torch.compile(model)
            out["compile"], out["compile_best"] = timed(lambda: cm(*inputs))
        except Exception as e:  # a model torch.compile cannot take
            out["compile"] = None
            out["compile_note"] = "n/a (" + type(e).__name__ + ")"
print(json.dumps(out))
"""


@dataclass
class Workload:
    """One program leirc runs and the PyTorch model that computes the same."""
    wid: str                      # corpus/NAME or zoo/NAME
    name: str
    category: str
    model: pathlib.Path           # the PyTorch model file
    leir: Optional[pathlib.Path] = None    # the corpus program (None: import the model)
    decls: Optional[pathlib.Path] = None
    shapes: Optional[List[List[int]]] = None  # the corpus's input shapes, by position
    row: Dict[str, Any] = field(default_factory=dict)


def category(name: str) -> str:
    """The table a workload goes in, by its name."""
    for cat, pat in RULES:
        if re.search(pat, name, re.IGNORECASE):
            return cat
    return "other"


def zoo_dirs() -> List[pathlib.Path]:
    """The model zoo's folders."""
    return [TOP / "testsuite" / "python" / "zoo", TOP / "testsuite" / "python" / "zoo_steptp"]


def find_model(name: str) -> Optional[pathlib.Path]:
    """The zoo model named ``name``, if any."""
    for d in zoo_dirs():
        if (d / f"{name}.py").is_file():
            return d / f"{name}.py"
    return None


def workloads(corpus: Optional[pathlib.Path]) -> List[Workload]:
    """Every corpus workload with data and every zoo model, in a fixed order."""
    out: List[Workload] = []
    if corpus and (corpus / "data").is_dir():
        for data in sorted((corpus / "data").glob("*/*")):
            level, name = data.parent.name, data.name
            prog = corpus / "programs" / level / f"{name}.leir"
            model = find_model(name)
            if not prog.is_file() or model is None:
                continue
            info = json.loads(prog.with_suffix(".json").read_text(encoding="utf-8"))
            shapes = [i["shape"] for i in sorted(info.get("inputs", []), key=lambda i: i.get("position", 0))]
            out.append(Workload(f"corpus/{name}", name, category(name), model, prog,
                                prog.with_suffix(".decls.json"), shapes))
    for d in zoo_dirs():
        tag = "zoo" if d.name == "zoo" else "steptp"
        for model in sorted(d.glob("*.py")):
            out.append(Workload(f"{tag}/{model.stem}", model.stem, category(model.stem), model))
    return out


def select(ws: List[Workload], args: argparse.Namespace) -> List[Workload]:
    """--only, --category, --per-category and --shard, in that order."""
    if args.only:
        ws = [w for w in ws if re.search(args.only, w.wid)]
    if args.category:
        cats = {c.strip() for c in args.category.split(",")}
        bad = cats - set(CATEGORIES)
        if bad:
            raise SystemExit(f"vs_torch: unknown category {sorted(bad)}; one of {CATEGORIES}")
        ws = [w for w in ws if w.category in cats]
    if args.per_category:
        picked: List[Workload] = []
        for cat in CATEGORIES:
            of = [w for w in ws if w.category == cat]
            k = min(args.per_category, len(of))
            # spread evenly over the sorted list: corpus ones and both zoos
            picked += [of[(i * len(of)) // k] for i in range(k)]
        ws = picked
    if args.shard:
        i, n = (int(v) for v in args.shard.split("/"))
        ws = [w for j, w in enumerate(ws) if j % n == i]
    return ws


def prepare(w: Workload, work: pathlib.Path) -> Tuple[pathlib.Path, List[str]]:
    """The program leirc runs for ``w`` and the flags that declare it."""
    if w.leir is not None:
        return w.leir, ["--decls", str(w.decls)]
    from leir.torch_import import from_torch
    from leir.torch_import.kernelbench import load_model_file
    model, inputs = load_model_file(w.model)
    text = from_torch(model, inputs, name=w.name).text
    path = work / "imported" / f"{w.wid.replace('/', '-')}.leir"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path, []


def leirc_time(leirc: str, prog: pathlib.Path, flags: Sequence[str], procs: int) -> Tuple[Optional[float], str]:
    """Best over PROCS processes of leirc's measured median host run time, and why not."""
    best, why = None, ""
    for _ in range(procs):
        try:
            r = subprocess.run(["taskset", "-c", CPU[0], leirc, "--print-cost", "--cost=measure", "--target=host",
                                *flags, str(prog)], capture_output=True, text=True, check=False, timeout=600)
        except subprocess.TimeoutExpired:
            return best, "timeout"
        m = re.search(r"measured_seconds: (\S+)", r.stdout)
        if m:
            t = float(m.group(1))
            best = t if best is None or t < best else best
        else:
            why = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1][:120]
    return best, why


def torch_time(model: pathlib.Path, procs: int, reps: int) -> Dict[str, Any]:
    """Best over PROCS fresh processes of PyTorch eager's (and torch.compile's) best call."""
    res: Dict[str, Any] = {"eager": None, "compile": None, "eager_best": None, "compile_best": None}
    for _ in range(procs):
        r = subprocess.run(["taskset", "-c", CPU[0], sys.executable, "-c", CHILD, str(TOP / "python"), str(model),
                            str(reps)], capture_output=True, text=True, check=False, timeout=600)
        try:
            one = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res["error"] = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1][:120]
            continue
        res["shapes"] = one["shapes"]
        res["compile_note"] = one.get("compile_note", "")
        for k in ("eager", "compile", "eager_best", "compile_best"):
            if one.get(k) is not None and (res[k] is None or one[k] < res[k]):
                res[k] = one[k]
    return res


def tune_key(prog: pathlib.Path, flags: Sequence[str], tune_flags: Sequence[str]) -> str:
    """What a tuned program depends on: the program, its decls and the flags."""
    h = hashlib.sha256(prog.read_bytes())
    for f in flags:
        p = pathlib.Path(f)
        h.update(p.read_bytes() if p.is_file() else f.encode())
    h.update(" ".join(tune_flags).encode())
    return h.hexdigest()


def tune(leirc: str, w: Workload, prog: pathlib.Path, flags: Sequence[str], tune_flags: Sequence[str],
         work: pathlib.Path, reuse: bool) -> Dict[str, Any]:
    """``leirc --tune`` on one thread (or the cached result with --reuse)."""
    base = work / "tuned" / w.wid.replace("/", "-")
    base.parent.mkdir(parents=True, exist_ok=True)
    out, meta, trace = base.with_suffix(".leir"), base.with_suffix(".json"), base.with_suffix(".jsonl")
    key = tune_key(prog, flags, tune_flags)
    if reuse and out.is_file() and meta.is_file():
        m = json.loads(meta.read_text(encoding="utf-8"))
        if m.get("key") == key:
            m["reused"] = True
            return m
    for p in (out, meta, trace):
        p.unlink(missing_ok=True)
    start = time.monotonic()
    limit = float(next((f.split("=", 1)[1] for f in tune_flags if f.startswith("--time-limit=")), "60"))
    try:
        r = subprocess.run(["taskset", "-c", CPU[0], leirc, "--tune", *tune_flags, f"--trace={trace}", "--print-decls",
                            "-o", str(out), *flags, str(prog)], capture_output=True, text=True, check=False,
                           timeout=3 * limit + 300)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = -1, "timeout"
    m: Dict[str, Any] = {"key": key, "wall_s": time.monotonic() - start, "rc": rc}
    if rc != 0 or not out.is_file():
        m["error"] = (err.strip().splitlines() or [f"exit {rc}"])[-1][:160]
        return m
    lines = trace.read_text(encoding="utf-8").splitlines() if trace.is_file() else []
    summary = json.loads(lines[-1]) if lines else {}
    m.update({k: summary.get(k) for k in ("search", "steps", "speedup", "evaluations", "stop")})
    m["pipeline"] = ",".join(json.loads(x)["spelling"] for x in lines if '"step":' in x)
    meta.write_text(json.dumps(m, indent=1) + "\n", encoding="utf-8")
    return m


def fmt_t(t: Optional[float]) -> str:
    """Seconds as a table cell."""
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.2f} us"
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.2f} s"


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """a / b, or None."""
    return None if a is None or b is None or b <= 0 else a / b


def fmt_r(r: Optional[float]) -> str:
    """A ratio as a table cell."""
    return "-" if r is None else f"{r:.2f}"


def geomean(xs: Sequence[Optional[float]]) -> Optional[float]:
    """The geometric mean of the figures present."""
    ys = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(map(math.log, ys)) / len(ys)) if ys else None


def machine() -> str:
    """The CPU's model name."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def uptime() -> str:
    """The load averages."""
    try:
        return "load average " + " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load unknown"


def run_one(w: Workload, args: argparse.Namespace, work: pathlib.Path, tune_flags: List[str]) -> None:
    """Every figure of one workload into w.row."""
    row = w.row
    row.update({"id": w.wid, "category": w.category})
    try:
        prog, flags = prepare(w, work)
    except Exception as e:  # noqa: BLE001 - an import leirc cannot do is a cell, not a crash
        row["error"] = f"import: {type(e).__name__}: {str(e)[:100]}"
        return
    row["imported"], why = leirc_time(args.leirc, prog, flags, args.procs)
    if why:
        row["imported_error"] = why
    if not args.no_tune and row["imported"] is not None:
        m = tune(args.leirc, w, prog, flags, tune_flags, work, args.reuse)
        row["tune"] = m
        if "error" not in m:
            row["tuned"], why = leirc_time(args.leirc, work / "tuned" / f"{w.wid.replace('/', '-')}.leir", [],
                                           args.procs)
            if why:
                row["tuned_error"] = why
    tt = torch_time(w.model, args.procs, args.reps)
    if w.shapes is not None and tt.get("shapes") is not None and tt["shapes"] != w.shapes:
        row["torch_error"] = f"model input shapes {tt['shapes']} are not the corpus's {w.shapes}"
        return
    row["eager"], row["compile"] = tt["eager"], tt["compile"]
    row["eager_best"], row["compile_best"] = tt["eager_best"], tt["compile_best"]
    row["compile_note"] = tt.get("compile_note", "")
    if "error" in tt and tt["eager"] is None:
        row["torch_error"] = tt["error"]


def print_tables(ws: List[Workload], tuned: bool) -> Dict[str, Any]:
    """A table per category and the summary; the geomeans."""
    summary: Dict[str, Any] = {}
    for cat in CATEGORIES + ["all"]:
        rows = [w.row for w in ws if cat in ("all", w.category)]
        if not rows:
            continue
        g_imp = geomean([ratio(r.get("eager"), r.get("imported")) for r in rows])
        g_tun = geomean([ratio(r.get("eager"), r.get("tuned")) for r in rows])
        g_cmp = geomean([ratio(r.get("compile"), r.get("tuned") or r.get("imported")) for r in rows])
        summary[cat] = {"n": len(rows), "torch/imported": g_imp, "torch/tuned": g_tun, "compile/leirc": g_cmp,
                        "faster_imported": sum(1 for r in rows if (ratio(r.get("eager"), r.get("imported")) or 0) > 1),
                        "faster_tuned": sum(1 for r in rows if (ratio(r.get("eager"), r.get("tuned")) or 0) > 1)}
        if cat == "all":
            continue
        print(f"\n### {cat} ({len(rows)})\n")
        print("| workload | leirc imported | leirc tuned | torch eager | torch.compile | torch / imported "
              "| torch / tuned | tune |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            t = r.get("tune", {})
            if "error" in r:
                note = r["error"]
            elif "error" in t:
                note = "tune failed: " + t["error"]
            elif t:
                note = f"{t.get('steps', 0)} steps, {t.get('stop')}" + (" (reused)" if t.get("reused") else "")
            else:
                note = r.get("imported_error", "")
            for k in ("imported_error", "tuned_error", "torch_error"):
                if r.get(k) and r[k] not in note:
                    note += ("; " if note else "") + r[k]
            comp = fmt_t(r.get("compile")) if r.get("compile") is not None else (r.get("compile_note") or "-")
            print(f"| {r['id']} | {fmt_t(r.get('imported'))} | {fmt_t(r.get('tuned'))} | {fmt_t(r.get('eager'))} "
                  f"| {comp} | {fmt_r(ratio(r.get('eager'), r.get('imported')))} "
                  f"| {fmt_r(ratio(r.get('eager'), r.get('tuned')))} | {note} |")
        print(f"| **geomean** | | | | | **{fmt_r(g_imp)}** | **{fmt_r(g_tun)}** | |")
    print("\n### Summary: PyTorch eager time / leirc time, geomean (> 1: leirc faster)\n")
    print(f"leirc's time is its JIT-compiled program's run, called from C; PyTorch's a Python call of the "
          f"model, its dispatch included (a few us an operator): the last three columns keep the workloads where "
          f"PyTorch takes {BIG_S * 1e6:.0f} us or more.\n")
    print("| category | workloads | as imported | tuned | leirc faster, imported | leirc faster, tuned "
          f"| workloads, torch >= {BIG_S * 1e6:.0f} us | as imported | tuned |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cat, s in summary.items():
        big = [w.row for w in ws if cat in ("all", w.category) and (w.row.get("eager") or 0) >= BIG_S]
        s["big"] = {"n": len(big), "torch/imported": geomean([ratio(r.get("eager"), r.get("imported")) for r in big]),
                    "torch/tuned": geomean([ratio(r.get("eager"), r.get("tuned")) for r in big])}
        print(f"| {cat} | {s['n']} | {fmt_r(s['torch/imported'])} | {fmt_r(s['torch/tuned']) if tuned else '-'} "
              f"| {s['faster_imported']} | {s['faster_tuned'] if tuned else '-'} | {len(big)} "
              f"| {fmt_r(s['big']['torch/imported'])} | {fmt_r(s['big']['torch/tuned']) if tuned else '-'} |")
    if tuned:
        print_losers(ws)
    return summary


def print_losers(ws: List[Workload]) -> None:
    """The workloads where tuned leirc is slower than PyTorch eager, the worst first, with the schedule kept."""
    lost = [(ratio(w.row.get("eager"), w.row.get("tuned")), w.row) for w in ws]
    lost = sorted(((x, r) for x, r in lost if x is not None and x < 1), key=lambda xr: (xr[0], xr[1]["id"]))
    print(f"\n### Tuned leirc slower than PyTorch eager ({len(lost)})\n")
    if not lost:
        return
    print("| workload | category | torch / tuned | tuned speed-up | tune's pipeline |")
    print("|---|---|---|---|---|")
    for x, r in lost:
        t = r.get("tune", {})
        print(f"| {r['id']} | {r['category']} | {fmt_r(x)} | {fmt_r(ratio(r.get('imported'), r.get('tuned')))} "
              f"| {t.get('pipeline') or '(as imported)'} |")


FORMAT = "leirc-vs-torch-results/3"

# how files without "torch_stat" (format 2 and before) timed PyTorch
OLD_TORCH_STAT = "best call of up to 20, best of 3 processes"

# how PyTorch is timed (the results file says; --tables notes files that differ)
TORCH_STAT = "median of {reps} calls after a warm-up, best of {procs} processes"


def git_commit() -> str:
    """The source tree's commit (with "+dirty" for local changes), or "unknown"."""
    try:
        head = subprocess.run(["git", "-C", str(TOP), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(TOP), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def now() -> str:
    """The UTC date and time, to the second, sortable."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_json(path: pathlib.Path, obj: Dict[str, Any]) -> None:
    """Writes ``obj`` to ``path`` whole or not at all (a temporary file renamed)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def results_files(paths: Sequence[str]) -> List[pathlib.Path]:
    """The results files named, a folder standing for the *.json files in it (sorted)."""
    out: List[pathlib.Path] = []
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            out += sorted(p.glob("*.json"))
        else:
            out.append(p)
    return out


def describe(path: pathlib.Path, res: Dict[str, Any]) -> str:
    """One line about one results file: shard, rows, commit, machine, dates, load."""
    sel = res.get("selected")
    done = len(res.get("rows", []))
    shard = f"shard {res['shard']}" if res.get("shard") else "no shard"
    count = f"{done} of {len(sel)} workloads" if sel is not None else f"{done} workloads"
    part = "" if res.get("complete", True) else ", partial"
    when = f"{res.get('start', '?')} to {res.get('end') or '(unfinished)'}"
    load = f"{res.get('load_before', '?')} -> {res.get('load_after') or '?'}"
    flags = " ".join(res.get("tune_flags", [])) or "(defaults)"
    return (f"- {path.name}: {shard}, {count}{part}; commit {str(res.get('commit', 'unknown'))[:12]}; "
            f"{res.get('machine', '?')}, CPU {res.get('cpu', '?')}; {when}; {load}; tune {flags}")


def merge(paths: Sequence[str]) -> Tuple[List[Workload], bool]:
    """Prints what the results files hold and merges their rows (the latest of a workload measured twice)."""
    files = results_files(paths)
    if not files:
        raise SystemExit("vs_torch: --tables: no results files")
    loaded = [(f, json.loads(f.read_text(encoding="utf-8"))) for f in files]
    print(f"results: {len(loaded)} file(s)")
    for f, res in loaded:
        print(describe(f, res))
    universe: List[str] = []
    for _, res in loaded:
        universe += [u for u in res.get("universe", []) if u not in universe]
    rows: Dict[str, Tuple[Dict[str, Any], str]] = {}
    again: List[str] = []
    for f, res in loaded:
        for r in res.get("rows", []):
            r.setdefault("date", res.get("start", ""))
            old = rows.get(r["id"])
            if old is not None:
                keep_new = r["date"] >= old[0]["date"]
                kept, dropped = ((r, f.name), old) if keep_new else (old, (r, f.name))
                again.append(f"{r['id']}: kept {kept[1]} ({kept[0]['date']}), not {dropped[1]} "
                             f"({dropped[0]['date']})")
                if not keep_new:
                    continue
            rows[r["id"]] = (r, f.name)
    flags = sorted({" ".join(res.get("tune_flags", [])) or "(defaults)" for _, res in loaded})
    if len(flags) > 1:
        print(f"note: the files were tuned with different flags: {'; '.join(flags)}")
    stats = sorted({res.get("torch_stat", OLD_TORCH_STAT) for _, res in loaded})
    if len(stats) > 1:
        print(f"note: the files time PyTorch differently: {'; '.join(stats)}")
    if again:
        print(f"measured twice, the latest kept ({len(again)}):")
        for a in again:
            print(f"- {a}")
    # shards: for each N seen, the I with no file; the partial ones
    by_n: Dict[int, Dict[int, bool]] = {}
    for _, res in loaded:
        if res.get("shard"):
            i, n = (int(v) for v in res["shard"].split("/"))
            by_n.setdefault(n, {})[i] = by_n.get(n, {}).get(i, False) or bool(res.get("complete", True))
    for n, have in sorted(by_n.items()):
        missing = [f"{i}/{n}" for i in range(n) if i not in have]
        partial = [f"{i}/{n}" for i in sorted(have) if not have[i]]
        print(f"shards of {n}: missing {', '.join(missing) or 'none'}; partial {', '.join(partial) or 'none'}")
    if universe:
        covered = [u for u in universe if u in rows]
        print(f"covered: {len(covered)} of {len(universe)} workloads ({len(universe) - len(covered)} not measured)")
        order = {u: k for k, u in enumerate(universe)}
        ids = sorted(rows, key=lambda x: (order.get(x, len(order)), x))
    else:
        print(f"covered: {len(rows)} workloads (the files do not list all the workloads)")
        ids = list(rows)
    ws = [Workload(x, x.split("/", 1)[-1], rows[x][0].get("category", category(x)), pathlib.Path(),
                   row=rows[x][0]) for x in ids]
    return ws, any("tuned" in w.row for w in ws)


def main() -> int:
    """Measures the workloads selected and prints the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("leirc", nargs="?")
    ap.add_argument("--corpus", default=str(TOP.parent / "shared" / "corpus"),
                    help="the corpus (default ../shared/corpus; absent: the zoo alone)")
    ap.add_argument("--time-limit", type=float, help="leirc --tune's --time-limit (default: leirc's, 60 s)")
    ap.add_argument("--tune-flags", default="", help="more flags for leirc --tune (split on spaces)")
    ap.add_argument("--no-tune", action="store_true", help="as imported only")
    ap.add_argument("--reuse", action="store_true", help="take the tuned programs WORK/tuned holds for the same "
                    "program and flags instead of tuning again")
    ap.add_argument("--only", help="the workloads whose id (corpus/NAME, zoo/NAME, steptp/NAME) matches REGEX")
    ap.add_argument("--category", help="only these categories (comma-separated)")
    ap.add_argument("--per-category", type=int, default=0, help="at most K workloads per category, spread evenly")
    ap.add_argument("--shard", help="I/N: every Nth workload from the Ith (after the other selections)")
    ap.add_argument("--procs", type=int, default=3, help="fresh processes per timing, the best kept (default 3)")
    ap.add_argument("--reps", type=int, default=5, help="PyTorch's timed calls per process, their median kept, as "
                    "leirc's (default 5)")
    ap.add_argument("--work", default="bench-vs-torch", help="where the imported and tuned programs go")
    ap.add_argument("--cpu", default="0", help="the CPU every run is pinned to (default 0)")
    ap.add_argument("--results", help="the results file, rewritten after every workload (default "
                    "WORK/results.json, WORK/shard-I-of-N.json with --shard)")
    ap.add_argument("--list", action="store_true", help="list the workloads selected and their category; no run")
    ap.add_argument("--tables", nargs="+", metavar="RESULTS", help="merge these results files (or the *.json in "
                    "these folders) and print their tables; no run")
    args = ap.parse_args()
    if args.tables:
        ws, tuned = merge(args.tables)
        print_tables(ws, tuned)
        return 0
    if not args.leirc:
        ap.error("LEIRC is needed (unless --tables)")
    if args.shard and not re.fullmatch(r"\d+/[1-9]\d*", args.shard):
        ap.error("--shard must be I/N")
    if args.shard and int(args.shard.split("/")[0]) >= int(args.shard.split("/")[1]):
        ap.error("--shard I/N needs I < N")
    CPU[0] = args.cpu
    every = workloads(pathlib.Path(args.corpus))
    ws = select(every, args)
    if args.list:
        for w in ws:
            print(f"{w.wid:60s} {w.category}")
        print(f"{len(ws)} workloads")
        return 0
    try:
        import torch  # noqa: F401  (the child processes need it too)
    except ImportError:
        print("vs_torch: no torch for this Python")
        return 77
    work = pathlib.Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.results:
        out = pathlib.Path(args.results)
    elif args.shard:
        out = work / "shard-{}-of-{}.json".format(*args.shard.split("/"))
    else:
        out = work / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tune_flags = ([f"--time-limit={args.time_limit:g}"] if args.time_limit else []) + args.tune_flags.split()
    print(f"machine: {machine()}, {os.cpu_count()} CPUs; one thread: taskset -c {CPU[0]} for leirc (host JIT, "
          f"one worker) and PyTorch (set_num_threads(1), no_grad)")
    print(f"torch {torch.__version__}, leirc {args.leirc}; tune: leirc --tune {' '.join(tune_flags) or '(defaults)'}"
          f"{' (reuse)' if args.reuse else ''}; leirc: median of 5 runs after a warm-up, best of {args.procs} fresh "
          f"processes; PyTorch: {TORCH_STAT.format(reps=args.reps, procs=args.procs)}")
    res: Dict[str, Any] = {
        "format": FORMAT, "commit": git_commit(), "machine": machine(), "cpus": os.cpu_count(), "cpu": CPU[0],
        "torch": torch.__version__, "leirc": args.leirc, "tune_flags": tune_flags, "reuse": args.reuse,
        "procs": args.procs, "reps": args.reps, "shard": args.shard,
        "torch_stat": TORCH_STAT.format(reps=args.reps, procs=args.procs),
        "selection": {"only": args.only, "category": args.category, "per_category": args.per_category},
        "universe": [w.wid for w in every], "selected": [w.wid for w in ws],
        "start": now(), "load_before": uptime(), "end": None, "load_after": None, "complete": False, "rows": []}
    print(f"{len(ws)} workloads; start {res['start']}, {res['load_before']}; results in {out}", flush=True)
    write_json(out, res)
    failed = 0
    for i, w in enumerate(ws):
        start = time.monotonic()
        load = uptime()
        run_one(w, args, work, tune_flags)
        r = w.row
        r.update({"date": now(), "load_before": load, "load_after": uptime(), "tune_flags": tune_flags,
                  "wall_s": round(time.monotonic() - start, 1)})
        res["rows"].append(r)
        write_json(out, res)
        failed += any(k in r for k in ("error", "imported_error", "tuned_error", "torch_error")) or \
            "error" in r.get("tune", {})
        print(f"[{i + 1}/{len(ws)}] {w.wid}: imported {fmt_t(r.get('imported'))}, tuned {fmt_t(r.get('tuned'))}, "
              f"torch {fmt_t(r.get('eager'))} ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
    res.update({"end": now(), "load_after": uptime(), "complete": True})
    print(f"end {res['end']}, {res['load_after']}; {failed} workloads with a failed run")
    res["summary"] = print_tables(ws, not args.no_tune)
    write_json(out, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
