#!/usr/bin/env python3
"""An evaluation file for ``leirc --eval`` from the corpus's reference steps.

    eval_file.py CORPUS N [grouped]

Prints N JSON lines taken at a fixed stride from CORPUS/transforms.jsonl.gz:
``id`` (the record's index there), ``before``, ``strategy``, ``after`` (the
reference's own after, as a "prediction") and ``decls`` (the workload's
sidecar, SPEC 8.2).  Used by bench/steps_jit_bench.sh and
bench/eval_legality.sh, so that both score the same records.  With
``grouped``, the records come in groups that share their ``before`` (as a
model's predictions for one program do): the first four records of each
of the distinct programs before taken at a fixed stride among those with
four or more records (small and big ones), in the file's order, until N.
"""
import gzip
import json
import sys


def main() -> None:
    corpus, n = sys.argv[1], int(sys.argv[2])
    with gzip.open(corpus + "/transforms.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    if len(sys.argv) > 3 and sys.argv[3] == "grouped":
        picked = grouped(rows, n)
    else:
        stride = max(1, len(rows) // n)
        picked = list(range(len(rows)))[::stride][:n]
    for k in picked:
        r = rows[k]
        with open("%s/programs/%s/%s.decls.json" % (corpus, r["level"], r["workload"])) as f:
            decls = json.load(f)
        print(json.dumps({"id": k, "before": r["before"], "strategy": r["strategy"],
                          "after": r["after"], "decls": decls}))


def grouped(rows: list, n: int) -> list:
    """The indices of N records in groups of one ``before`` each."""
    by: dict = {}
    for k, r in enumerate(rows):
        by.setdefault(r["before"], []).append(k)
    groups = [g for g in by.values() if len(g) >= 4]
    out: list = []
    stride = max(1, len(groups) // max(1, (n + 3) // 4))
    for g in groups[::stride]:
        out.extend(g[:min(4, n - len(out))])
        if len(out) >= n:
            break
    return out


if __name__ == "__main__":
    main()
