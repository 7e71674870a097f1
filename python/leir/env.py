"""StepEnv: LEIR optimisation steps as a Gymnasium environment.

An episode starts from one program; each action applies one legal step
(a candidate of ``Program.candidates()``); the reward is the log of the
cost ratio, ``log(previous cost / new cost)``, so the return of an
episode is ``log(start cost / final cost)``.  Needs the PyPI package
``gymnasium`` (``import leir`` does not)::

    from leir.env import StepEnv
    env = StepEnv(open("examples/matmul.leir").read(), max_steps=8)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)

Spaces
    ``action_space`` is ``Discrete(max_candidates)``: action ``i`` applies
    the ``i``-th legal candidate of the current program, in the order of
    ``leirc --list-applicable`` (those past ``max_candidates`` are not
    offered).  An index with no candidate (``obs["action_mask"][i] == 0``)
    is a no-op: the program stays, the reward is ``invalid_reward``
    (default -1), ``info["valid"]`` is False, and it counts as a step.
    :meth:`StepEnv.action_for` gives the index of a spelling.

    ``observation_space`` is a ``Dict``: ``"program"`` (``Text``: the
    current program's canonical text), ``"candidates"`` (``Text``: the
    offered spellings, one a line, in action order) and
    ``"action_mask"`` (``MultiBinary(max_candidates)``, 1 where an action
    is a candidate).

Episode end
    ``terminated`` when the new program has no candidate left,
    ``truncated`` after ``max_steps`` steps.

Cost
    ``cost="model"`` (default): the analytic cost model on ``target``
    (``"host"`` or ``"cuda"``), deterministic: the same seed and actions
    give the same episode.  ``cost="learned"``: the learned cost model
    of the host's run time (``leirc --cost=learned``, XGBoost; ``target=
    "host"`` only; deterministic; a libleir without XGBoost or without the
    model file raises :class:`leir.LeirError` at ``reset``).
    ``cost="measure"``: the host JIT's measured median run time
    (``target="host"`` only; noisy).

``info`` of a step: ``spelling``, ``strategy``, ``cls`` (``"E"``/``"T"``),
``valid``, ``verified`` (with ``verify=True``, the default: the new program
compared with the previous one in the reference interpreter on the seed's
random inputs, ``"equal"``, ``"close"`` or ``"differ"``; else None),
``cost`` and ``step``.
"""

from __future__ import annotations

import math
import string
from typing import Any, Sequence

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised when gymnasium is missing
    raise ImportError("leir.env needs the PyPI package gymnasium (pip install gymnasium)") from e
import numpy as np

from .core import Candidate, Context, Program

__all__ = ["StepEnv"]

#: Characters an observation's text may hold (canonical LEIR is ASCII).
CHARSET = frozenset(string.printable)


