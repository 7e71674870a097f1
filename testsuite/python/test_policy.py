"""``leirc --tune --policy=CMD`` (issue 37): the JSON-lines policy protocol,
the example policies of examples/policies with pinned trajectories
(--cost=model, fixed seeds: the same on every machine), and policies that
crash, hang or answer nonsense."""

from __future__ import annotations

import json
import pathlib
import shlex
import subprocess
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
POLICIES = TOP / "examples" / "policies"
PY = shlex.quote(sys.executable)


def tune(leirc: str, tmp: pathlib.Path, policy: str, prog: str, *args: str) -> tuple[list[dict], str]:
    trace = tmp / "trace.jsonl"
    r = subprocess.run([leirc, "--cost=model", f"--policy={policy}", f"--trace={trace}", *args,
                        str(TOP / "examples" / prog), "-o", str(tmp / "best.leir")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [json.loads(l) for l in trace.read_text().splitlines()], r.stderr


def steps(trace: list[dict]) -> list[str]:
    return [t["spelling"] for t in trace if "step" in t]


def test_greedy_policy_alone(leirc: str, tmp_path: pathlib.Path) -> None:
    trace, err = tune(leirc, tmp_path, f"{PY} {POLICIES / 'greedy_cost_policy.py'}", "matmul.leir", "--tune=policy")
    assert err == ""
    # its first choice is the candidate whose lookahead estimate is best (the first of equals in leirc's
    # order), and leirc follows that candidate's lookahead path: the trajectory --tune=greedy takes
    assert steps(trace) == ["loop_reorder(nest=0,loop1=tx,loop2=a)", "loop_reorder(nest=0,loop1=a,loop2=c)"]
    s = trace[-1]
    assert (s["search"], s["evaluations"], s["stop"], s["policy_refusals"]) == ("policy", 2, "exhausted", 0)
    # matmul's one nest (98304 multiply-adds, 4 us by the model) runs on one thread (codegen/parallel.h):
    # the reorders only save the model's 1.5%, no longer a pool start they made unnecessary
    assert s["speedup"] == 1.01527689


def test_greedy_policy_as_beam_expander(leirc: str, tmp_path: pathlib.Path) -> None:
    trace, err = tune(leirc, tmp_path, f"{PY} {POLICIES / 'greedy_cost_policy.py'}", "softmax.leir", "--tune=beam")
    assert err == ""
    # softmax's nests (32768 iterations each) run on one thread (codegen/parallel.h), so fusing them
    # (online_softmax) saves no pool starts: the steps that pay drop work, the second exp of each element
    # (common_subexpression_elimination), and split the max and the sum's serial chains into 16 vector
    # lanes (reduction_rfactor, leirc's own strategy), then four reorders the model rates cheaper
    assert steps(trace) == ["common_subexpression_elimination(nest=1,stmt=0,pattern=2)",
                            "reduction_rfactor(nest=2,loop=a,lanes=16)",
                            "reduction_rfactor(nest=0,loop=a,lanes=16)",
                            "loop_reorder(nest=0,loop1=tx,loop2=a)",
                            "loop_reorder(nest=0,loop1=a,loop2=f)",
                            "loop_reorder(nest=0,loop1=f,loop2=tx)",
                            "loop_reorder(nest=3,loop1=f,loop2=a)"]
    s = trace[-1]
    assert (s["search"], s["evaluations"], s["stop"], s["policy_refusals"]) == ("beam", 73, "exhausted", 0)
    assert s["speedup"] == 3.00914867


def test_greedy_policy_guides_mcts(leirc: str, tmp_path: pathlib.Path) -> None:
    trace, err = tune(leirc, tmp_path, f"{PY} {POLICIES / 'greedy_cost_policy.py'}", "softmax.leir", "--tune=mcts",
                      "--budget=10")
    assert err == ""
    # within its 10 evaluations, the first two of the beam's steps (test_greedy_policy_as_beam_expander)
    # but the max's lanes first
    assert steps(trace) == ["common_subexpression_elimination(nest=1,stmt=0,pattern=2)",
                            "reduction_rfactor(nest=0,loop=a,lanes=16)"]
    s = trace[-1]
    assert (s["search"], s["evaluations"], s["stop"], s["policy_refusals"]) == ("mcts", 10, "budget", 0)
    assert s["speedup"] == 2.53746707


def test_random_policy_seeded(leirc: str, tmp_path: pathlib.Path) -> None:
    """The walk the random policy takes from seed 2, read from what leirc sent it."""
    log = tmp_path / "sent.jsonl"
    trace, err = tune(leirc, tmp_path, f"tee {log} | {PY} {POLICIES / 'random_policy.py'}", "softmax.leir",
                      "--tune=policy", "--seed=2", "--max-depth=3")
    assert err == ""
    sent = [json.loads(l) for l in log.read_text().splitlines()]
    assert [m["type"] for m in sent] == ["state", "state", "state", "done"]
    assert [m["depth"] for m in sent[:3]] == [0, 1, 2]
    assert [h["spelling"] for h in sent[2]["history"]] == [
        "expression_splitting(nest=1,pattern=2)", "layout_transformation(nest=0,tensor=A,kind=reshape1,item=0,factor=2)"]
    first = sent[0]
    assert first["seed"] == 2 and first["history"] == [] and first["program"].startswith("%in")
    assert {"spelling", "strategy", "level", "class", "estimate", "lookahead_estimate", "lookahead_path"
            } == set(first["candidates"][0])
    assert trace[-1]["evaluations"] == 3 and trace[-1]["stop"] == "max-depth"


def test_no_lookahead_keys_without_lookahead(leirc: str, tmp_path: pathlib.Path) -> None:
    """--lookahead=0: the candidates have the keys they had before the lookahead ones were added."""
    log = tmp_path / "sent.jsonl"
    tune(leirc, tmp_path, f"tee {log} | {PY} {POLICIES / 'random_policy.py'}", "matmul.leir", "--tune=policy",
         "--lookahead=0", "--max-depth=1")
    first = json.loads(log.read_text().splitlines()[0])
    assert all({"spelling", "strategy", "level", "class", "estimate"} == set(c) for c in first["candidates"])


def test_policy_proposing_a_program(leirc: str, tmp_path: pathlib.Path) -> None:
    """A policy may answer with the program it wants instead of a spelling."""
    script = tmp_path / "propose.py"
    script.write_text(
        "import json, subprocess, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'done': break\n"
        "    want = [c for c in m['candidates'] if c['spelling'] == 'loop_reorder(nest=0,loop1=a,loop2=c)']\n"
        "    if not want or m['depth']:\n"
        "        print(json.dumps({'stop': True}), flush=True); continue\n"
        f"    out = subprocess.run([{leirc!r}, '-O', want[0]['spelling'], '--emit=leir', '-'],\n"
        "                         input=m['program'], capture_output=True, text=True).stdout\n"
        "    print(json.dumps({'program': out}), flush=True)\n")
    trace, err = tune(leirc, tmp_path, f"{PY} {script}", "matmul.leir", "--tune=policy")
    assert err == ""
    # the candidate's lookahead path (one loop_reorder) promises less than 5% (matmul's nest runs on one
    # thread: codegen/parallel.h), so leirc does not follow it; the policy then stops
    assert steps(trace) == ["loop_reorder(nest=0,loop1=a,loop2=c)"]
    assert trace[-1]["evaluations"] == 1 and trace[-1]["policy_refusals"] == 0


def test_bad_policies(leirc: str, tmp_path: pathlib.Path) -> None:
    """Crashes, hangs and nonsense are refused and counted; the search goes on without them."""
    cases = [
        ("exit 3", 1, "the policy exited without answering (it crashed, or closed its pipes)"),
        ("sleep 30", 1, "did not answer in time"),
        ("yes garbage", 3, "is not a JSON object"),
        ("""yes '{"choices":["nope"]}'""", 3, "none of the policy's choices is a candidate"),
        ("""echo '{"program":"x"}'; sleep 30""", 2, "not one legal step away"),
        ("""echo '{"choices":7}'; sleep 30""", 2, "neither 'choices'"),
    ]
    for cmd, refusals, why in cases:
        # depth 3: a policy that answers is asked at each depth (the candidates' lookahead paths promise
        # less than 5%: matmul's nest runs on one thread, codegen/parallel.h, so none is followed); one
        # that answers once and then hangs is refused twice (its answer, then the timeout) and not asked again
        trace, err = tune(leirc, tmp_path, cmd, "matmul.leir", "--tune=policy", "--policy-timeout=0.5", "--max-depth=3")
        assert why in err, (cmd, err)
        s = trace[-1]
        assert s["policy_refusals"] == refusals, (cmd, s)
        # without the policy's answers: the cost model's order with the lookahead, as --tune=greedy
        assert steps(trace) == ["loop_reorder(nest=0,loop1=tx,loop2=a)", "loop_reorder(nest=0,loop1=a,loop2=c)"]
        assert s["wall_s"] < 10


def test_policy_usage(leirc: str) -> None:
    mm = str(TOP / "examples" / "matmul.leir")
    for args, msg in [(["--tune=policy"], "--tune=policy needs --policy=CMD"),
                      (["--policy=cat"], "--policy needs --tune"),
                      (["--tune", "--policy=cat", "--policy-timeout=0"], "--policy-timeout must be")]:
        r = subprocess.run([leirc, *args, mm], capture_output=True, text=True)
        assert r.returncode == 2 and msg in r.stderr


def test_greedy_policy_matches_greedy_on_sgemm(leirc: str, tmp_path: pathlib.Path) -> None:
    """Issue 37: with the lookahead estimates and paths (leirc(1), POLICY PROTOCOL) the greedy policy does at
    least as well as --tune=greedy at the same budget on SGEMM 1024^3: at 32 both find the 2x program
    (before, the policy saw one-step estimates only and stopped at 1.969x); at 8 greedy has not finished
    expanding the original, while the policy's walk costs 3 programs (the same at any budget from 3).
    bench/policy_bench.sh prints the same side by side with 96 too.  About 10 s."""
    policy = f"{PY} {POLICIES / 'greedy_cost_policy.py'}"
    got = {}
    for search, budget in [("policy", 32), ("greedy", 32), ("greedy", 8)]:
        pol = [f"--policy={policy}"] if search == "policy" else []
        r = subprocess.run([leirc, f"--tune={search}", "--cost=model", f"--budget={budget}", *pol,
                            f"--trace={tmp_path / 't.jsonl'}", str(TOP / "examples" / "sgemm1024.leir"),
                            "-o", str(tmp_path / "best.leir")], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        trace = [json.loads(l) for l in (tmp_path / "t.jsonl").read_text().splitlines()]
        got[search, budget] = (steps(trace), trace[-1]["speedup"], trace[-1]["evaluations"])
    tiled = ["loop_tiling(nest=0,loop=tx,factor1=2,factor2=2)", "loop_reorder(nest=0,loop1=g,loop2=tx)",
             "loop_reorder(nest=0,loop1=h,loop2=c)"]
    assert got["policy", 32] == (tiled, 1.99521819, 3)
    assert got["greedy", 32] == (tiled, 1.99521819, 32)
    assert got["greedy", 8] == ([], 1.0, 8)
    assert got["policy", 32][1] >= got["greedy", 32][1] and got["policy", 32][1] > got["greedy", 8][1]
