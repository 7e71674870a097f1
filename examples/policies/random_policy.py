#!/usr/bin/env python3
"""A random search policy for `leirc --tune --policy=CMD` (leirc(1), POLICY
PROTOCOL): every candidate, in a random order drawn from --seed (the seed
leirc sends, unless given here as the first argument).  Standard library
only.

    leirc --tune=policy --policy='python3 random_policy.py' --cost=model prog.leir
"""

import json
import random
import sys


def main() -> int:
    rng = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "done":
            break
        if rng is None:
            rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else msg.get("seed", 0))
        spellings = [c["spelling"] for c in msg["candidates"]]
        rng.shuffle(spellings)
        print(json.dumps({"choices": spellings}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
