#!/usr/bin/python3
"""ptxas_bench.py -- how long `ptxas -arch=sm_90` takes on the PTX of every
one-step candidate of the corpus programs (issue 41, item 7).

For every corpus program (programs/*/*.leir with its .decls.json) it lists
the one-step candidates (`leirc --list-applicable`), writes the PTX of each
(`leirc -O SPELLING --emit=ptx`) and times ptxas on it, with a per-call
timeout (counted, not dropped).  It prints the distribution of ptxas's wall
time (count, median, p90, p99, max; CPU time too) and the slowest
candidates with their spelling.

The whole corpus is about 10^5 candidates; --budget SECONDS stops early and
the summary says which fraction was measured.  The order puts first what
makes the largest PTX: the strategies that grow code (loop_unrolling,
loop_vectorization: the code generator unrolls U and V loops) over every
program, largest plain PTX first, then the other strategies round robin
over the programs (largest first), so that an early stop still covers
every strategy and program.  --strategies limits it to some strategies.

--results F.tsv writes one line per candidate as it is measured (a run
that is stopped keeps what it measured); --resume with it reads F.tsv
first, skips the candidates it holds and appends the others, and the
summary covers them all: the whole corpus takes hours of ptxas on two CPUs,
so it can be measured over several runs of the same code generator (the
file starts with leirc's version and a digest of the plain PTX of every
program; --resume refuses a file whose first line differs).

--by-program SUMMARY.tsv measures the corpus program by program (in name
order, every candidate of a program before the next program) and, when a
program's candidates are all measured, writes one line for it to
SUMMARY.tsv: the commit of the sources, a digest of the program's plain PTX,
counts, the slowest candidate, counts over 1 s by strategy and a histogram
of ptxas's wall time in 10 ms steps.  A later run skips the programs that
SUMMARY.tsv holds for the same plain PTX and keeps the lines of programs
that --corpus does not hold (a run over a part of the corpus adds to the
file), so the summary, small enough to commit (bench/ptxas-programs.tsv),
carries the measurement of the whole corpus over several sessions; with
--results/--resume a program stopped half way goes on where it stopped.
--report SUMMARY.tsv prints the distribution over the programs it holds
(exact counts and maximum, quantiles to 10 ms), the commits that measured
them and the programs left, and measures nothing.

--sample N measures N candidates drawn uniformly (without replacement,
random.Random(--seed), default 1) from all of them instead: an unbiased
estimate of the whole distribution when the whole does not fit in the time
there is.  The summary then adds a 95% upper confidence bound on the share
of all candidates over 10 s (exact for none seen: 1 - 0.05^(1/N); Wilson's
otherwise).

Usage (from the build tree):
  /usr/bin/python3 ../bench/ptxas_bench.py [--leirc ./leirc] [--corpus DIR]
      [--budget S] [--timeout 60] [-j 2] [--strategies a,b] [--results F.tsv]
      [--sample N [--seed S]] [--resume] [--by-program SUMMARY.tsv]
  /usr/bin/python3 ../bench/ptxas_bench.py --report SUMMARY.tsv
Also `make bench-ptxas` (BENCH_PTXAS_FLAGS=...).
"""
import argparse
import glob
import hashlib
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

GROWING = ("loop_unrolling", "loop_vectorization")


