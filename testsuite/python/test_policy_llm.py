"""examples/policies/openai_policy.py (issue 37): leirc's policy protocol
adapted to an OpenAI-compatible chat endpoint, tested against a local stub
server (127.0.0.1, a free port) that records the requests and answers
deterministically; pinned trajectories with --cost=model, and a server that
answers nonsense, fails or hangs."""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
ADAPTER = TOP / "examples" / "policies" / "openai_policy.py"
PY = shlex.quote(sys.executable)
# the stub only: no proxy between the adapter and 127.0.0.1, no key or URL from the caller's environment
ENV = {k: v for k, v in os.environ.items()
       if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "openai_api_key", "openai_base_url")}


class Stub(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = "first"
        self.requests: list[dict] = []
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(http.server.BaseHTTPRequestHandler):
    server: Stub

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        mode = self.server.mode
        if mode == "slow":
            self.server.release.wait(5)
        if mode == "500" or self.path != "/v1/chat/completions":
            out, code = b'{"error":"boom"}', 500
        else:
            user = body["messages"][-1]["content"]
            if mode == "first":  # the first listed candidate, as a model would say it
                m = re.search(r"^- (\S+)", user, re.M)
                content = f"The best next step is {m.group(1) if m else '?'} because it helps."
            else:
                content = "I like turtles."
            out = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
                             ).encode()
            code = 200
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except OSError:  # the client gave up (timeout)
            pass


@pytest.fixture
def stub() -> Iterator[Stub]:
    s = Stub()
    t = threading.Thread(target=s.serve_forever, daemon=True)
    t.start()
    try:
        yield s
    finally:
        s.release.set()
        s.shutdown()
        s.server_close()


def tune(leirc: str, tmp: pathlib.Path, policy: str, *args: str, prog: str = "matmul.leir"
         ) -> tuple[list[dict], str]:
    trace = tmp / "trace.jsonl"
    r = subprocess.run([leirc, "--tune=policy", "--cost=model", f"--policy={policy}", f"--trace={trace}", *args,
                        str(TOP / "examples" / prog), "-o", str(tmp / "best.leir")],
                       capture_output=True, text=True, timeout=60, env=ENV)
    assert r.returncode == 0, r.stderr
    return [json.loads(l) for l in trace.read_text().splitlines()], r.stderr


def steps(trace: list[dict]) -> list[str]:
    return [t["spelling"] for t in trace if "step" in t]


def adapter(stub: Stub, *args: str) -> str:
    return f"{PY} {shlex.quote(str(ADAPTER))} --base-url {stub.url} {' '.join(args)}"


def test_prompt_and_request(stub: Stub) -> None:
    """One state straight into the adapter: what it sends and what it answers."""
    state = {"type": "state", "program": "%in A : f32[4]\n%out B : f32[4]\nPROGRAM-TEXT-HERE;\n", "depth": 1,
             "cost": 2.5e-6, "original_cost": 3e-6, "estimate": 2.5e-6,
             "history": [{"spelling": "loop_reorder(nest=0,loop1=a,loop2=c)", "cost": 2.5e-6}],
             "candidates": [{"spelling": "loop_fission(nest=0,at=1)", "strategy": "loop_fission", "level": "loop",
                             "class": "E", "estimate": 2e-6},
                            {"spelling": "loop_reorder(nest=0,loop1=tx,loop2=c)", "strategy": "loop_reorder",
                             "level": "loop", "class": "E", "estimate": None}],
             "evaluations": 1, "budget": 10, "seed": 0}
    r = subprocess.run([sys.executable, str(ADAPTER), "--base-url", stub.url, "--model", "step-tp-7b",
                        "--api-key", "sk-test", "--temperature", "0.25"],
                       input=json.dumps(state) + "\n" + '{"type":"done"}\n', capture_output=True, text=True,
                       timeout=20, env=ENV)
    assert r.returncode == 0 and r.stderr == ""
    assert [json.loads(l) for l in r.stdout.splitlines()] == [{"choices": ["loop_fission(nest=0,at=1)"]}]
    [req] = stub.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    body = req["body"]
    assert body["model"] == "step-tp-7b" and body["temperature"] == 0.25 and body["max_tokens"] > 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "LEIR" in body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    assert "PROGRAM-TEXT-HERE" in user
    for c in state["candidates"] + state["history"]:
        assert c["spelling"] in user
    assert "class E" in user and "estimate 2e-06 s" in user


