"""Activation workloads of the corpus and the zoo as written: leirc's host JIT against PyTorch eager.

For each level-1 corpus workload below, and each zoo model below imported
with ``leir.from_torch`` at the corpus's activation shape (16x16384 f32: the
zoo's own inputs, 8x64, take a few microseconds), the host run time of the
program as the corpus (or the importer) writes it (``leirc --print-cost --cost=measure --target=host``:
the median of timed runs, one CPU under taskset) and PyTorch eager's time for
the same operation (torch.set_num_threads(1), no_grad, best of REPS calls).
Both sides time the same values: x = torch.randn(shape) from seed 0, written
as x.npy and given to leirc as ``--input NAME=x.npy`` (NAME: the program's
one input) and to PyTorch loaded from that file.  (Before, leirc timed its
own random inputs, 10 x N(0,1), and PyTorch N(0,1): for MinGPTNewGelu most of
leirc's exp vectors then took the slow |x| > 87 branch.)  A leirc older than
--print-cost --cost=measure's --input (issue 59) ignores the file and times
its own random data, so a --before column of such a build is not on x.  Each side is measured in PROCS fresh
processes and the best kept (PyTorch's time per call varies between
processes).  With --before LEIRC2 a second leirc (e.g. an older build) is
measured in the same run.

    activation_bench.py LEIRC CORPUS [--before LEIRC2] [--procs P] [--reps R] [--only RE] [--avx2]

--avx2 measures both sides' code for an AVX2 CPU on this one (issue 59:
Zen 3's code paths on an AVX-512 machine): leirc's for znver3
(LEIRC_HOST_CPU, unless set already) and PyTorch's AVX2 kernels
(ATEN_CPU_CAPABILITY=avx2).

The zoo workloads need the package ``leir`` (PYTHONPATH) and PyTorch.

Prints a Markdown table: seconds per run and PyTorch / leirc (> 1: leirc is
faster).  Exits 0; 77 when the corpus is absent.
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional

WORKLOADS: List[str] = ["GELU", "Softplus", "Swish", "SELU", "Tanh", "MinGPTNewGelu"]

# zoo models without a level-1 corpus workload: name -> the file under
# testsuite/python/zoo whose Model is imported
ZOO: Dict[str, str] = {"Sigmoid": "sigmoid", "ELU": "elu", "Mish": "mish"}
ZOO_SHAPE: List[int] = [16, 16384]

# PyTorch's eager spelling of each workload (x: the input)
TORCH: Dict[str, str] = {
    "GELU": "torch.nn.functional.gelu(x)",
    "Softplus": "torch.nn.functional.softplus(x)",
    "Swish": "x * torch.sigmoid(x)",
    "SELU": "torch.selu(x)",
    "Tanh": "torch.tanh(x)",
    "MinGPTNewGelu": "0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)"
                     " * (x + 0.044715 * torch.pow(x, 3.0))))",
    "Sigmoid": "torch.sigmoid(x)",
    "ELU": "torch.nn.functional.elu(x, alpha=0.5)",
    "Mish": "torch.nn.functional.mish(x)",
}

CHILD = """
import math, sys, time, numpy, torch
torch.set_num_threads(1)
reps = int(sys.argv[2])
x = torch.from_numpy(numpy.load(sys.argv[1]))
best = None
with torch.no_grad():
    f = lambda: {expr}
    f()
    for _ in range(reps):
        t = time.perf_counter(); f(); t = time.perf_counter() - t
        best = t if best is None or t < best else best