def run_timed(cmd, timeout):
    """(status, wall seconds, cpu seconds, stderr); status 'timeout' when killed."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    killed = []

    def kill():
        killed.append(1)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    timer.cancel()
    wall = time.monotonic() - t0
    cpu = ru.ru_utime + ru.ru_stime
    if killed:
        return "timeout", wall, cpu, err
    return ("ok" if p.returncode == 0 else "fail"), wall, cpu, err.decode(errors="replace")


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(round(q * (len(xs) - 1)))))
    return xs[k]


SUMMARY_HEAD = ("# ptxas_bench.py --by-program: `ptxas -arch=sm_90` wall seconds over the one-step candidates "
                "of one corpus program a line; hist_*: 'v:n' = n candidates took v*10 ms (rounded)\n")
SUMMARY_COLS = ["program", "commit", "plain_ptx", "date", "candidates", "emitted", "refused", "ptxas_ok",
                "ptxas_fail", "timeouts", "max_s", "slowest", "over_1s", "over_10s", "over_1s_by_strategy",
                "hist_all", "hist_growing"]


def hist_text(walls):
    """'v:n,...' for the walls rounded to 10 ms, ascending; '-' for none."""
    h = {}
    for w in walls:
        v = int(round(w * 100))
        h[v] = h.get(v, 0) + 1
    return ",".join(f"{v}:{n}" for v, n in sorted(h.items())) or "-"


def hist_parse(text, into):
    """Adds the counts of a hist_text string to the dict into (10 ms steps -> count)."""
    if text == "-":
        return
    for item in text.split(","):
        v, n = item.split(":")
        into[int(v)] = into.get(int(v), 0) + int(n)


def hist_quantile(h, q):
    """The q-quantile, in seconds, of a histogram in 10 ms steps (the nearest rank, as quantile())."""
    n = sum(h.values())
    if not n:
        return float("nan")
    k = max(0, min(n - 1, int(round(q * (n - 1)))))
    for v in sorted(h):
        if k < h[v]:
            return v / 100
        k -= h[v]
    return max(h) / 100


def read_summary(path):
    """{program: {column: text}} from a --by-program file; {} when there is none."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) < 2 or lines[0] + "\n" != SUMMARY_HEAD or lines[1].split("\t") != SUMMARY_COLS:
        sys.exit(f"ptxas_bench: {path} is not a --by-program summary of this script")
    rows = {}
    for ln in lines[2:]:
        c = ln.split("\t")
        if len(c) != len(SUMMARY_COLS):
            sys.exit(f"ptxas_bench: {path}: a line with {len(c)} columns, not {len(SUMMARY_COLS)}: {ln[:60]}")
        rows[c[0]] = dict(zip(SUMMARY_COLS, c))
    return rows


def write_summary(path, rows):
    """Writes the rows sorted by program, through a temporary file (a stopped run leaves a whole file)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(SUMMARY_HEAD + "\t".join(SUMMARY_COLS) + "\n")
        for prog in sorted(rows):
            f.write("\t".join(rows[prog][k] for k in SUMMARY_COLS) + "\n")
    os.replace(tmp, path)


def summary_row(prog, commit, plain, rows):
    """The summary line of one program from its candidates' result rows."""
    timed = [r for r in rows if r["ptxas"] in ("ok", "timeout")]
    walls = [r["wall"] for r in timed]
    slow = max(timed, key=lambda r: r["wall"], default=None)
    fam = {}
    for r in timed:
        if r["wall"] > 1:
            f = r["spelling"].split("(")[0]
            fam[f] = fam.get(f, 0) + 1
    return {"program": prog, "commit": commit, "plain_ptx": plain,
            "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), "candidates": str(len(rows)),
            "emitted": str(sum(r["emit"] == "ok" for r in rows)),
            "refused": str(sum(r["emit"] != "ok" for r in rows)),
            "ptxas_ok": str(sum(r["ptxas"] == "ok" for r in rows)),
            "ptxas_fail": str(sum(r["ptxas"] == "fail" for r in rows)),
            "timeouts": str(sum(r["ptxas"] == "timeout" or r["emit"] == "timeout" for r in rows)),
            "max_s": f"{slow['wall']:.3f}" if slow else "-", "slowest": slow["spelling"] if slow else "-",
            "over_1s": str(sum(w > 1 for w in walls)), "over_10s": str(sum(w > 10 for w in walls)),
            "over_1s_by_strategy": ",".join(f"{k}:{v}" for k, v in sorted(fam.items())) or "-",
            "hist_all": hist_text(walls),
            "hist_growing": hist_text(r["wall"] for r in timed if r["spelling"].split("(")[0] in GROWING)}


