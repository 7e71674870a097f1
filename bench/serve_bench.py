#!/usr/bin/env python3
"""Round-trip latency of `leirc --serve` (issue 37): per tool, the median and
99th percentile of the time from writing a request line to reading its
answer, over a few corpus programs, and requests per second (ping, and the
mix of tool calls).  Standard library only.

    python3 bench/serve_bench.py _build/leirc ../shared/corpus [--rounds N]

Exit status 77 when the corpus is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAMS = ["level2/Matmul_Mean_Softmax", "level2/MatMul_and_Softmax", "level1/ReLU", "level1/L1Norm"]


class Server:
    def __init__(self, leirc: str) -> None:
        self.p = subprocess.Popen([leirc, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next = 0

    def call(self, method: str, params: dict | None = None) -> tuple[dict, float]:
        self.next += 1
        req = {"jsonrpc": "2.0", "id": self.next, "method": method}
        if params is not None:
            req["params"] = params
        t = time.perf_counter()
        self.p.stdin.write((json.dumps(req) + "\n").encode())
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        dt = time.perf_counter() - t
        resp = json.loads(line)
        if "error" in resp:
            raise RuntimeError(f"{method}: {resp['error']}")
        return resp["result"], dt

    def tool(self, name: str, **args) -> tuple[dict, float]:
        res, dt = self.call("tools/call", {"name": name, "arguments": args})
        if res.get("isError"):
            raise RuntimeError(f"{name}: {res['content'][0]['text']}")
        return res["structuredContent"], dt

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    corpus = pathlib.Path(a.corpus) / "programs"
    progs = [p for p in PROGRAMS if (corpus / f"{p}.leir").is_file()]
    if not progs:
        print(f"serve_bench: no corpus programs under {corpus}", file=sys.stderr)
        return 77
    srv = Server(a.leirc)
    srv.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "serve_bench", "version": "1"}})
    lat: dict[str, list[float]] = {}
    out = tempfile.mkdtemp(prefix="serve_bench.")
    mix_n, mix_t = 0, 0.0

    def rec(name: str, dt: float) -> None:
        nonlocal mix_n, mix_t
        lat.setdefault(name, []).append(dt)
        mix_n += 1
        mix_t += dt

    for prog in progs:
        leir = corpus / f"{prog}.leir"
        decls = leir.with_suffix(".decls.json")
        for _ in range(a.rounds):
            args = {"path": str(leir), **({"decls": str(decls)} if decls.is_file() else {})}
            r, dt = srv.tool("load_program", **args)
            rec("load_program", dt)
            pid = r["program"]
            for name in ("show_program", "estimate_cost", "history"):
                rec(name, srv.tool(name, program=pid)[1])
            r, dt = srv.tool("list_candidates", program=pid)
            rec("list_candidates", dt)
            step = r["candidates"][0]["spelling"]
            r, dt = srv.tool("apply_step", program=pid, spelling=step)
            rec("apply_step", dt)
            rec("check_step", srv.tool("check_step", program=pid, after=r["text"])[1])
            rec("emit_ptx", srv.tool("emit_ptx", program=r["program"])[1])
            rec("compare_programs", srv.tool("compare_programs", a=pid, b=r["program"])[1])
            rec("run_program", srv.tool("run_program", program=r["program"], output_dir=out)[1])
    pings = []
    t0 = time.perf_counter()
    for _ in range(2000):
        pings.append(srv.call("ping")[1])
    ping_rate = len(pings) / (time.perf_counter() - t0)
    srv.close()
    for f in pathlib.Path(out).glob("*.npy"):
        f.unlink()
    os.rmdir(out)

    print(f"leirc --serve, {len(progs)} corpus programs ({', '.join(progs)}), {a.rounds} rounds each")
    print(f"{'tool':18} {'calls':>6} {'median ms':>10} {'p99 ms':>9}")
    for name, xs in lat.items():
        print(f"{name:18} {len(xs):6d} {statistics.median(xs) * 1e3:10.3f} {pct(xs, 0.99) * 1e3:9.3f}")
    print(f"{'ping':18} {len(pings):6d} {statistics.median(pings) * 1e3:10.3f} {pct(pings, 0.99) * 1e3:9.3f}")
    print(f"requests/s: ping {ping_rate:.0f}, tool mix {mix_n / mix_t:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