def test_adapter_parses_spellings_and_programs() -> None:
    sys.path.insert(0, str(ADAPTER.parent))
    try:
        import openai_policy as op
    finally:
        sys.path.pop(0)
    st = {"candidates": [{"spelling": "a(x=1)"}, {"spelling": "b(x=1)"}, {"spelling": "ab(x=1)"}]}
    assert op.parse("try b(x=1), then a(x=1); not zab(x=1)", st, 8) == {"choices": ["b(x=1)", "a(x=1)"]}
    assert op.parse("b(x=1) a(x=1) ab(x=1)", st, 2) == {"choices": ["b(x=1)", "a(x=1)"]}
    assert op.parse("loop_reorder:\n```leir\nPROG;\n```\n", st, 8) == {"program": "PROG;\n"}
    assert op.parse("no idea", st, 8) == {}


# the first listed candidate at each state, read back from the histories the adapter sent; on matmul
# no lookahead path promises 5% (its nest runs on one thread: codegen/parallel.h), so the stub is asked
# at each of the 4 programs of the budget, and none is cheaper than the original by the model
MM = ["expression_splitting(nest=0,pattern=2)", "compute_inline(nest=0)",
      "tensor_split_to_decouple_operators(nest=0,axis=tx,split=32)", "operator_fusion(nest=0)"]
SM = ["expression_splitting(nest=1,pattern=2)", "expression_splitting(nest=1,pattern=1)", "operator_fusion(nest=1)",
      "expression_splitting(nest=3,pattern=1)"]
WALKS = {"matmul.leir": [MM[:k] for k in range(5)], "softmax.leir": [SM[:k] for k in range(5)]}
BEST = {  # the steps of --trace: the best program's path
    "matmul.leir": [],
    "softmax.leir": ["expression_splitting(nest=1,pattern=2)"],
}


@pytest.mark.parametrize("prog", ["matmul.leir", "softmax.leir"])
def test_llm_policy_trajectory(leirc: str, stub: Stub, tmp_path: pathlib.Path, prog: str) -> None:
    """The stub always answers the first listed candidate: the pinned walk and trace."""
    trace, err = tune(leirc, tmp_path, adapter(stub, "--model", "m"), "--budget=4", prog=prog)
    assert err == ""
    assert steps(trace) == BEST[prog]
    s = trace[-1]
    assert (s["search"], s["evaluations"], s["stop"], s["policy_refusals"]) == ("policy", 4, "budget", 0)
    assert len(stub.requests) == len(WALKS[prog]) and all(r["body"]["model"] == "m" for r in stub.requests)
    walk = [re.findall(r"^\d+\. (\S+)", r["body"]["messages"][1]["content"], re.M) for r in stub.requests]
    assert walk == WALKS[prog]


@pytest.mark.parametrize("mode", ["nonsense", "500", "slow"])
def test_llm_server_failures(leirc: str, stub: Stub, tmp_path: pathlib.Path, mode: str) -> None:
    """Nonsense, HTTP errors and timeouts are refused and counted; the search goes on by the cost model."""
    stub.mode = mode
    # depth 3: the policy is asked at each depth (no lookahead path promises 5% on matmul, whose nest runs
    # on one thread: codegen/parallel.h)
    trace, err = tune(leirc, tmp_path, adapter(stub, "--timeout", "0.5"), "--max-depth=3")
    assert "openai_policy: " in err
    s = trace[-1]
    assert s["policy_refusals"] == 3, s
    assert len(stub.requests) == 3
    # without the policy's answers: the cost model's order with the lookahead (as in test_policy.py)
    assert steps(trace) == ["loop_reorder(nest=0,loop1=tx,loop2=a)", "loop_reorder(nest=0,loop1=a,loop2=c)"]
    assert s["wall_s"] < 10