def report(path, corpus):
    """Prints the distribution over the programs of a --by-program summary; 1 when a call passed 10 s, timed
    out or ptxas failed."""
    rows = read_summary(path)
    if not rows:
        sys.exit(f"ptxas_bench: {path}: no programs")
    progs = sorted(os.path.relpath(p, os.path.join(corpus, "programs"))[:-5]
                   for p in glob.glob(os.path.join(corpus, "programs", "*", "*.leir")))
    left = [p for p in progs if p not in rows]
    col = {k: sum(int(r[k]) for r in rows.values()) for k in
           ("candidates", "emitted", "refused", "ptxas_ok", "ptxas_fail", "timeouts", "over_1s", "over_10s")}
    commits = sorted({r["commit"] for r in rows.values()})
    dates = sorted(r["date"] for r in rows.values())
    print(f"{path}: {len(rows)} programs" + (f" of the corpus's {len(progs)}" if progs else "")
          + f", {col['candidates']} one-step candidates; measured {dates[0]} to {dates[-1]} "
          f"at {', '.join(commits)}")
    print(f"leirc: {col['emitted']} PTX written, {col['refused']} not (an error or a timeout); ptxas: "
          f"{col['ptxas_ok']} ok, {col['ptxas_fail']} failed; calls timed out (leirc or ptxas): {col['timeouts']}")
    hall, hgrow = {}, {}
    for r in rows.values():
        hist_parse(r["hist_all"], hall)
        hist_parse(r["hist_growing"], hgrow)
    hrest = {v: n - hgrow.get(v, 0) for v, n in hall.items() if n - hgrow.get(v, 0)}
    fam = {}
    for r in rows.values():
        if r["over_1s_by_strategy"] != "-":
            for item in r["over_1s_by_strategy"].split(","):
                f, n = item.split(":")
                fam[f] = fam.get(f, 0) + int(n)
    slow = max(rows.values(), key=lambda r: float(r["max_s"]) if r["max_s"] != "-" else -1.0)
    print("ptxas wall seconds (quantiles and group maxima to 10 ms; the overall maximum and the counts exact):")
    print("| candidates | n | median | p90 | p99 | max | over 1 s | over 10 s |")
    print("|---|---|---|---|---|---|---|---|")
    ngrow1 = sum(fam.get(g, 0) for g in GROWING)
    for label, h, over1, mx in (("all", hall, col["over_1s"], slow["max_s"]),
                                (f"code-growing ({', '.join(GROWING)})", hgrow, ngrow1, None),
                                ("the others", hrest, col["over_1s"] - ngrow1, None)):
        n = sum(h.values())
        over10 = col["over_10s"] if mx else sum(c for v, c in h.items() if v > 1000)
        mxs = mx if mx else (f"{max(h) / 100:.2f}" if h else "-")
        print(f"| {label} | {n} | {hist_quantile(h, .5):.2f} | {hist_quantile(h, .9):.2f} | "
              f"{hist_quantile(h, .99):.2f} | {mxs} | {over1} | {over10} |")
    print("over 1 s by strategy: " + (", ".join(f"{k} {v}" for k, v in sorted(fam.items(), key=lambda x: -x[1]))
                                      or "none"))
    if slow["max_s"] != "-":
        print(f"slowest: {slow['max_s']} s, {slow['program']} {slow['slowest']}")
    if left:
        print(f"programs left: {len(left)} ({', '.join(left[:5])}{', ...' if len(left) > 5 else ''})")
    return 1 if col["over_10s"] or col["timeouts"] or col["ptxas_fail"] else 0


