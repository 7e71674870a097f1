"""``leirc --serve`` (issue 37): a real MCP client over stdio, and a fuzz
test of the JSON-RPC transport.

The MCP test uses the ``mcp`` package from PyPI (testsuite/python/
requirements.txt) and skips only when it cannot be imported.  The fuzz test
speaks the newline-delimited JSON-RPC of the stdio transport directly.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import random
import select
import subprocess
import time

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
CORPUS = pathlib.Path(os.environ.get("LEIR_CORPUS") or TOP.parent / "shared" / "corpus")

TOOLS = [
    "load_program", "show_program", "list_candidates", "apply_step", "check_step", "compare_programs",
    "run_program", "emit_ptx", "estimate_cost", "measure", "history",
]


def _program() -> tuple[str, str | None]:
    """A corpus program and its sidecar, else examples/matmul.leir."""
    leir = CORPUS / "programs" / "level1" / "softmax.leir"
    if leir.is_file():
        return str(leir), str(leir.with_suffix(".decls.json"))
    return str(TOP / "examples" / "matmul.leir"), None


def _leirc_out(leirc: str, *args: str) -> str:
    return subprocess.run([leirc, *args], capture_output=True, text=True, check=True).stdout


def _check_step_cli(leirc: str, where: pathlib.Path, before: str, after: str, *opts: str, strategy=None) -> dict:
    """``leirc --check-step[=STRATEGY] --json`` on the texts, AFTER in a file named ``after`` (the name the
    server gives it)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "before.leir").write_text(before)
    (where / "after").write_text(after)
    check = f"--check-step={strategy}" if strategy else "--check-step"
    r = subprocess.run([leirc, check, "--json", *opts, "before.leir", "after"], cwd=where,
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _step_result(verdict: str, message: str, strategy=None, spelling=None, cls=None, refusal=None, at=None,
                 compare=None, difference=None, error=None, unsafe_math=None) -> dict:
    """A check_step result: the object of ``leirc --check-step --json``."""
    return {"verdict": verdict, "strategy": strategy, "spelling": spelling, "class": cls, "message": message,
            "refusal": refusal, "unsafe_math": unsafe_math, "at": at and {"line": at[0], "col": at[1]},
            "compare": compare,
            "difference": difference, "error": error}


def _get(obj, *names):
    """An attribute of an mcp result under either spelling (mcp 1.x camelCase, 2.x snake_case)."""
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    raise AttributeError(names[0])


def _structured(res) -> dict:
    assert not _get(res, "isError", "is_error"), res.content[0].text
    sc = _get(res, "structuredContent", "structured_content")
    assert json.loads(res.content[0].text) == sc  # the text content is the same JSON
    return sc


# ---------------------------------------------------------------- a real MCP client


def test_mcp_client_session(leirc: str, tmp_path: pathlib.Path) -> None:
    try:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError as e:  # pragma: no cover - depends on the venv
        pytest.skip(f"the PyPI package mcp cannot be imported ({e}); it is in testsuite/python/requirements.txt")
    import numpy as np

    path, decls = _program()
    dargs = ["--decls", decls] if decls else []
    want_text = _leirc_out(leirc, "--emit=leir", "--print-decls", *dargs, path)
    want_cands = [json.loads(l) for l in _leirc_out(leirc, "--list-applicable", "--json", *dargs, path).splitlines()]
    assert want_cands, "the test program needs a legal step"
    step = want_cands[0]["spelling"]
    want_after = _leirc_out(leirc, "-O", step, "--emit=leir", "--print-decls", *dargs, path)
    ref = tmp_path / "ref"
    ref.mkdir()
    subprocess.run([leirc, "--run", "-O", step, *dargs, "--output-dir", str(ref), path], check=True)
    out = tmp_path / "out"
    out.mkdir()

    async def session() -> None:
        params = StdioServerParameters(command=leirc, args=["--serve"])
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as s:
                init = await s.initialize()
                assert _get(init, "protocolVersion", "protocol_version") in ("2025-06-18", "2025-03-26", "2024-11-05")
                info = _get(init, "serverInfo", "server_info")
                assert info.name == "leirc"
                tools = await s.list_tools()
                assert [t.name for t in tools.tools] == TOOLS
                for t in tools.tools:
                    assert _get(t, "inputSchema", "input_schema")["type"] == "object"

                args = {"path": path, **({"decls": decls} if decls else {})}
                loaded = _structured(await s.call_tool("load_program", args))
                assert loaded == {"program": "p1", "text": want_text}
                assert _structured(await s.call_tool("show_program", {"program": "p1"})) == loaded

                cands = _structured(await s.call_tool("list_candidates", {"program": "p1"}))
                # sites are positions in the server's text (with its header), not in the file
                def nosite(cs):
                    return [{**c, "site": c["site"]["nest"]} for c in cs]
                assert cands.keys() == {"program", "candidates"} and cands["program"] == "p1"
                assert nosite(cands["candidates"]) == nosite(want_cands)

                applied = _structured(await s.call_tool("apply_step", {"program": "p1", "spelling": step}))
                assert applied == {"program": "p2", "text": want_after, "class": want_cands[0]["class"],
                                   "spelling": step}

                # the checker of leirc --check-step: the same object as --check-step --json
                cls = want_cands[0]["class"]
                chk = _structured(await s.call_tool("check_step", {"program": "p1", "after": want_after}))
                assert chk == _step_result("legal", f"legal: {step} (class {cls})", want_cands[0]["strategy"], step,
                                           cls)
                assert chk == _check_step_cli(leirc, tmp_path / "cli", want_text, want_after)
                chk = _structured(await s.call_tool("check_step", {"program": "p1", "after": want_text}))
                assert chk == _step_result("unchanged", "unchanged")
                chk = _structured(await s.call_tool("check_step", {"program": "p1", "after": "]]"}))
                assert chk["verdict"] == "does not parse" and chk["spelling"] is None
                assert chk == _check_step_cli(leirc, tmp_path / "cli", want_text, "]]")

                cmp = _structured(await s.call_tool("compare_programs", {"a": "p1", "b": "p2"}))
                assert cmp["verdict"] in ("equal", "close") and cmp["a"] == "p1" and cmp["b"] == "p2"

                ran = _structured(await s.call_tool("run_program", {"program": "p2", "output_dir": str(out)}))
                names = sorted(p.stem for p in ref.glob("*.npy"))
                assert ran == {"outputs": {n: f"{out}/{n}.npy" for n in names}}
                for n in names:
                    assert np.array_equal(np.load(out / f"{n}.npy"), np.load(ref / f"{n}.npy"), equal_nan=True)

                hist = _structured(await s.call_tool("history", {"program": "p2"}))
                assert hist == {"program": "p2", "steps": [{"spelling": step, "class": want_cands[0]["class"],
                                                            "from": "p1"}]}
                est = _structured(await s.call_tool("estimate_cost", {"program": "p2"}))
                assert est["target"] == "cuda" and est["seconds"] > 0

                bad = await s.call_tool("show_program", {"program": "p77"})
                assert _get(bad, "isError", "is_error")
                assert "unknown program 'p77'" in bad.content[0].text

    asyncio.run(asyncio.wait_for(session(), 120))


# ---------------------------------------------------------------- fuzzing the transport


class Server:
    """leirc --serve driven line by line, every read bounded in time."""

    def __init__(self, leirc: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.p = subprocess.Popen([leirc, "--serve", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.buf = b""

    def send(self, line: bytes | str) -> None:
        self.p.stdin.write(line.encode() if isinstance(line, str) else line)
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()

    def recv(self, timeout: float = 20.0) -> dict:
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            assert left > 0, "no answer in time"
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 1 << 20)
                assert chunk, f"the server exited (status {self.p.poll()})"
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, req) -> dict:
        self.send(req if isinstance(req, (str, bytes)) else json.dumps(req))
        return self.recv()

    def close(self) -> int:
        self.p.stdin.close()
        return self.p.wait(timeout=30)


def _error(resp: dict, code: int, rid=None) -> None:
    assert resp.get("jsonrpc") == "2.0" and "result" not in resp, resp
    assert resp["error"]["code"] == code, resp
    assert isinstance(resp["error"]["message"], str)
    assert resp["id"] == rid, resp


def _ping(srv: Server, rid) -> None:
    assert srv.ask({"jsonrpc": "2.0", "id": rid, "method": "ping"}) == {"jsonrpc": "2.0", "id": rid, "result": {}}


def _call(rid, name, args) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": args}}


def test_fuzz_transport(leirc: str) -> None:
    rng = random.Random(37)
    srv = Server(leirc)
    start = time.monotonic()
    path, decls = _program()
    init = srv.ask({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2024-11-05", "capabilities": {}}})
    assert init["result"]["protocolVersion"] == "2024-11-05"
    srv.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))  # no answer
    loaded = srv.ask(_call(1, "load_program", {"path": path, **({"decls": decls} if decls else {})}))
    assert loaded["result"]["structuredContent"]["program"] == "p1"

    valid = json.dumps(_call(5, "show_program", {"program": "p1"}))
    n = 0
    for i in range(3000):
        rid = 1000 + i
        kind = i % 15
        if kind == 0:  # truncated JSON
            _error(srv.ask(valid[: rng.randrange(1, len(valid))]), -32700)
        elif kind == 1:  # junk
            junk = "".join(rng.choice('{}[]:,x@#"ab\\ ') for _ in range(rng.randrange(1, 40))).strip() or "x"
            try:
                json.loads(junk, parse_constant=lambda c: 1 / 0)
                code = -32600
            except (ValueError, ZeroDivisionError):
                code = -32700
            _error(srv.ask(junk), code)
        elif kind == 2:  # ids of the wrong type
            bad = rng.choice([1.5, {"a": 1}, [1], True])
            _error(srv.ask({"jsonrpc": "2.0", "id": bad, "method": "ping"}), -32600)
        elif kind == 3:  # not JSON-RPC 2.0
            req = rng.choice([{"id": rid, "method": "ping"}, {"jsonrpc": "1.0", "id": rid, "method": "ping"},
                              {"jsonrpc": "2.0", "id": rid, "method": 7},
                              {"jsonrpc": "2.0", "id": rid, "method": "ping", "params": "x"}])
            _error(srv.ask(req), -32600, rid)
        elif kind == 4:  # huge numbers
            _error(srv.ask('{"jsonrpc":"2.0","id":%d%s,"method":"ping"}' % (rid, "9" * rng.randrange(20, 400))),
                   -32600)
            _error(srv.ask(json.dumps(_call(rid, "emit_ptx", {"program": "p1"}))[:-2] + ',"x":1e999}}'), -32600)
        elif kind == 5:  # unknown methods
            _error(srv.ask({"jsonrpc": "2.0", "id": rid, "method": rng.choice(["nope", "tools/nope", "", "ping "])}),
                   -32601, rid)
        elif kind == 6:  # unknown tools, wrong arguments
            req = rng.choice([_call(rid, "nope", {}), _call(rid, "show_program", {}),
                              _call(rid, "show_program", {"program": 7}),
                              _call(rid, "show_program", {"program": "p1", "extra": 1}),
                              _call(rid, "compare_programs", {"a": "p1", "b": "p1", "seeds": 0}),
                              _call(rid, "compare_programs", {"a": "p1", "b": "p1", "tolerance": "loose"}),
                              {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": 3}},
                              {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                               "params": {"name": "history", "arguments": [1]}},
                              {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": [1]},
                              {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": {}}])
            _error(srv.ask(req), -32602, rid)
        elif kind == 7:  # unknown program ids: a tool failure, not a protocol error
            pid = rng.choice(["p0", "p999999", "", "q1", "p1x", "p" + "9" * 30])
            r = srv.ask(_call(rid, "history", {"program": pid}))
            assert r["id"] == rid and r["result"]["isError"] is True
            assert "unknown program" in r["result"]["content"][0]["text"]
        elif kind == 8:  # bad programs and steps
            r = srv.ask(rng.choice([_call(rid, "load_program", {"text": "A_{%d}=" % rid}),
                                    _call(rid, "load_program", {"path": "/nonexistent/x.leir"}),
                                    _call(rid, "load_program", {}),
                                    _call(rid, "apply_step", {"program": "p1", "spelling": "no_such_pass(x=1)"}),
                                    _call(rid, "apply_step", {"program": "p1", "spelling": "loop_split(((("}),
                                    _call(rid, "emit_ptx", {"program": "p1", "arch": "sm_1"})]))
            assert r["id"] == rid and r["result"]["isError"] is True and r["result"]["content"][0]["text"]
        elif kind == 9:  # notifications get no answer; string ids are echoed
            srv.send(json.dumps({"jsonrpc": "2.0", "method": rng.choice(["notifications/cancelled", "nope"])}))
            _ping(srv, f"s{rid}")
        elif kind == 10:  # responses from the client are ignored
            srv.send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {}}))
            _ping(srv, rid)
        elif kind == 11:  # odd bytes
            _error(srv.ask(rng.choice([b"\xff\xfe{", b'{"a":"\xc3"}', b"\x00", b'"\\u0000"'])), -32700)
        elif kind == 12:  # batches
            _error(srv.ask(rng.choice(["[]", json.dumps([{"jsonrpc": "2.0", "id": rid, "method": "ping"}])])), -32600)
        else:  # after all that, a good request works
            _ping(srv, rid)
        n += 1
        assert time.monotonic() - start < 240, "the fuzz test took too long"
    r = srv.ask(valid)
    assert r["result"]["structuredContent"]["program"] == "p1"
    _ping(srv, "end")
    assert srv.close() == 0
    assert n == 3000


def test_oversized_line(leirc: str) -> None:
    srv = Server(leirc, "--max-request=64K")
    _error(srv.ask(json.dumps(_call(1, "load_program", {"text": "x" * 100000}))), -32600)
    _ping(srv, 2)
    assert srv.close() == 0
    srv = Server(leirc)  # the default limit: 16 MiB
    _error(srv.ask(b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"' + b"y" * (17 << 20) + b'"}'), -32600)
    _ping(srv, 3)
    assert srv.close() == 0


def test_estimate_cost_learned(leirc: str, tmp_path: pathlib.Path) -> None:
    """estimate_cost's cost "learned": leirc --print-cost --cost=learned --json's object (host); target cuda
    with it, an unknown cost and a missing model file are errors with exact texts."""
    src = TOP / "examples" / "matmul.leir"
    env = {k: v for k, v in os.environ.items() if k != "LEIRC_COST_MODEL"}
    r = subprocess.run([leirc, "--print-cost", "--cost=learned", "--json", str(src)], capture_output=True,
                       text=True, env=env)
    if "built without XGBoost" in r.stderr:
        pytest.skip("leirc built without XGBoost")
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    srv = Server(leirc, env=env)
    assert srv.ask(_call(1, "load_program", {"path": str(src)}))["result"]["structuredContent"]["program"] == "p1"
    got = srv.ask(_call(2, "estimate_cost", {"program": "p1", "cost": "learned"}))["result"]
    assert got["structuredContent"] == want and want["learned_seconds"] > 0
    got = srv.ask(_call(3, "estimate_cost", {"program": "p1", "cost": "model", "target": "host"}))["result"]
    assert "learned_seconds" not in got["structuredContent"]
    bad = srv.ask(_call(4, "estimate_cost", {"program": "p1", "cost": "learned", "target": "cuda"}))["result"]
    assert bad["isError"] is True
    assert bad["content"][0]["text"] == ("estimate_cost: cost 'learned' is a model of the host: it does not "
                                         "combine with target 'cuda'")
    bad = srv.ask(_call(5, "estimate_cost", {"program": "p1", "cost": "guess"}))
    _error(bad, -32602, 5)
    assert bad["error"]["message"] == "estimate_cost: argument 'cost' must be a string among the schema's enum"
    assert srv.close() == 0
    missing = tmp_path / "costmodel.json"
    srv = Server(leirc, env={**env, "LEIRC_COST_MODEL": str(missing)})
    srv.ask(_call(1, "load_program", {"path": str(src)}))
    bad = srv.ask(_call(2, "estimate_cost", {"program": "p1", "cost": "learned"}))["result"]
    assert bad["isError"] is True
    assert bad["content"][0]["text"] == f"p1: error: cannot read the learned cost model {missing}\n"
    assert srv.close() == 0


def test_program_limit(leirc: str) -> None:
    srv = Server(leirc, "--max-programs=2")
    text = (TOP / "examples" / "matmul.leir").read_text()
    for i in range(1, 4):
        r = srv.ask(_call(i, "load_program", {"text": text}))
        assert r["result"]["structuredContent"]["program"] == f"p{i}"
    r = srv.ask(_call(4, "show_program", {"program": "p1"}))
    assert r["result"]["isError"] is True and "evicted" in r["result"]["content"][0]["text"]
    r = srv.ask(_call(5, "show_program", {"program": "p3"}))
    assert r["result"]["structuredContent"]["program"] == "p3"
    assert srv.close() == 0


def test_check_step_verdicts(leirc: str, tmp_path: pathlib.Path) -> None:
    """check_step is leirc --check-step: the same verdicts and the same JSON object (the tool's seed and
    tolerance as --seed and --tolerance, the server's --max-steps as the budget of each run)."""
    srv = Server(leirc, "--max-steps=100000000")
    text = (TOP / "examples" / "matmul.leir").read_text()
    assert srv.ask(_call(1, "load_program", {"text": text}))["result"]["structuredContent"]["program"] == "p1"
    body = "B^{64}_{tx=0}L^{48}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+%s;];"
    msplit = "multiplicative_split(nest=0,stmt=0,tensor=%s,y=shift)"

    def check(after: str, **more) -> dict:
        r = srv.ask(_call(2, "check_step", {"program": "p1", "after": after, **more}))
        assert r["result"]["isError"] is False, r
        got = r["result"]["structuredContent"]
        opts = ["--max-steps=100000000"] + [f"--{k}={v}" for k, v in more.items() if k != "strategy"]
        assert got == _check_step_cli(leirc, tmp_path, text, after, *opts, strategy=more.get("strategy"))
        return got

    assert check(body % "A^{f32,g}_{tx,c}*C^{f32,g}_{c,a}") == _step_result("unchanged", "unchanged")
    swapped = "B^{64}_{tx=0}L^{32}_{c=0}L^{48}_{a=0}[D^{f32,g}_{tx,a}=D^{f32,g}_{tx,a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,a};];"
    reorder = "loop_reorder(nest=0,loop1=a,loop2=c)"
    assert check(swapped) == _step_result("legal", f"legal: {reorder} (class E)", "loop_reorder", reorder, "E")
    # not a loop_split step: now with the closest loop_split candidate and where it differs
    assert check(swapped, strategy="loop_split") == _step_result(
        "equivalent", "equivalent, not a loop_split step: closest candidate loop_split(nest=0,loop=a,factor=3) "
        "first differs at after:1:14", "loop_split", "loop_split(nest=0,loop=a,factor=3)", at=(1, 14),
        compare="equal")
    # the stand-in said "equivalent" here: a loop_split with its fresh index renamed (g -> q) is legal
    split = "B^{64}_{tx=0}L^{4}_{q=0}L^{12}_{a=0}L^{32}_{c=0}[D^{f32,g}_{tx,q*12+a}=D^{f32,g}_{tx,q*12+a}+A^{f32,g}_{tx,c}*C^{f32,g}_{c,q*12+a};];"
    assert check(split) == _step_result("legal", "legal: loop_split(nest=0,loop=a,factor=4) (class E)", "loop_split",
                                        "loop_split(nest=0,loop=a,factor=4)", "E")
    # equivalent (the stand-in gave no spelling): now with the closest candidate
    assert check(body % "C^{f32,g}_{c,a}*A^{f32,g}_{tx,c}") == _step_result(
        "equivalent", f"equivalent, not a legal step: closest candidate {msplit % 'A'} first differs at after:1:73",
        "multiplicative_split", msplit % "A", at=(1, 73), compare="equal")
    twice = body % "A^{f32,g}_{tx,c}*C^{f32,g}_{c,a}*2"
    diff = ("first mismatch: output 'D' at [0,0] (flat 0, seed 0): 439.936523 in before, 879.873047 in after "
            "(8388608 ulp apart)")
    assert check(twice) == _step_result(
        "not equivalent", f"not equivalent: {diff}; closest candidate {msplit % 'A'} first differs at after:1:73",
        "multiplicative_split", msplit % "A", at=(1, 73), compare="differ", difference=diff)
    r = check(twice, seed=5)
    assert r["verdict"] == "not equivalent" and "(flat 0, seed 5)" in r["difference"]
    # the reduction summed backwards: not equivalent under the default tolerance, equivalent (close) under
    # --compare's reference tolerance
    rev = body % "A^{f32,g}_{tx,31-c}*C^{f32,g}_{31-c,a}"
    assert check(rev)["verdict"] == "not equivalent"
    r = check(rev, tolerance="reference")
    assert (r["verdict"], r["compare"], r["spelling"]) == ("equivalent", "close", msplit % "C")
    # the stand-in said not equivalent with the undeclared Q's error as its reason; now the message says why
    r = check(body % "Q^{f32,g}_{tx,c}")
    assert r["verdict"] == "not equivalent" and r["compare"] is None
    assert "the programs take different arguments: 'Q' is an input of after" in r["message"]
    assert check(body % "A^{f32,g}_{tx,d}") == _step_result(
        "invalid", "invalid: after:1:87: error: index 'd' is not bound by an enclosing loop", at=(1, 87),
        error="after:1:87: error: index 'd' is not bound by an enclosing loop")
    r = check("B^{64}")
    assert r["verdict"] == "does not parse" and r["at"] == {"line": 1, "col": 7}
    assert r["error"].startswith("after:1:7: error: syntax error")
    r = srv.ask(_call(3, "check_step", {"program": "p1", "after": swapped, "strategy": "no_such"}))
    assert r["result"]["isError"] is True and "unknown strategy" in r["result"]["content"][0]["text"]
    assert srv.close() == 0

    # the server's --max-steps is the budget of each run; a pair not run is not known to differ
    srv = Server(leirc, "--max-steps=1000")
    assert srv.ask(_call(1, "load_program", {"text": text}))["result"]["structuredContent"]["program"] == "p1"
    r = srv.ask(_call(2, "check_step", {"program": "p1", "after": body % "C^{f32,g}_{c,a}*A^{f32,g}_{tx,c}"}))
    r = r["result"]["structuredContent"]
    assert r["verdict"] == "not run" and r["compare"] is None
    assert r["message"].startswith("not run: 98304 statement executions > budget 1000; closest candidate ")
    assert srv.close() == 0


def test_limits_per_request(leirc: str) -> None:
    srv = Server(leirc, "--max-memory=1G", "--max-steps=1000000")
    big = "%in A : f32[100000,100000]\n%out Y : f32[100000,100000]\nL^{100000}_{a=0}L^{100000}_{b=0}[Y^{f32,g}_{a,b}=A^{f32,g}_{a,b};];"
    slow = "%in A : f32[1000,1000]\n%out Y : f32[1000,1000]\nL^{1000}_{a=0}L^{1000}_{b=0}L^{1000}_{c=0}[Y^{f32,g}_{a,b}=Y^{f32,g}_{a,b}+A^{f32,g}_{a,c};];"
    for i, (text, why) in enumerate([(big, "--max-memory"), (slow, "--max-steps")]):
        pid = srv.ask(_call(i, "load_program", {"text": text}))["result"]["structuredContent"]["program"]
        r = srv.ask(_call(i, "run_program", {"program": pid, "output_dir": "/nonexistent"}))
        assert r["result"]["isError"] is True and why in r["result"]["content"][0]["text"]
    r = srv.ask(_call(7, "measure", {"program": "p2"}))
    assert r["result"]["isError"] is True and "not measured" in r["result"]["content"][0]["text"]
    _ping(srv, 9)
    assert srv.close() == 0
