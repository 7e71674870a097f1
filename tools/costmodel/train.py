"""Train leirc's learned cost model (issue 58 item 1) from measured programs.

Usage: train.py [--out MODEL.json] [--eval-only] DATA.tsv...

DATA.tsv: lines of bench/costmodel_bench --features --save (tools/costmodel/measure.sh):
program, variant, measured seconds, the analytic host and CUDA estimates, then the
features of search/features.h, named by the ``#program`` header line.

The model: XGBoost regression (squared error, one thread: the same data give the same
model) of either ln(measured seconds) ("direct") or ln(measured / analytic estimate)
("residual": a correction of the analytic host model, whose estimate then breaks the ties
of the trees' piecewise-constant output) on the features.  The target, tree depth, minimum
child weight and learning rate are chosen from GRID by 4-fold cross-validation over the
TRAINING workloads only (folds by workload, FNV-1a mod 4; the mean per-program Spearman
rho, a program whose variants all get one estimate counting 0, then the pooled one), never
by the held-out figures.  Then, on the same cross-validated predictions, the weight w
of BLENDS that the analytic estimate gets in the final estimate, exp((1 - w) * e + w *
ln(analytic)), e the model's ln(seconds) (the analytic model also breaks the ties of the
trees' piecewise-constant output).  The model records both in its attributes
``leirc_target`` and ``leirc_blend``; leirc (search/learned.c) computes the same.

Held-out evaluation, split by WORKLOAD (a program's name without its folder, so that a
corpus workload and the zoo's model of the same name fall on the same side): workloads
whose FNV-1a 32-bit hash is 0 mod 5 are held out (bench/costmodel_bench's
--learned-heldout uses the same rule); the model is trained on the others and Spearman's
rank correlation with the measured times is reported on the held-out programs, per
program (variants of one workload: the ranking a search needs) and pooled, beside the
analytic model's on the same programs.  The shipped model (--out) is trained on the
training workloads only, so that the held-out figures stay honest.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict

import numpy as np
import xgboost as xgb

PARAMS = {"objective": "reg:squarederror", "max_depth": 6, "eta": 0.05, "subsample": 1.0,
          "min_child_weight": 2, "nthread": 1, "seed": 0, "verbosity": 0}
ROUNDS = 300
BLENDS = (0.0, 0.25, 0.5, 0.75)
GRID = [(target, depth, mcw, eta) for target in ("direct", "residual") for depth in (3, 4, 6)
        for mcw in (2, 5) for eta in (0.05, 0.1)]
NFEATURES = 56


def fnv1a(text: str) -> int:
    """FNV-1a, 32 bits, of the UTF-8 bytes of ``text``."""
    h = 2166136261
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def workload(program: str) -> str:
    """A program's workload: its name without the folder (level1/, zoo/...)."""
    return program.rsplit("/", 1)[-1]


def held_out(program: str) -> bool:
    """Is the program's workload held out of training?"""
    return fnv1a(workload(program)) % 5 == 0


class Data:
    """Rows of the data files: program, measured seconds, analytic estimate, features."""

    def __init__(self) -> None:
        self.program: list[str] = []
        self.measured: list[float] = []
        self.analytic: list[float] = []
        self.features: list[list[float]] = []

    def load(self, path: str) -> None:
        """Append the rows of ``path`` (lines without a full feature vector are skipped)."""
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                cols = line.rstrip("\n").split("\t")
                if len(cols) != 5 + NFEATURES:
                    continue
                t = float(cols[2])
                if not t > 0:
                    continue
                self.program.append(cols[0])
                self.measured.append(t)
                self.analytic.append(float(cols[3]))
                self.features.append([float(x) for x in cols[5:]])

    def select(self, keep: list[bool]) -> "Data":
        """The rows where ``keep`` is true."""
        d = Data()
        for i, k in enumerate(keep):
            if k:
                d.program.append(self.program[i])
                d.measured.append(self.measured[i])
                d.analytic.append(self.analytic[i])
                d.features.append(self.features[i])
        return d

    def matrix(self, target: str = "direct") -> xgb.DMatrix:
        """The features as a DMatrix labelled with ln(measured seconds), less
        ln(analytic seconds) for the "residual" target."""
        y = np.log(np.array(self.measured))
        if target == "residual":
            y = y - np.log(np.array(self.analytic))
        return xgb.DMatrix(np.array(self.features, dtype=np.float32), label=y)

    def offset(self, target: str) -> np.ndarray:
        """What a model of ``target`` adds to its prediction: ln(analytic) or 0."""
        if target == "residual":
            return np.log(np.array(self.analytic))
        return np.zeros(len(self.measured))


def ranks(v: list[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(v)), key=lambda i: (v[i], i))
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = 0.5 * (i + j) + 1
        i = j + 1
    return r


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rho (NaN when either side is constant)."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    sab = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    saa = sum((x - ma) ** 2 for x in ra)
    sbb = sum((y - mb) ** 2 for y in rb)
    return sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else float("nan")


