#!/usr/bin/env python3
"""An evaluation file for ``leirc --eval`` from the corpus's reference steps.

    eval_file.py CORPUS N

Prints N JSON lines taken at a fixed stride from CORPUS/transforms.jsonl.gz:
``id`` (the record's index there), ``before``, ``strategy``, ``after`` (the
reference's own after, as a "prediction") and ``decls`` (the workload's
sidecar, SPEC 8.2).  Used by bench/steps_jit_bench.sh and
bench/eval_legality.sh, so that both score the same records.
"""
import gzip
import json
import sys


def main() -> None:
    corpus, n = sys.argv[1], int(sys.argv[2])
    with gzip.open(corpus + "/transforms.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    stride = max(1, len(rows) // n)
    for k, r in enumerate(rows[::stride][:n]):
        with open("%s/programs/%s/%s.decls.json" % (corpus, r["level"], r["workload"])) as f:
            decls = json.load(f)
        print(json.dumps({"id": k * stride, "before": r["before"], "strategy": r["strategy"],
                          "after": r["after"], "decls": decls}))


if __name__ == "__main__":
    main()