class StepEnv(gym.Env):
    """LEIR optimisation steps as a Gymnasium environment (see the module).

    ``program``: LEIR text (with ``decls``, the SPEC §8.2 sidecar, when it
    has no header) or a :class:`leir.Program`.  ``target``: ``"host"`` or
    ``"cuda"`` (of the cost model; ``measure`` is host only).
    ``max_steps``: steps per episode.  ``cost``: ``"model"``,
    ``"learned"`` or ``"measure"``.  ``max_candidates``: the size of the action space.
    ``strategies``: offer only the candidates of these strategies (names
    as STRATEGIES.md spells them).  ``verify``: compare each new program
    with the one before in the interpreter (``info["verified"]``).
    ``invalid_reward``: the reward of an action with no candidate.
    ``max_text``: the longest program text the observation space admits
    (an episode whose program grows past it is truncated).
    ``context_options``: options of each episode's :class:`leir.Context`
    (``seed`` is set by ``reset(seed=...)``).
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, program: str | Program, *, target: str = "host", max_steps: int = 32,
                 cost: str = "model", max_candidates: int = 256, strategies: Sequence[str] | None = None,
                 verify: bool = True, invalid_reward: float = -1.0, max_text: int = 1 << 20,
                 decls: Any = None, render_mode: str | None = None,
                 context_options: dict[str, Any] | None = None) -> None:
        if cost not in ("model", "learned", "measure"):
            raise ValueError(f"cost must be 'model', 'learned' or 'measure', not {cost!r}")
        if target not in ("host", "cuda"):
            raise ValueError(f"target must be 'host' or 'cuda', not {target!r}")
        if cost == "measure" and target != "host":
            raise ValueError("cost='measure' measures on the host: use target='host'")
        if cost == "learned" and target != "host":
            raise ValueError("cost='learned' is a model of the host: use target='host'")
        if max_steps < 1 or max_candidates < 1:
            raise ValueError("max_steps and max_candidates must be at least 1")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if isinstance(program, Program):
            self._source, self._decls = program.header_text, None
        else:
            self._source, self._decls = program, decls
        self.target = target
        self.max_steps = max_steps
        self.cost_kind = cost
        self.max_candidates = max_candidates
        self.strategies = frozenset(strategies) if strategies is not None else None
        self.verify = verify
        self.invalid_reward = float(invalid_reward)
        self.render_mode = render_mode
        self._context_options = dict(context_options or {})
        self._seed = int(self._context_options.pop("seed", 0))
        self.action_space = spaces.Discrete(max_candidates)
        self.observation_space = spaces.Dict({
            "program": spaces.Text(max_length=max_text, min_length=0, charset=CHARSET),
            "candidates": spaces.Text(max_length=max_text, min_length=0, charset=CHARSET),
            "action_mask": spaces.MultiBinary(max_candidates),
        })
        # Parse once now, so that a bad program fails here, not at reset.
        Program.parse(self._source, self._decls, context=Context())
        self.program: Program | None = None
        self.candidates: list[Candidate] = []
        self.cost: float = math.nan
        self.steps = 0

    # -- gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Starts an episode from the program.  ``seed`` (kept for later
        episodes when None) seeds the verification's random inputs."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
        # A fresh context each episode: a context keeps the IR of every
        # program made in it until it is freed.
        ctx = Context(seed=self._seed, **self._context_options)
        self.program = Program.parse(self._source, self._decls, context=ctx)
        self.steps = 0
        self.cost = self._cost(self.program)
        self._list()
        obs = self._observation()
        info = {"cost": self.cost, "step": 0, "candidates": len(self.candidates)}
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: int | np.integer) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Applies candidate ``action`` (see the module for invalid ones)."""
        if self.program is None:
            raise RuntimeError("StepEnv.step before reset")
        i = int(action)
        self.steps += 1
        info: dict[str, Any] = {"step": self.steps, "spelling": None, "strategy": None, "cls": None,
                                "valid": False, "verified": None, "cost": self.cost}
        if 0 <= i < len(self.candidates):
            cand = self.candidates[i]
            before = self.program
            after = before.apply(cand)
            new_cost = self._cost(after)
            reward = math.log(max(self.cost, 1e-30) / max(new_cost, 1e-30))
            if self.verify:
                info["verified"] = before.compare(after).verdict
            self.program, self.cost = after, new_cost
            self._list()
            info.update(spelling=cand.spelling, strategy=cand.strategy, cls=after.step_cls or cand.cls,
                        valid=True, cost=new_cost)
        else:
            reward = self.invalid_reward
        info["candidates"] = len(self.candidates)
        obs = self._observation()
        terminated = not self.candidates
        truncated = not terminated and (self.steps >= self.max_steps
                                        or not self.observation_space["program"].contains(obs["program"]))
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | None:
        """``"ansi"``: the current program's text; ``"human"``: printed."""
        text = f"# step {self.steps}, cost {self.cost:.6g} s\n{self.program.text if self.program else ''}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- helpers

    def action_for(self, step: str | Candidate) -> int:
        """The action that applies ``step`` (a candidate or its exact
        spelling) to the current program; ValueError if not offered."""
        spelling = step.spelling if isinstance(step, Candidate) else step
        for i, c in enumerate(self.candidates):
            if c.spelling == spelling:
                return i
        raise ValueError(f"'{spelling}' is not a candidate of the current program")

    def action_masks(self) -> np.ndarray:
        """The valid actions, as ``obs["action_mask"]`` (a bool array, for
        maskable policies)."""
        mask = np.zeros(self.max_candidates, dtype=bool)
        mask[: len(self.candidates)] = True
        return mask

    def _cost(self, p: Program) -> float:
        if self.cost_kind == "measure":
            return p.measure()
        return p.cost("learned" if self.cost_kind == "learned" else self.target)

    def _list(self) -> None:
        assert self.program is not None
        cands = self.program.candidates()
        if self.strategies is not None:
            cands = [c for c in cands if c.strategy in self.strategies]
        self.candidates = cands[: self.max_candidates]

    def _observation(self) -> dict[str, Any]:
        assert self.program is not None
        return {
            "program": self.program.text,
            "candidates": "\n".join(c.spelling for c in self.candidates),
            "action_mask": self.action_masks().astype(np.int8),
        }
