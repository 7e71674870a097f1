#!/usr/bin/env python3
"""A cost-model-greedy policy for `leirc --tune --policy=CMD` (leirc(1),
POLICY PROTOCOL): the candidates whose cost-model estimate beats the
current program's, cheapest first (score = minus the estimate, ties in
the order leirc sends them, the pass manager's canonical order, as
--tune=greedy breaks them); none, so the search stops here, when no candidate beats it.
A candidate's estimate is the better of its own and its lookahead
estimate (the program at the end of the loop_reorder steps leirc takes
after it, as --tune=greedy ranks them), when leirc sends one.
Standard library only.

    leirc --tune=policy --policy='python3 greedy_cost_policy.py' --cost=model prog.leir
"""

from __future__ import annotations

import json
import sys


def best_estimate(c: dict) -> float | None:
    """The better of the one-step and the lookahead estimate (None: neither)."""
    known = [e for e in (c.get("estimate"), c.get("lookahead_estimate")) if e is not None]
    return min(known) if known else None


def main() -> int:
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "done":
            break
        here = msg.get("estimate")
        est = [best_estimate(c) for c in msg["candidates"]]
        better = [i for i, e in enumerate(est) if e is not None and (here is None or e < here)]
        better.sort(key=lambda i: est[i])  # stable: ties in leirc's (canonical) order
        # the answer is in that order; leirc keeps it among equal scores
        print(json.dumps({"choices": [{"spelling": msg["candidates"][i]["spelling"], "score": -est[i]}
                                      for i in better]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