def source_commit(where, summary):
    """The commit of the sources (12 digits), '-dirty' when tracked files other than the summary file being
    written differ from it; '-' outside a git checkout."""
    git = ["git", "-C", where]
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0 or not head.stdout.strip():
        return "-"
    top = subprocess.run(git + ["rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    pathspec = [":/"]
    if summary and top and os.path.abspath(summary).startswith(top + os.sep):
        pathspec.append(":(exclude,top)" + os.path.relpath(os.path.abspath(summary), top))
    dirty = subprocess.run(git + ["diff", "--quiet", "HEAD", "--"] + pathspec, capture_output=True).returncode
    return head.stdout.strip() + ("-dirty" if dirty else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--leirc", default="./leirc")
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--corpus", default=os.environ.get("LEIR_CORPUS", "../../shared/corpus"))
    ap.add_argument("--budget", type=float, default=0, help="stop starting new candidates after S seconds (0: none)")
    ap.add_argument("--timeout", type=float, default=60, help="per call (leirc, ptxas)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--strategies", default="", help="comma-separated; default all")
    ap.add_argument("--results", default="", help="write one TSV line per candidate, as measured")
    ap.add_argument("--resume", action="store_true", help="with --results: skip and count its candidates")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--sample", type=int, default=0, help="measure N candidates drawn uniformly (0: all, in order)")
    ap.add_argument("--seed", type=int, default=1, help="the draw of --sample")
    ap.add_argument("--by-program", default="", metavar="SUMMARY.tsv",
                    help="program by program; one line per finished program (skips those it holds)")
    ap.add_argument("--report", default="", metavar="SUMMARY.tsv",
                    help="print the distribution over a --by-program summary; measure nothing")
    a = ap.parse_args()
    if a.resume and not a.results:
        ap.error("--resume needs --results F.tsv")
    if a.report:
        return report(a.report, a.corpus)
    if a.by_program and (a.sample or a.strategies):
        ap.error("--by-program measures every candidate of a program: not with --sample or --strategies")

    progs = sorted(glob.glob(os.path.join(a.corpus, "programs", "*", "*.leir")))
    if not progs:
        sys.exit(f"ptxas_bench: no programs under {a.corpus}/programs")
    only = set(s for s in a.strategies.split(",") if s)
    tmp = tempfile.mkdtemp(prefix="ptxas_bench.")
    t_start = time.monotonic()

    def decls(p):
        return p[:-5] + ".decls.json"

    def name(p):
        return os.path.relpath(p, os.path.join(a.corpus, "programs"))[:-5]

    # the candidates and each program's plain PTX size
    cands, base, pdig = {}, {}, {}
    plain = hashlib.sha256()  # the plain PTX of every program: which code generator made the rows
    for p in progs:
        r = subprocess.run([a.leirc, "--decls", decls(p), "--list-applicable", p], capture_output=True, text=True)
        sp = [s for s in r.stdout.splitlines() if s and (not only or s.split("(")[0] in only)]
        cands[p] = sp
        out = os.path.join(tmp, "base.ptx")
        r = subprocess.run([a.leirc, "--decls", decls(p), "--emit=ptx", "-o", out, p], capture_output=True)
        base[p] = os.path.getsize(out) if r.returncode == 0 and os.path.exists(out) else 0
        pdig[p] = "-"
        if base[p]:
            with open(out, "rb") as f:
                data = f.read()
            plain.update(name(p).encode() + b"\0" + data)
            pdig[p] = hashlib.sha256(data).hexdigest()[:16]
    total = sum(len(v) for v in cands.values())
    order = sorted(progs, key=lambda p: (-base[p], p))
    work = []
    for p in order:
        work += [(p, s) for s in cands[p] if s.split("(")[0] in GROWING]
    rest = {p: [s for s in cands[p] if s.split("(")[0] not in GROWING] for p in order}
    # round robin: the i-th candidate of each program, strategies interleaved
    for p in order:
        by = {}
        for s in rest[p]:
            by.setdefault(s.split("(")[0], []).append(s)
        inter = []
        lists = [by[k] for k in sorted(by)]
        for i in range(max((len(x) for x in lists), default=0)):
            inter += [x[i] for x in lists if i < len(x)]
        rest[p] = inter
    for i in range(max((len(v) for v in rest.values()), default=0)):
        work += [(p, rest[p][i]) for p in order if i < len(rest[p])]
    summary, todo = {}, {}
    if a.by_program:
        summary = read_summary(a.by_program)
        # a line whose program is in the corpus with other plain PTX is measured again; a line of a program this
        # corpus does not hold (--corpus naming a part of it) stays
        stale = [name(p) for p in progs if name(p) in summary and summary[name(p)]["plain_ptx"] != pdig[p]]
        for k in stale:
            del summary[k]
        work = [(p, s) for p in progs if name(p) not in summary for s in cands[p]]
        todo = {name(p): p for p in progs if name(p) not in summary}
        print(f"ptxas_bench: {len(summary)} programs measured before ({a.by_program}), {len(todo)} to go"
              + (f"; {len(stale)} to measure again (their plain PTX changed)" if stale else ""), flush=True)
    commit = source_commit(os.path.dirname(os.path.abspath(__file__)), a.by_program)
    if a.sample:
        every = sorted(((p, s) for p in progs for s in cands[p]), key=lambda w: (name(w[0]), w[1]))
        work = random.Random(a.seed).sample(every, min(a.sample, len(every)))
        print(f"ptxas_bench: a uniform sample of {len(work)} (seed {a.seed})", flush=True)
    print(f"ptxas_bench: {len(progs)} programs, {total} one-step candidates; "
          f"listing took {time.monotonic() - t_start:.0f} s", flush=True)

    lock = threading.Lock()
    results = []
    stop = threading.Event()
    head = "program\tspelling\temit\tptx_lines\tptx_bytes\tptxas\twall_s\tcpu_s\n"
    version = subprocess.run([a.leirc, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    version = (f"# {version[0] if version else 'leirc ?'}; plain PTX of the {len(progs)} programs "
               f"sha256 {plain.hexdigest()[:16]}\n")
    out = None
    if a.results:
        if a.resume and os.path.exists(a.results):
            with open(a.results) as f:
                lines = f.readlines()
            if lines[:2] != [version, head]:
                sys.exit(f"ptxas_bench: {a.results} is not a results file of this leirc ({version.strip()})")
            known = {name(p): p for p in progs}
            for ln in lines[2:]:
                c = ln.rstrip("\n").split("\t")
                if len(c) != 8 or c[0] not in known:
                    continue
                results.append({"prog": c[0], "spelling": c[1], "emit": c[2], "ptx_lines": int(c[3]),
                                "ptx_bytes": int(c[4]), "ptxas": c[5], "wall": float(c[6]), "cpu": float(c[7])})
            done = {(r["prog"], r["spelling"]) for r in results}
            work = [(p, s) for (p, s) in work if (name(p), s) not in done]
            results = [r for r in results if not todo or r["prog"] in todo]
            print(f"ptxas_bench: {len(results)} candidates measured before ({a.results}), {len(work)} to go",
                  flush=True)
            out = open(a.results, "a")
        else:
            out = open(a.results, "w")
            out.write(version + head)
            out.flush()

    lost = []  # (program, spelling, exception): not measured, not written (a resume retries them)

    def finish(prog):
        """With --by-program: writes prog's summary line once all its candidates are measured (lock held)."""
        p = todo.get(prog)
        if p is None:
            return
        rows = byprog.get(prog, [])
        if len(rows) < len(cands[p]):
            return
        summary[prog] = summary_row(prog, commit, pdig[p], rows)
        write_summary(a.by_program, summary)
        del todo[prog]
        print(f"  {prog}: {len(rows)} candidates, max {summary[prog]['max_s']} s "
              f"({len(summary)} programs done, {len(todo)} to go)", flush=True)

    byprog = {}
    for r in results:
        byprog.setdefault(r["prog"], []).append(r)
    if a.by_program:
        for prog in list(todo):
            finish(prog)  # all its candidates in the --resume file

    def one(k, p, s):
        if stop.is_set() or (a.budget and time.monotonic() - t_start > a.budget):
            stop.set()
            return
        try:
            measure(k, p, s)
        except Exception as ex:  # noqa: BLE001 -- a worker's exception would vanish in its future
            with lock:
                lost.append((name(p), s, f"{type(ex).__name__}: {ex}"))

    def measure(k, p, s):
        ptx = os.path.join(tmp, f"c{k}.ptx")
        st, ew, ec, err = run_timed([a.leirc, "--decls", decls(p), "-O", s, "--emit=ptx", "-o", ptx, p], a.timeout)
        row = {"prog": name(p), "spelling": s, "emit": st, "emit_wall": ew, "ptx_bytes": 0, "ptx_lines": 0,
               "ptxas": "-", "wall": float("nan"), "cpu": float("nan")}
        if st == "ok":
            with open(ptx, "rb") as f:
                data = f.read()
            row["ptx_bytes"], row["ptx_lines"] = len(data), data.count(b"\n")
            st2, w, c, err = run_timed([a.ptxas, "-arch=sm_90", ptx, "-o", os.devnull], a.timeout)
            row.update(ptxas=st2, wall=w, cpu=c)
            if st2 == "fail":
                row["err"] = err.strip().splitlines()[:1]
        if os.path.exists(ptx):
            os.unlink(ptx)
        with lock:
            results.append(row)
            byprog.setdefault(row["prog"], []).append(row)
            if out:
                out.write(f"{row['prog']}\t{row['spelling']}\t{row['emit']}\t{row['ptx_lines']}\t"
                          f"{row['ptx_bytes']}\t{row['ptxas']}\t{row['wall']:.3f}\t{row['cpu']:.3f}\n")
                out.flush()
            finish(row["prog"])
            n = len(results)
            if n % 200 == 0:
                print(f"  {n} measured, {time.monotonic() - t_start:.0f} s", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for k, (p, s) in enumerate(work):
            ex.submit(one, k, p, s)
    elapsed = time.monotonic() - t_start
    try:
        if os.path.exists(os.path.join(tmp, "base.ptx")):
            os.unlink(os.path.join(tmp, "base.ptx"))
        os.rmdir(tmp)
    except OSError:
        pass

    if out:
        out.close()
    timed = [r for r in results if r["ptxas"] in ("ok", "timeout")]
    walls = [r["wall"] for r in timed]
    cpus = [r["cpu"] for r in timed]
    grow = [r for r in timed if r["spelling"].split("(")[0] in GROWING]
    ngrow = sum(1 for p in progs for s in cands[p] if s.split("(")[0] in GROWING)
    print(f"measured {len(results)} of {total} candidates ({100.0 * len(results) / max(total, 1):.1f}%), "
          f"{len(grow)} of {ngrow} code-growing ({', '.join(GROWING)}); {elapsed:.0f} s, -j {a.jobs}")
    print(f"leirc: {sum(r['emit'] == 'ok' for r in results)} PTX written, "
          f"{sum(r['emit'] == 'fail' for r in results)} refused (an error), "
          f"{sum(r['emit'] == 'timeout' for r in results)} timed out (> {a.timeout:g} s)")
    print(f"ptxas: {sum(r['ptxas'] == 'ok' for r in results)} ok, {sum(r['ptxas'] == 'fail' for r in results)} failed, "
          f"{sum(r['ptxas'] == 'timeout' for r in results)} timed out (> {a.timeout:g} s)")
    if walls:
        print(f"ptxas wall s: count {len(walls)}  median {statistics.median(walls):.3f}  p90 {quantile(walls, .9):.3f}  "
              f"p99 {quantile(walls, .99):.3f}  max {max(walls):.3f}")
        print(f"ptxas cpu  s: median {statistics.median(cpus):.3f}  p90 {quantile(cpus, .9):.3f}  "
              f"p99 {quantile(cpus, .99):.3f}  max {max(cpus):.3f}")
        over = sum(w > 10 for w in walls)
        print(f"over 10 s: {over}")
        if a.sample:
            n = len(walls)
            if over == 0:
                ub = 1 - 0.05 ** (1 / n)
            else:
                z, ph = 1.645, over / n  # one-sided 95%
                ub = (ph + z * z / (2 * n) + z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n))) / (1 + z * z / n)
            print(f"share of all {total} candidates over 10 s: at most {100 * ub:.2f}% (95% upper bound, "
                  f"{over} of {n} sampled)")
        lines = [r["ptx_lines"] for r in timed]
        print(f"PTX lines: median {statistics.median(lines):.0f}  p99 {quantile(lines, .99):.0f}  max {max(lines)}")
        print(f"slowest {a.top}:")
        for r in sorted(timed, key=lambda r: -r["wall"])[:a.top]:
            print(f"  {r['wall']:8.3f} s wall {r['cpu']:8.3f} s cpu {r['ptx_lines']:7d} lines  "
                  f"{r['ptxas']:7s} {r['prog']}  {r['spelling']}")
    for r in results:
        if r["ptxas"] == "fail":
            print(f"ptxas failed: {r['prog']} {r['spelling']}: {r.get('err')}")
    if lost:
        print(f"not measured: {len(lost)} candidates (an error in this script; a --resume retries them), e.g.:")
        for prog, sp, ex in lost[:5]:
            print(f"  {prog} {sp}: {ex}")
        return 1
    return 1 if any(r["ptxas"] == "timeout" or (r["wall"] == r["wall"] and r["wall"] > 10) for r in timed) else 0


if __name__ == "__main__":
    sys.exit(main())
