#!/usr/bin/env python3
"""A cost-model-greedy policy for `leirc --tune --policy=CMD` (leirc(1),
POLICY PROTOCOL): the candidates whose cost-model estimate beats the
current program's, cheapest first (score = minus the estimate, ties by
spelling); none, so the search stops here, when no candidate beats it.
Standard library only.

    leirc --tune=policy --policy='python3 greedy_cost_policy.py' --cost=model prog.leir
"""

import json
import sys


def main() -> int:
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "done":
            break
        here = msg.get("estimate")
        better = [c for c in msg["candidates"] if c["estimate"] is not None
                  and (here is None or c["estimate"] < here)]
        better.sort(key=lambda c: (c["estimate"], c["spelling"]))
        print(json.dumps({"choices": [{"spelling": c["spelling"], "score": -c["estimate"]} for c in better]}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
