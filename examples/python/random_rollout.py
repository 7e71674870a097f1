"""A random-policy rollout of leir.env.StepEnv (needs gymnasium).

Each step applies a random legal candidate (from the observation's action
mask); the reward is log(previous cost / new cost) under the cost model.

Usage: python3 random_rollout.py [PROGRAM.leir [SEED]]   (default: examples/softmax.leir, 0)
From the build tree: PYTHONPATH=python LEIR_LIBDIR=_build/.libs python3 examples/python/random_rollout.py
"""
import pathlib
import sys

import numpy as np

from leir.env import StepEnv

path = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1] / "softmax.leir")
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
env = StepEnv(path.read_text(), target="host", max_steps=10, cost="model")
obs, info = env.reset(seed=seed)
rng = np.random.default_rng(seed)
total = 0.0
print(f"start cost {info['cost']:.3e} s, {info['candidates']} candidates")
while True:
    legal = np.flatnonzero(obs["action_mask"])
    action = int(rng.choice(legal)) if len(legal) else 0
    obs, reward, terminated, truncated, info = env.step(action)
    total += reward
    print(f"{info['step']:2d} {info['spelling']} class {info['cls']} {info['verified']} reward {reward:+.3f}")
    if terminated or truncated:
        break
print(f"return {total:+.3f} (cost {info['cost']:.3e} s)")
