"""leirc-dist: ``leirc --emit-steps``, ``--eval`` and ``--tune`` on a Dask cluster.

    leirc-dist emit-steps -o STEPS.jsonl [OPTIONS] [LEIRC OPTIONS] FILE.leir...
    leirc-dist eval [-o RESULTS.jsonl] [OPTIONS] [LEIRC OPTIONS] PREDICTIONS.jsonl
    leirc-dist tune -o DIR [--trace] [OPTIONS] [LEIRC OPTIONS] FILE.leir...

(also ``python3 -m leir.dist ...``; leirc-dist(1) has the details).  The work
is split into tasks, each one ``leirc`` run on a worker of a
``dask.distributed`` cluster: one program per task for ``emit-steps`` and
``tune``, one range of records per task for ``eval``, submitted largest first.
A task whose ``leirc`` fails (a crash, exit status 2) or whose worker is lost
is run again, up to ``--retries`` times; a task that ``leirc`` refuses with
exit status 1 (a program that does not load) is failed at once, with the
program's number and file in the error, and the run goes on.  The results are
merged so that the output is byte-identical to one ``leirc -j 1`` run.

The workers need only ``leirc`` (``--leirc``, default ``$LEIRC`` or the one on
``PATH``): the tasks carry the programs and records themselves, and this
module travels to the workers by value.  Without ``--scheduler`` a
``LocalCluster`` of ``--workers`` processes is started on this machine,
listening on 127.0.0.1 only.

How the merge stays byte-identical (driver/steps.c, driver/eval.c):

* ``--emit-steps`` numbers the records of all programs in one sequence: a
  program's first id is the number of records selected from the programs
  before it (all its legal candidates, or at most ``--sample`` of them).  A
  task runs ``leirc --list-applicable`` (the same enumeration) for that
  count and ``leirc --emit-steps`` on its program alone; the merge adds the
  offset to each record's ``id`` and sets its ``source`` and ``program``.
  With ``--sample`` the seeded choice depends on the program's position, so
  the program is preceded by that many copies of an empty-handed program
  (one nest, no legal candidate): the position is right and nothing else
  changes.  ``--balance`` needs every program's candidates in one run and is
  refused.
* ``--eval`` numbers records by their position among the non-blank lines; a
  range task gets its records after as many placeholder lines (``0``: not
  an object, scored at once) as records before it, and its placeholder
  results are dropped.  The summary is ``leirc --eval-summary`` of the
  merged results (the same table ``--eval`` prints).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

__all__ = ["main", "DistError", "split_leirc_args", "run_emit_steps", "run_eval", "run_tune"]

PROG = "leirc-dist"

# The worker-side names of a task's files (unlikely in a user's path, so that
# diagnostics can be given the user's names back by replacing them).
IN_NAME = "_leirc_dist_input_.leir"
IN_DECLS = "_leirc_dist_input_.decls.json"
DECLS_NAME = "_leirc_dist_decls_.json"
DUMMY_NAME = "_leirc_dist_empty_.leir"
OUT_NAME = "_leirc_dist_output_"
TRACE_NAME = "_leirc_dist_trace_.jsonl"
RECORDS_NAME = "_leirc_dist_records_.jsonl"

# A program with one nest and no legal candidate (leirc --list-applicable
# prints nothing): it holds a position in --emit-steps's input list.
DUMMY_PROGRAM = b"%in  A : f32[1]\n%out D : f32[1]\n[D^{f32,g}_{0}=A^{f32,g}_{0};];\n"

# leirc's options that take their value as the next argument (driver/main.c).
VALUE_OPTIONS = {
    "-o", "-O", "-j", "--output", "--emit", "--decls", "--input", "--seed", "--seeds", "--tolerance",
    "--output-dir", "--max-steps", "--max-memory", "--emit-steps", "--sample", "--shard", "--jit-max-steps",
    "--dump-before", "--dump-after", "--dump-dir", "--fp-contract", "--gpu-arch", "--target", "--cost",
    "--eval", "--format", "--jobs", "--budget", "--beam-width", "--max-depth", "--trace", "--time-limit",
    "--expand", "--lookahead", "--policy", "--policy-timeout", "--max-programs", "--max-request",
    "--rank-cost", "--cost-model-save", "--vector-bytes",
}

# Options a mode does not offer, and why (the message of the DistError).
UNOFFERED = {
    "tune": {"--cost-model-save": "each program's search refits a learned model of its own on its worker: "
                                  "run leirc --tune itself to keep one"},
}

# leirc's options a mode's tasks set themselves.
REFUSED = {
    "emit-steps": {"-o", "--output", "--emit-steps", "--shard", "-j", "--jobs", "--balance", "--eval",
                   "--tune", "--list-applicable", "--run", "--compare", "--emit"},
    "eval": {"-o", "--output", "--eval", "--shard", "-j", "--jobs", "--eval-summary", "--emit-steps"},
    "tune": {"-o", "--output", "--trace", "-j", "--jobs", "--emit-steps", "--eval", "--run", "--compare"},
}

# What --list-applicable must share with --emit-steps to enumerate the same
# candidates (driver/steps.c, load()); --seed only with -O (it seeds -O's
# choices, and leirc refuses a --seed that nothing uses).
ENUM_OPTIONS = {"-O", "--seed", "--unsafe-math", "--fp-contract", "--max-memory", "--Werror"}

EMIT_SUFFIX = {"leir": ".leir", "ptx": ".ptx", "llvm": ".ll", "asm": ".s", "tir": ".py", "tirx": ".py",
               "cuda": ".cu"}


class DistError(Exception):
    """A usage or setup error (exit status 2)."""


# ------------------------------------------------------------ the worker side


def _set_pdeathsig() -> None:  # pragma: no cover - runs in the child
    """Ends leirc with its worker (Linux): a killed worker leaves no orphan running."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_task(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Runs one task on a worker: writes its files into a fresh folder, runs
    its leirc commands there in order and returns their exit status, output
    and diagnostics and the files named in ``spec["outputs"]`` (None when
    absent).  Never raises for a failing leirc: that is the caller's to judge."""
    import socket
    import subprocess

    tmp = tempfile.mkdtemp(prefix="leirc-dist-", dir=spec.get("tmp"))
    try:
        for name, data in spec["files"].items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        runs = []
        for argv in spec["commands"]:
            try:
                p = subprocess.run([spec["leirc"]] + list(argv), cwd=tmp, stdin=subprocess.DEVNULL,
                                   capture_output=True, preexec_fn=_set_pdeathsig, check=False)
                runs.append({"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
            except OSError as e:
                runs.append({"rc": 127, "stdout": b"", "stderr": f"cannot run {spec['leirc']}: {e}\n".encode()})
            if runs[-1]["rc"] not in (0, 1):
                break
        outputs: Dict[str, Optional[bytes]] = {}
        for name in spec.get("outputs", []):
            path = os.path.join(tmp, name)
            outputs[name] = open(path, "rb").read() if os.path.isfile(path) else None
        return {"runs": runs, "outputs": outputs, "host": socket.gethostname(), "pid": os.getpid()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------ options


def split_leirc_args(args: Sequence[str], mode: str) -> Tuple[List[str], List[str]]:
    """Splits leirc's options from the input files.  Options with a value are
    kept as one ``--name=value`` (or ``-X value`` pair); an option the mode
    sets itself is refused with DistError."""
    opts: List[str] = []
    inputs: List[str] = []
    i = 0
    only_files = False
    while i < len(args):
        a = args[i]
        i += 1
        if only_files or a == "-" or not a.startswith("-"):
            inputs.append(a)
            continue
        if a == "--":
            only_files = True
            continue
        name = a.split("=", 1)[0] if a.startswith("--") else a[:2]
        if name in REFUSED.get(mode, set()):
            raise DistError(f"{mode}: {name} is set by {PROG} itself")
        if name in UNOFFERED.get(mode, {}):
            raise DistError(f"{mode}: {name} is not offered: {UNOFFERED[mode][name]}")
        if name in VALUE_OPTIONS and ("=" not in a if a.startswith("--") else len(a) == 2):
            if i >= len(args):
                raise DistError(f"option '{a}' needs a value")
            a = f"{a}={args[i]}" if a.startswith("--") else a + args[i]
            i += 1
        opts.append(a)
    return opts, inputs


def _opt_name(a: str) -> str:
    return a.split("=", 1)[0] if a.startswith("--") else a[:2]


def _opt_value(a: str) -> str:
    return a.split("=", 1)[1] if a.startswith("--") else a[2:]


def _find_opt(opts: Sequence[str], name: str) -> Optional[str]:
    """The value of the last ``name`` option in opts (None: absent)."""
    found = None
    for a in opts:
        if _opt_name(a) == name:
            found = _opt_value(a) if name in VALUE_OPTIONS else ""
    return found


def _ship_decls(opts: List[str], files: Dict[str, bytes]) -> List[str]:
    """--decls=FILE: its bytes travel with the task as DECLS_NAME."""
    out = []
    for a in opts:
        if _opt_name(a) == "--decls":
            files[DECLS_NAME] = _read(_opt_value(a))
            a = "--decls=" + DECLS_NAME
        out.append(a)
    return out


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise DistError(f"{path}: cannot read: {e.strerror}") from e


def json_string(s: str) -> str:
    """``s`` as jansson writes it (json_dumps without JSON_ENSURE_ASCII)."""
    esc = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(esc.get(c, "\\u%04X" % ord(c) if ord(c) < 0x20 else c) for c in s) + '"'


# ------------------------------------------------------------ the cluster


@dataclass
class Task:
    """One leirc run: ``spec`` for run_task, ``size`` orders the submission."""

    index: int
    label: str
    size: int
    spec: Dict[str, Any]
    attempts: int = 0
    result: Optional[Dict[str, Any]] = None
    error: Optional[str] = None
    failed: bool = False
    extra: Dict[str, Any] = field(default_factory=dict)


class Progress:
    """One progress line on stderr: redrawn in place on a terminal, else
    printed at most every ``every`` seconds and at the end."""

    def __init__(self, what: str, total: int, quiet: bool, every: float = 10.0) -> None:
        self.what, self.total, self.quiet, self.every = what, total, quiet, every
        self.done = self.failed = self.retried = 0
        self.t0 = time.monotonic()
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def line(self) -> str:
        return (f"{PROG}: {self.what}: {self.done}/{self.total} tasks done, {self.failed} failed, "
                f"{self.retried} retried, {time.monotonic() - self.t0:.1f} s")

    def update(self, final: bool = False) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if self.tty:
            sys.stderr.write("\r" + self.line() + ("\n" if final else ""))
        elif final or now - self.last >= self.every:
            sys.stderr.write(self.line() + "\n")
            self.last = now
        sys.stderr.flush()


Judge = Callable[[Task, Dict[str, Any]], str]


class Cluster:
    """A dask.distributed client: on ``address``, or on a LocalCluster of
    ``workers`` processes on 127.0.0.1 started here (and stopped by close())."""

    def __init__(self, address: Optional[str], workers: int, memory_limit: str, tmp: Optional[str]) -> None:
        try:
            import distributed
        except ImportError as e:
            raise DistError("the Python package 'distributed' (Dask) is not installed: "
                            "apt install python3-distributed, or pip install distributed") from e
        import logging

        self.distributed = distributed
        self.local = None
        if address is None:
            import dask

            # the event loops' tick watch (20 ms) and the monitors (0.1, 0.5 s)
            # less often: idle, they took about 7 % of a core (2 workers)
            with dask.config.set({"distributed.admin.tick.interval": "1s",
                                  "distributed.admin.system-monitor.interval": "2s",
                                  "distributed.worker.memory.monitor-interval": "1s"}):
                self.local = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, memory_limit=memory_limit, silence_logs=logging.ERROR,
                    local_directory=tmp)
            address = self.local.scheduler_address
        self.client = distributed.Client(address, set_as_default=False)
        try:  # the workers get this module by value: they need leirc only
            import cloudpickle

            mod = sys.modules[__name__]
            if __name__ != "__main__":
                cloudpickle.register_pickle_by_value(mod)
        except (ImportError, ValueError, AttributeError):
            pass

    def threads(self) -> int:
        """The cluster's worker threads (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def close(self) -> None:
        self.client.close()
        if self.local is not None:
            self.local.close()

    def run(self, tasks: List[Task], judge: Judge, retries: int, progress: Progress) -> None:
        """Runs every task; ``judge(task, result)`` says "ok", "fail" (final:
        task.error set) or "retry".  A task that raised, lost its worker or was
        judged "retry" runs again up to ``retries`` times, then fails."""
        d = self.distributed
        order = sorted(tasks, key=lambda t: (-t.size, t.index))
        live: Dict[Any, Task] = {}

        def submit(t: Task) -> Any:
            t.attempts += 1
            fut = self.client.submit(run_task, t.spec, pure=False, priority=t.size,
                                     key=f"leirc-{progress.what}-{t.index}-{t.attempts}-{os.urandom(4).hex()}")
            live[fut.key] = t
            return fut

        ac = d.as_completed([submit(t) for t in order], loop=self.client.loop)
        for fut in ac:
            t = live.pop(fut.key)
            verdict = "retry"
            if fut.status == "finished":
                try:
                    res = fut.result()
                    verdict = judge(t, res)
                    t.result = res if verdict != "retry" else None
                except Exception as e:  # noqa: BLE001 - a lost worker, a bad result
                    t.error = f"{type(e).__name__}: {e}"
            else:
                try:
                    exc = fut.exception()
                    t.error = f"{type(exc).__name__}: {exc}"
                except Exception as e:  # noqa: BLE001
                    t.error = f"{type(e).__name__}: {e}"
            fut.release()
            if verdict == "retry" and t.attempts <= retries:
                progress.retried += 1
                ac.add(submit(t))
                continue
            if verdict != "ok":
                t.failed = True
                progress.failed += 1
            progress.done += 1
            progress.update()
        progress.update(final=True)


def _describe(res: Dict[str, Any]) -> str:
    """Why a task's last leirc run failed, with its first diagnostics."""
    r = res["runs"][-1]
    rc = r["rc"]
    why = f"leirc killed by signal {-rc}" if rc < 0 else f"leirc exit status {rc}"
    err = r["stderr"].decode("utf-8", "replace").strip().splitlines()
    first = next((ln for ln in err if "error: " in ln), err[0] if err else "")
    return why + (": " + first if first else "")


def _rename(text: bytes, names: Dict[str, str]) -> bytes:
    for a, b in names.items():
        text = text.replace(a.encode(), b.encode())
    return text


# ------------------------------------------------------------ emit-steps

_HEAD = re.compile(rb'\{"id":(\d+),')
_SOURCE = re.compile(rb'"source":("(?:[^"\\]|\\.)*"),"program":(\d+),')


def _rewrite_records(data: bytes, offset: int, source: str, program: int) -> bytes:
    """A task's records with the run's ids, source and program number."""
    out = []
    src = json_string(source).encode()
    for line in data.splitlines(keepends=True):
        m = _HEAD.match(line)
        if not m:
            raise ValueError("a record does not start with its id")
        rest = line[m.end():]
        s = _SOURCE.match(rest)
        if s:
            rest = b'"source":' + src + b',"program":' + str(program).encode() + b"," + rest[s.end():]
        out.append(b'{"id":' + str(int(m.group(1)) + offset).encode() + b"," + rest)
    return b"".join(out)


def run_emit_steps(cluster: Cluster, leirc: str, opts: List[str], inputs: List[str], output: str,
                   retries: int, tmp: Optional[str], quiet: bool) -> int:
    """``leirc --emit-steps=OUTPUT OPTS INPUTS`` over the cluster; the exit status."""
    if not inputs:
        raise DistError("emit-steps: no input file")
    if "-" in inputs:
        raise DistError("emit-steps: reads files, not standard input ('-')")
    sample = _find_opt(opts, "--sample")
    if sample is not None and not sample.isdigit():
        raise DistError(f"emit-steps: --sample={sample}: not a number")
    if sample is not None and _find_opt(opts, "--decls") is not None:
        raise DistError("emit-steps: --sample with --decls is not supported (use leirc --shard=I/N)")
    files_common: Dict[str, bytes] = {}
    opts = _ship_decls(opts, files_common)
    enum_opts = [a for a in opts if _opt_name(a) in ENUM_OPTIONS or _opt_name(a) == "--decls"]
    if not any(_opt_name(a) == "-O" for a in enum_opts):  # --seed seeds -O's choices alone there, and
        enum_opts = [a for a in enum_opts if _opt_name(a) != "--seed"]  # leirc refuses it unused
    tasks = []
    for g, path in enumerate(inputs):
        files = dict(files_common)
        files[IN_NAME] = _read(path)
        side = path[:-5] + ".decls.json" if path.endswith(".leir") and len(path) > 5 else None
        names = {IN_NAME: path, OUT_NAME: output}
        decl_opt: List[str] = []
        if side and os.path.isfile(side):
            files[IN_DECLS] = _read(side)
            names[IN_DECLS] = side
            if _find_opt(opts, "--decls") is None:
                decl_opt = ["--decls=" + IN_DECLS]
        prefix: List[str] = []
        if sample is not None and g > 0:
            files[DUMMY_NAME] = DUMMY_PROGRAM
            prefix = [DUMMY_NAME] * g
        spec = {"leirc": leirc, "tmp": tmp, "files": files, "outputs": [OUT_NAME],
                "commands": [["--list-applicable"] + enum_opts + decl_opt + [IN_NAME],
                             ["--emit-steps=" + OUT_NAME] + opts + ["--"] + prefix + [IN_NAME]]}
        tasks.append(Task(g, f"program {g} ({path})", len(files[IN_NAME]), spec, extra={"names": names}))

    def judge(t: Task, res: Dict[str, Any]) -> str:
        runs = res["runs"]
        if runs and runs[0]["rc"] == 0:  # its count of records, should the task never succeed
            t.extra["ncand"] = _kept(runs[0]["stdout"], sample)
        if len(runs) < 2 or runs[-1]["rc"] not in (0, 1) or res["outputs"].get(OUT_NAME) is None:
            t.error = _describe(res)
            return "retry"
        if runs[0]["rc"] == 1 or runs[1]["rc"] == 1:
            t.error = _rename(_describe(res).encode(), t.extra["names"]).decode()
            return "fail"
        return "ok"

    progress = Progress("emit-steps", len(tasks), quiet)
    cluster.run(tasks, judge, retries, progress)

    rc = 0
    offset = 0
    with _open_out(output) as out:
        for t in tasks:
            if t.result is None:
                _warn(f"{t.label}: failed after {t.attempts} attempts: {t.error}")
                if "ncand" not in t.extra:  # the ids of the programs after it are unknown
                    _warn(f"{output}: incomplete: the records of the programs from {t.index} on are missing")
                    return 2
                _warn(f"{output}: the records of {t.label} are missing")
                offset += t.extra["ncand"]
                rc = 2
                continue
            enum, emit = t.result["runs"][0], t.result["runs"][1]
            names = t.extra["names"]
            sys.stderr.buffer.write(_rename(emit["stderr"], names))
            data = t.result["outputs"][OUT_NAME] or b""
            out.write(_rewrite_records(data, offset, inputs[t.index], t.index))
            if enum["rc"] == 0:
                offset += _kept(enum["stdout"], sample)
            if t.failed:
                _warn(f"{t.label}: failed: {t.error}")
                rc = max(rc, 1)
    return rc


def _kept(listing: bytes, sample: Optional[str]) -> int:
    """The records --emit-steps numbers for a program whose --list-applicable
    printed ``listing``: every legal candidate, or at most --sample of them."""
    n = sum(1 for line in listing.splitlines() if line.strip())
    return min(n, int(sample)) if sample is not None and int(sample) > 0 else n


class _open_out:
    """A binary output file, '-' for standard output."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.f: Any = None

    def __enter__(self) -> Any:
        if self.path == "-":
            self.f = sys.stdout.buffer
        else:
            try:
                self.f = open(self.path, "wb")
            except OSError as e:
                raise DistError(f"{self.path}: cannot write: {e.strerror}") from e
        return self.f

    def __exit__(self, *exc: Any) -> None:
        if self.path == "-":
            self.f.flush()
        else:
            self.f.close()


def _warn(msg: str) -> None:
    sys.stderr.write(f"{PROG}: {msg}\n")
    sys.stderr.flush()


# ------------------------------------------------------------ eval


def _records(data: bytes) -> List[bytes]:
    """The records of an --eval file as leirc counts them: lines (getline) that
    are not blank, without their newline."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln for ln in lines if ln.split(b"\0", 1)[0].strip(b" \t\r\n")]  # leirc stops at a NUL


def run_eval(cluster: Cluster, leirc: str, opts: List[str], inputs: List[str], output: Optional[str],
             retries: int, tmp: Optional[str], quiet: bool, ntasks: Optional[int]) -> int:
    """``leirc --eval=PREDICTIONS OPTS [-o OUTPUT]`` over the cluster; the exit status."""
    if len(inputs) != 1:
        raise DistError("eval: needs exactly one predictions file")
    path = inputs[0]
    recs = _records(sys.stdin.buffer.read() if path == "-" else _read(path))
    n = len(recs)
    if ntasks is None:
        ntasks = max(4 * cluster.threads(), math.ceil(n / 256))
    ntasks = max(1, min(ntasks, n))
    bounds = [n * i // ntasks for i in range(ntasks + 1)]
    files_common: Dict[str, bytes] = {}
    opts = _ship_decls(opts, files_common)
    tasks = []
    for i in range(ntasks):
        a, b = bounds[i], bounds[i + 1]
        body = b"0\n" * a + b"".join(r + b"\n" for r in recs[a:b])
        files = dict(files_common, **{RECORDS_NAME: body})
        spec = {"leirc": leirc, "tmp": tmp, "files": files, "outputs": [OUT_NAME],
                "commands": [["--eval=" + RECORDS_NAME, "-o", OUT_NAME] + opts]}
        tasks.append(Task(i, f"records {a}..{b - 1}", sum(len(r) for r in recs[a:b]), spec,
                          extra={"range": (a, b)}))

    def judge(t: Task, res: Dict[str, Any]) -> str:
        a, b = t.extra["range"]
        data = res["outputs"].get(OUT_NAME)
        lines = data.split(b"\n")[:-1] if data else []
        if res["runs"][-1]["rc"] != 0 or len(lines) != b:
            t.error = _describe(res) if res["runs"][-1]["rc"] != 0 else f"{len(lines)} results for {b} records"
            return "retry"
        t.extra["lines"] = lines[a:]
        return "ok"

    progress = Progress("eval", len(tasks), quiet)
    pending = tasks
    done: List[Task] = []
    while pending:  # a range that fails is split until its bad record stands alone
        cluster.run(pending, judge, retries, progress)
        nxt = []
        for t in pending:
            a, b = t.extra["range"]
            if t.failed and b - a > 1:
                progress.failed -= 1
                progress.total += 1
                m = (a + b) // 2
                for lo, hi in ((a, m), (m, b)):
                    spec = dict(t.spec, files=dict(t.spec["files"], **{
                        RECORDS_NAME: b"0\n" * lo + b"".join(r + b"\n" for r in recs[lo:hi])}))
                    nxt.append(Task(len(tasks) + len(nxt), f"records {lo}..{hi - 1}",
                                    sum(len(r) for r in recs[lo:hi]), spec, extra={"range": (lo, hi)}))
            else:
                done.append(t)
        pending = nxt
    done.sort(key=lambda t: t.extra["range"][0])
    rc = 0
    results: List[bytes] = []
    for t in done:
        a, b = t.extra["range"]
        if t.failed:
            rid = _record_id(recs[a], a)
            _warn(f"record {a} (id {rid}): failed after {t.attempts} attempts: {t.error}")
            rc = 2
            continue
        results.extend(t.extra["lines"])
    merged = b"".join(r + b"\n" for r in results)
    if output is not None:
        with _open_out(output) as out:
            out.write(merged)
    # the summary: leirc --eval-summary of the merged results, run here
    summary_opts = [a for a in opts if _opt_name(a) == "--json"]
    with tempfile.TemporaryDirectory(prefix="leirc-dist-", dir=tmp) as d:
        p = os.path.join(d, "results.jsonl")
        with open(p, "wb") as f:
            f.write(merged)
        import subprocess

        s = subprocess.run([leirc, "--eval-summary"] + summary_opts + [p], capture_output=True, check=False)
    sys.stdout.buffer.write(s.stdout)
    sys.stdout.flush()
    if s.returncode != 0:
        sys.stderr.buffer.write(s.stderr)
        rc = 2
    return rc


def _record_id(rec: bytes, k: int) -> str:
    """A record's id as --eval reports it: its "id", else its number."""
    try:
        obj = json.loads(rec)
        if isinstance(obj, dict) and "id" in obj:
            return json.dumps(obj["id"])
    except ValueError:
        pass
    return str(k)


# ------------------------------------------------------------ tune


def run_tune(cluster: Cluster, leirc: str, opts: List[str], inputs: List[str], outdir: str, trace: bool,
             retries: int, tmp: Optional[str], quiet: bool) -> int:
    """``leirc --tune OPTS FILE -o OUTDIR/NAME`` for every FILE over the
    cluster; the exit status."""
    if not inputs:
        raise DistError("tune: no input file")
    if _find_opt(opts, "--tune") is None:
        opts = ["--tune"] + opts
    emit = _find_opt(opts, "--emit") or "leir"
    suffix = EMIT_SUFFIX.get(emit, "." + emit)
    names = _out_names(inputs)
    files_common: Dict[str, bytes] = {}
    opts = _ship_decls(opts, files_common)
    tasks = []
    for g, path in enumerate(inputs):
        files = dict(files_common, **{IN_NAME: _read(path)})
        out = OUT_NAME + suffix
        extra = ["--trace=" + TRACE_NAME] if trace else []
        spec = {"leirc": leirc, "tmp": tmp, "files": files, "outputs": [out, TRACE_NAME],
                "commands": [opts + extra + ["-o", out, "--", IN_NAME]]}
        tasks.append(Task(g, f"program {g} ({path})", len(files[IN_NAME]), spec,
                          extra={"out": out, "names": {IN_NAME: path, out: os.path.join(outdir, names[g] + suffix)}}))

    def judge(t: Task, res: Dict[str, Any]) -> str:
        rc = res["runs"][-1]["rc"]
        if rc == 1:
            t.error = _rename(_describe(res).encode(), t.extra["names"]).decode()
            return "fail"
        if rc != 0 or res["outputs"].get(t.extra["out"]) is None:
            t.error = _describe(res)
            return "retry"
        return "ok"

    progress = Progress("tune", len(tasks), quiet)
    cluster.run(tasks, judge, retries, progress)
    os.makedirs(outdir, exist_ok=True)
    rc = 0
    for t in tasks:
        if t.result is not None:
            sys.stderr.buffer.write(_rename(t.result["runs"][-1]["stderr"], t.extra["names"]))
        if t.failed or t.result is None:
            _warn(f"{t.label}: failed: {t.error}")
            rc = max(rc, 1 if t.result is not None else 2)
            continue
        dest = os.path.join(outdir, names[t.index])
        os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
        with open(dest + suffix, "wb") as f:
            f.write(t.result["outputs"][t.extra["out"]])
        if trace and t.result["outputs"].get(TRACE_NAME) is not None:
            with open(dest + ".trace.jsonl", "wb") as f:
                f.write(t.result["outputs"][TRACE_NAME])
    return rc


def _out_names(inputs: List[str]) -> List[str]:
    """Each input's name under the output folder, without its suffix: its path
    relative to the inputs' common folder."""
    absn = [os.path.abspath(p) for p in inputs]
    common = os.path.commonpath([os.path.dirname(p) for p in absn])
    names = [os.path.splitext(os.path.relpath(p, common))[0] for p in absn]
    if len(set(names)) != len(names):
        raise DistError("tune: two inputs would write the same output")
    return names


# ------------------------------------------------------------ the command line


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, allow_abbrev=False, description="Run leirc --emit-steps, --eval or --tune on a Dask cluster; the output is "
        "byte-identical to one leirc -j 1 run.  Options not listed here go to leirc.",
        epilog="See leirc-dist(1).")
    p.add_argument("mode", choices=["emit-steps", "eval", "tune"])
    p.add_argument("-o", "--output", help="emit-steps: the records (required; '-': standard output); "
                   "eval: the results (as leirc --eval -o); tune: the output folder (required)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing cluster's scheduler "
                   "(e.g. tcp://scheduler.example.org:8786); default: a LocalCluster on 127.0.0.1")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="the LocalCluster's worker processes (default: the CPUs)")
    p.add_argument("--memory-limit", default="auto", help="the LocalCluster's memory limit per worker "
                   "(default auto)")
    p.add_argument("--retries", type=int, default=2, help="runs again of a task that crashed or lost its "
                   "worker (default 2)")
    p.add_argument("--leirc", default=os.environ.get("LEIRC") or shutil.which("leirc") or "leirc",
                   help="leirc on the workers (default $LEIRC, else the one on PATH)")
    p.add_argument("--tasks", type=int, help="eval: record ranges (default 4 per worker thread)")
    p.add_argument("--temp-dir", help="where the LocalCluster and the tasks keep their files "
                   "(default the system's)")
    p.add_argument("--trace", action="store_true", help="tune: also write NAME.trace.jsonl")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    return p


def main(argv: Optional[Sequence[str]] = None, scheduler: Optional[str] = None) -> int:
    """The command line; returns the exit status (0 ok, 1 some task failed on
    its input, 2 a usage or system error or a task that failed for good)."""
    args, rest = _parser().parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if scheduler and not args.scheduler:
        args.scheduler = scheduler
    cluster: Optional[Cluster] = None
    try:
        opts, inputs = split_leirc_args(rest, args.mode)
        if args.workers < 1 or args.retries < 0:
            raise DistError("--workers must be at least 1 and --retries at least 0")
        if args.mode in ("emit-steps", "tune") and not args.output:
            raise DistError(f"{args.mode}: needs -o")
        if args.tasks is not None and args.tasks < 1:
            raise DistError("--tasks must be at least 1")
        if args.mode in ("emit-steps", "tune") and not inputs:
            raise DistError(f"{args.mode}: no input file")
        if args.mode == "eval" and len(inputs) != 1:
            raise DistError("eval: needs exactly one predictions file")
        cluster = Cluster(args.scheduler, args.workers, args.memory_limit, args.temp_dir)
        if args.mode == "emit-steps":
            return run_emit_steps(cluster, args.leirc, opts, inputs, args.output, args.retries, args.temp_dir,
                                  args.quiet)
        if args.mode == "eval":
            return run_eval(cluster, args.leirc, opts, inputs, args.output, args.retries, args.temp_dir,
                            args.quiet, args.tasks)
        return run_tune(cluster, args.leirc, opts, inputs, args.output, args.trace, args.retries,
                        args.temp_dir, args.quiet)
    except DistError as e:
        _warn(str(e))
        return 2
    finally:
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