print(best)
"""


def zoo_program(name: str, work: pathlib.Path) -> pathlib.Path:
    """The zoo model behind ``name`` imported at ZOO_SHAPE, written under ``work``."""
    import importlib.util

    import torch
    from leir.torch_import import from_torch

    path = pathlib.Path(__file__).resolve().parent.parent / "testsuite" / "python" / "zoo" / f"{ZOO[name]}.py"
    spec = importlib.util.spec_from_file_location(ZOO[name], path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = mod.Model(*mod.get_init_inputs())
    text = from_torch(model, [torch.randn(*ZOO_SHAPE)], name=name).text
    prog = work / f"{name}.leir"
    prog.write_text(text, encoding="utf-8")
    return prog


# the environment of the measuring processes (main sets it for --avx2)
ENV: Dict[str, str] = dict(os.environ)


def input_name(prog: pathlib.Path) -> Optional[str]:
    """The program's one input (its decls file's, else its %in line); None unless exactly one."""
    decls = prog.with_suffix(".decls.json")
    if decls.is_file():
        names = json.loads(decls.read_text(encoding="utf-8"))["input_known_names"]
    else:
        names = re.findall(r"^%in\s+(\w+)\s*:", prog.read_text(encoding="utf-8"), re.M)
    return names[0] if len(names) == 1 else None


def input_file(shape: List[int], work: pathlib.Path) -> Optional[pathlib.Path]:
    """x = torch.randn(shape) from seed 0 written as work/x_SHAPE.npy (f32); None without torch."""
    path = work / ("x_" + "x".join(map(str, shape)) + ".npy")
    if not path.is_file():
        try:
            import numpy
            import torch
        except ImportError:
            return None
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
        numpy.save(path, x.numpy())
    return path


def leirc_time(leirc: str, prog: pathlib.Path, procs: int, data: Optional[pathlib.Path]) -> Optional[float]:
    """Best over PROCS runs of leirc's measured median host run time (on data when given)."""
    best = None
    decls = prog.with_suffix(".decls.json")
    flags = ["--decls", str(decls)] if decls.is_file() else []
    name = input_name(prog)
    if data and name:
        flags += ["--input", f"{name}={data}"]
    for _ in range(procs):
        out = subprocess.run(
            ["taskset", "-c", "0", leirc, "--print-cost", "--cost=measure", "--target=host",
             *flags, str(prog)],
            capture_output=True, text=True, check=False, env=ENV).stdout
        m = re.search(r"measured_seconds: (\S+)", out)
        if m:
            t = float(m.group(1))
            best = t if best is None or t < best else best
    return best


def torch_time(name: str, data: Optional[pathlib.Path], procs: int, reps: int) -> Optional[float]:
    """Best over PROCS fresh processes of PyTorch's best call time on data."""
    best = None
    if data is None:
        return None
    code = CHILD.replace("{expr}", TORCH[name])
    for _ in range(procs):
        out = subprocess.run(
            ["taskset", "-c", "0", sys.executable, "-c", code, str(data), str(reps)],
            capture_output=True, text=True, check=False, env=ENV).stdout.strip()
        try:
            t = float(out)
        except ValueError:
            continue
        best = t if best is None or t < best else best
    return best


def fmt(t: Optional[float]) -> str:
    """Seconds as a table cell."""
    return "-" if t is None else f"{t * 1e3:.3f} ms"


def ratio(a: Optional[float], b: Optional[float]) -> str:
    """a / b as a table cell."""
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def row(args: argparse.Namespace, name: str, progs: pathlib.Path, work: pathlib.Path) -> str:
    """One workload measured: its table row."""
    if name in ZOO:
        try:
            prog = zoo_program(name, work)
        except ImportError as e:  # no torch or no leir on the path
            return f"| {name} (zoo) | - | not imported: {e} |"
        shape = ZOO_SHAPE
        label = f"{name} (zoo)"
    else:
        prog = progs / f"{name}.leir"
        decls = json.loads(prog.with_suffix(".decls.json").read_text(encoding="utf-8"))
        shape = decls["known_shapes"][0]
        label = name
    data = input_file(shape, work)
    after = leirc_time(args.leirc, prog, args.procs, data)
    before = leirc_time(args.before, prog, args.procs, data) if args.before else None
    tt = torch_time(name, data, args.procs, args.reps)
    cells = [label, "x".join(map(str, shape))]
    if args.before:
        cells += [fmt(before), fmt(after), fmt(tt), ratio(tt, before), ratio(tt, after)]
    else:
        cells += [fmt(after), fmt(tt), ratio(tt, after)]
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    """Measures every workload and prints the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("--before", help="a second leirc measured beside the first")
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", help="measure only the workloads whose name matches this regex")
    ap.add_argument("--avx2", action="store_true",
                    help="both sides' AVX2 code: LEIRC_HOST_CPU=znver3, ATEN_CPU_CAPABILITY=avx2")
    args = ap.parse_args()
    if args.avx2:
        ENV.setdefault("LEIRC_HOST_CPU", "znver3")
        ENV["ATEN_CPU_CAPABILITY"] = "avx2"
        print(f"AVX2 code: leirc LEIRC_HOST_CPU={ENV['LEIRC_HOST_CPU']}, torch ATEN_CPU_CAPABILITY=avx2")
    progs = pathlib.Path(args.corpus) / "programs" / "level1"
    if not progs.is_dir():
        print(f"activation_bench: no corpus at {args.corpus}")
        return 77
    head = "| workload | shape | leirc | torch | torch / leirc |"
    sep = "|---|---|---|---|---|"
    if args.before:
        head = "| workload | shape | leirc before | leirc | torch | torch / before | torch / leirc |"
        sep = "|---|---|---|---|---|---|---|"
    print(head)
    print(sep)
    with tempfile.TemporaryDirectory(prefix="activation_bench.") as tmp:
        for name in WORKLOADS + list(ZOO):
            if args.only and not re.search(args.only, name):
                continue
            print(row(args, name, progs, pathlib.Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
