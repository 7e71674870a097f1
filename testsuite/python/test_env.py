"""leir.env.StepEnv, the Gymnasium environment of optimisation steps.

Needs gymnasium (testsuite/python/requirements.txt; skipped without it)
and libleir (the ``libleir`` fixture: skipped only when the file is absent).
"""

from __future__ import annotations

import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import leir

TOP = pathlib.Path(__file__).resolve().parents[2]
MATMUL = TOP / "examples" / "matmul.leir"
SOFTMAX = TOP / "examples" / "softmax.leir"


def test_import_leir_without_gymnasium() -> None:
    code = ("import sys; sys.modules['gymnasium'] = None\n"
            "import leir\n"
            "try:\n"
            "    import leir.env\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ImportError: leir.env needs the PyPI package gymnasium" in r.stdout


try:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from leir.env import StepEnv
except ImportError:  # the tests below skip
    gymnasium = None

needs_gym = pytest.mark.skipif(gymnasium is None, reason="no gymnasium (testsuite/python/requirements.txt)")


def gym_test(f):  # type: ignore[no-untyped-def]
    """A test that needs gymnasium and libleir."""
    return needs_gym(pytest.mark.usefixtures("libleir")(f))


@pytest.fixture()
def env(libleir: None) -> StepEnv:
    return StepEnv(MATMUL.read_text(), max_steps=6, max_candidates=64)


@gym_test
def test_env_checker(env: StepEnv) -> None:
    check_env(env, skip_render_check=True)
    check_env(StepEnv(leir.Program.load(SOFTMAX), max_steps=3, verify=False), skip_render_check=True)


@gym_test
def test_reset(env: StepEnv) -> None:
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    p = leir.Program.load(MATMUL)
    assert obs["program"] == p.text
    spellings = [c.spelling for c in p.candidates()][:64]
    assert obs["candidates"].split("\n") == spellings
    assert obs["action_mask"].tolist() == [1] * len(spellings) + [0] * (64 - len(spellings))
    assert env.action_masks().sum() == len(spellings)
    assert info == {"cost": p.cost("host"), "step": 0, "candidates": len(spellings)}


@gym_test
def test_step_reward_is_the_log_cost_ratio(env: StepEnv) -> None:
    env.reset(seed=0)
    p = leir.Program.load(MATMUL)
    cand = p.candidates("loop_tiling")[0]
    q = p.apply(cand)
    obs, reward, terminated, truncated, info = env.step(env.action_for(cand.spelling))
    assert reward == pytest.approx(math.log(p.cost("host") / q.cost("host")))
    assert obs["program"] == q.text and env.observation_space.contains(obs)
    assert obs["candidates"].split("\n") == [c.spelling for c in q.candidates()][:64]
    assert info["spelling"] == cand.spelling and info["strategy"] == "loop_tiling"
    assert info["cls"] == q.step_cls and info["valid"] is True
    assert info["verified"] == "equal"  # class E: bit-identical
    assert info["cost"] == q.cost("host") and info["step"] == 1
    assert not terminated and not truncated


@gym_test
def test_invalid_action_is_a_penalised_no_op(env: StepEnv) -> None:
    obs0, _ = env.reset(seed=0)
    n = int(obs0["action_mask"].sum())
    assert n < 64
    obs, reward, terminated, truncated, info = env.step(63)
    assert reward == -1.0 and info["valid"] is False and info["spelling"] is None
    assert obs["program"] == obs0["program"] and obs["candidates"] == obs0["candidates"]
    assert env.steps == 1 and not terminated
    with pytest.raises(ValueError):
        env.action_for("loop_tiling(nest=9,loop=zz,factor1=2,factor2=2)")


@gym_test
def test_step_limit_truncates() -> None:
    env = StepEnv(MATMUL.read_text(), max_steps=3, verify=False)
    env.reset(seed=0)
    flags = [env.step(0)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


@gym_test
def test_no_candidate_left_terminates() -> None:
    env = StepEnv(MATMUL.read_text(), strategies=["no_such_strategy"])
    obs, info = env.reset(seed=0)
    assert info["candidates"] == 0 and obs["candidates"] == "" and not obs["action_mask"].any()
    _, reward, terminated, truncated, _ = env.step(0)
    assert terminated and not truncated and reward == -1.0
    # a strategy whose candidates run out: expression_splitting hoists each
    # sub-expression once
    env = StepEnv(MATMUL.read_text(), strategies=["expression_splitting"], max_steps=20)
    env.reset(seed=0)
    for _ in range(20):
        *_, terminated, truncated, info = env.step(0)
        assert info["valid"]
        if terminated or truncated:
            break
    assert terminated


@gym_test
def test_deterministic_given_the_seed() -> None:
    def episode(seed: int) -> list[object]:
        env = StepEnv(SOFTMAX.read_text(), max_steps=5)
        obs, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        out: list[object] = [obs["program"]]
        for _ in range(5):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            out += [obs["program"], reward, info["spelling"], info["verified"]]
            if terminated or truncated:
                break
        return out

    assert episode(3) == episode(3)
    assert episode(3) != episode(4)


@gym_test
def test_measured_cost() -> None:
    env = StepEnv(MATMUL.read_text(), cost="measure", max_steps=2, verify=False)
    try:
        _, info = env.reset(seed=0)
    except leir.Unsupported:
        pytest.skip("no host JIT in this build")
    assert info["cost"] > 0
    _, reward, *_ = env.step(0)
    assert math.isfinite(reward)


@gym_test
def test_learned_cost(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    """cost="learned": the learned model's estimates (Program.cost("learned")),
    the reward their log ratio; an exact error without the model file."""
    monkeypatch.delenv("LEIRC_COST_MODEL", raising=False)
    env = StepEnv(MATMUL.read_text(), cost="learned", max_steps=2, verify=False)
    try:
        _, info = env.reset(seed=0)
    except leir.LeirError as e:
        if any("built without XGBoost" in str(d) for d in e.diagnostics):
            pytest.skip("libleir built without XGBoost")
        raise
    assert info["cost"] == leir.Program.parse(MATMUL.read_text(), context=leir.Context()).cost("learned")
    _, reward, *_, info2 = env.step(0)
    assert reward == pytest.approx(math.log(info["cost"] / info2["cost"]))
    missing = tmp_path / "costmodel.json"
    monkeypatch.setenv("LEIRC_COST_MODEL", str(missing))
    env = StepEnv(MATMUL.read_text(), cost="learned", max_steps=2, verify=False)
    with pytest.raises(leir.LeirError) as ei:
        env.reset(seed=0)
    assert [str(d) for d in ei.value.diagnostics] == [f"libleir: error: cannot read the learned cost model {missing}\n"]
    with pytest.raises(ValueError, match=r"^cost='learned' is a model of the host: use target='host'$"):
        StepEnv(MATMUL.read_text(), target="cuda", cost="learned")


@gym_test
def test_bad_arguments() -> None:
    text = MATMUL.read_text()
    with pytest.raises(ValueError):
        StepEnv(text, cost="guess")
    with pytest.raises(ValueError):
        StepEnv(text, target="tpu")
    with pytest.raises(ValueError):
        StepEnv(text, target="cuda", cost="measure")
    with pytest.raises(ValueError):
        StepEnv(text, max_steps=0)
    with pytest.raises(leir.LeirError):
        StepEnv("B^{4}_{tx=0}[")
    with pytest.raises(RuntimeError):
        StepEnv(text).step(0)


@gym_test
def test_cuda_cost_model_and_render() -> None:
    env = StepEnv(MATMUL.read_text(), target="cuda", render_mode="ansi", max_steps=2)
    _, info = env.reset(seed=0)
    assert info["cost"] == leir.Program.load(MATMUL).cost("cuda")
    assert env.render().startswith("# step 0, cost ")


@gym_test
def test_example_random_rollout() -> None:
    r = subprocess.run([sys.executable, str(TOP / "examples" / "python" / "random_rollout.py")],
                       capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("start cost ") and lines[-1].startswith("return ")
    assert len(lines) >= 3
    np.testing.assert_equal(lines, subprocess.run(
        [sys.executable, str(TOP / "examples" / "python" / "random_rollout.py")],
        capture_output=True, text=True, env=dict(os.environ), timeout=120).stdout.splitlines())