def scores(d: Data, pred: list[float]) -> tuple[float, float]:
    """Mean per-program Spearman rho (programs of 3+ variants) and the pooled rho."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(d.program):
        groups[p].append(i)
    rl = []
    for rows in groups.values():
        if len(rows) >= 3:
            x = spearman([d.measured[i] for i in rows], [pred[i] for i in rows])
            rl.append(0.0 if math.isnan(x) else x)
    return (float(np.mean(rl)) if rl else 0.0), spearman(d.measured, pred)


def params_of(target: str, depth: int, mcw: int, eta: float) -> dict:
    """PARAMS with a grid point's depth, minimum child weight and learning rate."""
    del target
    p = dict(PARAMS)
    p.update(max_depth=depth, min_child_weight=mcw, eta=eta)
    return p


def predict(b: xgb.Booster, d: Data, target: str) -> list[float]:
    """ln(seconds) estimates of d's rows by b, a model of ``target``."""
    return [float(x) for x in b.predict(d.matrix(target)) + d.offset(target)]


def choose(train: Data) -> tuple:
    """The GRID point with the best 4-fold (by workload) cross-validated scores, and
    its cross-validated predictions."""
    fold = [fnv1a(workload(p)) // 5 % 4 for p in train.program]
    best, best_score, best_pred = GRID[0], (-2.0, -2.0), []
    for g in GRID:
        pred = [0.0] * len(train.program)
        for k in range(4):
            fit = train.select([f != k for f in fold])
            rows = [i for i, f in enumerate(fold) if f == k]
            held = train.select([f == k for f in fold])
            b = xgb.train(params_of(*g), fit.matrix(g[0]), num_boost_round=ROUNDS)
            for i, y in zip(rows, predict(b, held, g[0])):
                pred[i] = y
        s = scores(train, pred)
        print(f"  cv {g[0]} depth {g[1]} min_child_weight {g[2]} eta {g[3]}: per program {s[0]:.3f}, "
              f"pooled {s[1]:.3f}")
        if s > best_score:
            best, best_score, best_pred = g, s, pred
    print(f"chosen: {best[0]}, depth {best[1]}, min_child_weight {best[2]}, eta {best[3]}")
    return best, best_pred


def blend(d: Data, pred: list[float], w: float) -> list[float]:
    """(1 - w) * pred + w * ln(analytic), row by row."""
    return [(1 - w) * p + w * math.log(a) for p, a in zip(pred, d.analytic)]


def choose_blend(train: Data, pred: list[float]) -> float:
    """The weight of BLENDS with the best cross-validated scores."""
    best, best_score = BLENDS[0], (-2.0, -2.0)
    for w in BLENDS:
        s = scores(train, blend(train, pred, w))
        print(f"  cv blend {w}: per program {s[0]:.3f}, pooled {s[1]:.3f}")
        if s > best_score:
            best, best_score = w, s
    print(f"chosen: blend {best}")
    return best


def report(name: str, d: Data, pred: list[float]) -> None:
    """Per-program and pooled Spearman of ``pred`` and of the analytic model."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(d.program):
        groups[p].append(i)
    rl, ra = [], []
    for rows in groups.values():
        if len(rows) < 3:
            continue
        m = [d.measured[i] for i in rows]
        x = spearman(m, [pred[i] for i in rows])
        y = spearman(m, [d.analytic[i] for i in rows])
        rl.append(0.0 if math.isnan(x) else x)  # one estimate for all: ranks nothing
        ra.append(0.0 if math.isnan(y) else y)
    print(f"{name}: {len(d.program)} variants of {len(groups)} programs "
          f"({len({workload(p) for p in d.program})} workloads)")
    if rl:
        print(f"  per program ({len(rl)} with 3+ variants): mean rho learned {np.mean(rl):.3f}, "
              f"analytic {np.mean(ra):.3f}; median learned {np.median(rl):.3f}, "
              f"analytic {np.median(ra):.3f}")
    print(f"  pooled: rho learned {spearman(d.measured, pred):.3f}, "
          f"analytic {spearman(d.measured, d.analytic):.3f}")


def main(argv: list[str]) -> int:
    """Entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", help="write the model (XGBoost JSON) here")
    args = ap.parse_args(argv)
    data = Data()
    for path in args.data:
        data.load(path)
    if not data.program:
        print("train.py: no rows with features", file=sys.stderr)
        return 1
    test_rows = [held_out(p) for p in data.program]
    train, test = data.select([not k for k in test_rows]), data.select(test_rows)
    g, cv_pred = choose(train)
    w = choose_blend(train, cv_pred)
    booster = xgb.train(params_of(*g), train.matrix(g[0]), num_boost_round=ROUNDS)
    booster.set_attr(leirc_target=g[0], leirc_blend=repr(w))
    report("training workloads", train, blend(train, predict(booster, train, g[0]), w))
    if test.program:
        report("held-out workloads", test, blend(test, predict(booster, test, g[0]), w))
    if args.out:
        booster.save_model(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
