"""bench/vs_torch.py --tables: the merge of results files (shards) into one set of tables.

Two crafted shard files of a 4-workload run in 3 shards: shard 0/3 complete,
shard 1/3 partial (stopped after one workload), shard 2/3 missing; one
workload is measured in both (the latest is kept).  Neither leirc nor PyTorch
runs: what is checked is the bookkeeping and the exact table text.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any, Dict, List

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "vs_torch.py"
UNIVERSE = ["corpus/Gemm_Add", "zoo/Tanh", "zoo/cumsum", "zoo/conv1"]


def _row(wid: str, cat: str, imported: float, tuned: float, eager: float, date: str) -> Dict[str, Any]:
    """One workload's figures as vs_torch.py writes them."""
    return {"id": wid, "category": cat, "imported": imported, "tuned": tuned, "eager": eager, "compile": None,
            "compile_note": "n/a (torch 1.13)", "date": date,
            "tune": {"steps": 2, "stop": "time-limit", "search": "beam"}, "tune_flags": []}


def _shards(folder: pathlib.Path) -> List[pathlib.Path]:
    """Writes shard 0/3 (complete) and 1/3 (partial) into folder."""
    base = {"format": "leirc-vs-torch-results/2", "machine": "Test CPU", "cpus": 2, "cpu": "0", "tune_flags": [],
            "universe": UNIVERSE, "load_before": "load average 1.00 1.00 1.00"}
    a = dict(base, shard="0/3", commit="a" * 40, selected=[UNIVERSE[0], UNIVERSE[3]], start="2026-12-06T01:00:00Z",
             end="2026-12-06T02:00:00Z", load_after="load average 2.00 2.00 2.00", complete=True,
             rows=[_row(UNIVERSE[0], "matmul family", 2e-3, 5e-4, 1e-3, "2026-12-06T01:10:00Z"),
                   dict(_row(UNIVERSE[3], "conv", 2e-3, 1e-3, 2e-4, "2026-12-06T01:50:00Z"),
                        tune={"steps": 1, "stop": "exhausted", "pipeline": "loop_split(n,8)"})])
    b = dict(base, shard="1/3", commit="b" * 40, selected=[UNIVERSE[1], UNIVERSE[0]], start="2026-12-06T03:00:00Z",
             end=None, load_after=None, complete=False,
             rows=[_row(UNIVERSE[0], "matmul family", 2e-3, 4e-4, 1e-3, "2026-12-06T03:10:00Z")])
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, res in (("shard-0-of-3.json", a), ("shard-1-of-3.json", b)):
        (folder / name).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        out.append(folder / name)
    return out


def _tables(*args: pathlib.Path) -> str:
    """vs_torch.py --tables ARGS's standard output (it must succeed)."""
    r = subprocess.run([sys.executable, str(SCRIPT), "--tables", *map(str, args)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout


EXPECTED = """\
results: 2 file(s)
- shard-0-of-3.json: shard 0/3, 2 of 2 workloads; commit aaaaaaaaaaaa; Test CPU, CPU 0; 2026-12-06T01:00:00Z to \
2026-12-06T02:00:00Z; load average 1.00 1.00 1.00 -> load average 2.00 2.00 2.00; tune (defaults)
- shard-1-of-3.json: shard 1/3, 1 of 2 workloads, partial; commit bbbbbbbbbbbb; Test CPU, CPU 0; \
2026-12-06T03:00:00Z to (unfinished); load average 1.00 1.00 1.00 -> ?; tune (defaults)
measured twice, the latest kept (1):
- corpus/Gemm_Add: kept shard-1-of-3.json (2026-12-06T03:10:00Z), not shard-0-of-3.json (2026-12-06T01:10:00Z)
shards of 3: missing 2/3; partial 1/3
covered: 2 of 4 workloads (2 not measured)

### matmul family (1)

| workload | leirc imported | leirc tuned | torch eager | torch.compile | torch / imported | torch / tuned | tune |
|---|---|---|---|---|---|---|---|
| corpus/Gemm_Add | 2.000 ms | 400.00 us | 1.000 ms | n/a (torch 1.13) | 0.50 | 2.50 | 2 steps, time-limit |
| **geomean** | | | | | **0.50** | **2.50** | |

### conv (1)

| workload | leirc imported | leirc tuned | torch eager | torch.compile | torch / imported | torch / tuned | tune |
|---|---|---|---|---|---|---|---|
| zoo/conv1 | 2.000 ms | 1.000 ms | 200.00 us | n/a (torch 1.13) | 0.10 | 0.20 | 1 steps, exhausted |
| **geomean** | | | | | **0.10** | **0.20** | |

### Summary: PyTorch eager time / leirc time, geomean (> 1: leirc faster)

leirc's time is its JIT-compiled program's run, called from C; PyTorch's a Python call of the model, its \
dispatch included (a few us an operator): the last three columns keep the workloads where PyTorch takes 100 us \
or more.

| category | workloads | as imported | tuned | leirc faster, imported | leirc faster, tuned | workloads, \
torch >= 100 us | as imported | tuned |
|---|---|---|---|---|---|---|---|---|
| matmul family | 1 | 0.50 | 2.50 | 0 | 1 | 1 | 0.50 | 2.50 |
| conv | 1 | 0.10 | 0.20 | 0 | 0 | 1 | 0.10 | 0.20 |
| all | 2 | 0.22 | 0.71 | 0 | 1 | 2 | 0.22 | 0.71 |

### Tuned leirc slower than PyTorch eager (1)

| workload | category | torch / tuned | tuned speed-up | tune's pipeline |
|---|---|---|---|---|
| zoo/conv1 | conv | 0.20 | 2.00 | loop_split(n,8) |
"""


def test_merge_folder(tmp_path: pathlib.Path) -> None:
    """A folder stands for its *.json; the exact text: files, the duplicate, shards, coverage, tables, losers."""
    _shards(tmp_path / "results")
    assert _tables(tmp_path / "results") == EXPECTED


def test_latest_wins_whatever_the_order(tmp_path: pathlib.Path) -> None:
    """The files in the other order: the same workload kept (by date), the same tables."""
    a, b = _shards(tmp_path / "results")
    out = _tables(b, a)
    assert "- corpus/Gemm_Add: kept shard-1-of-3.json (2026-12-06T03:10:00Z), not shard-0-of-3.json " \
           "(2026-12-06T01:10:00Z)\n" in out
    assert out[out.index("measured twice"):] == EXPECTED[EXPECTED.index("measured twice"):]


def test_no_files(tmp_path: pathlib.Path) -> None:
    """An empty folder is an error that says so."""
    (tmp_path / "empty").mkdir()
    r = subprocess.run([sys.executable, str(SCRIPT), "--tables", str(tmp_path / "empty")], capture_output=True,
                       text=True, check=False)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "vs_torch: --tables: no results files\n")
