"""bench/ptxas_bench.py --by-program and --report: the per-program summary
that carries the ptxas measurement of the whole corpus over several runs.

ptxas is replaced by a script that succeeds (or fails) at once: what is
checked is the bookkeeping (which candidates are measured, which programs are
skipped, resumed or measured again, the counts and the report), not ptxas's
time.  Two small corpus programs, about 60 candidates, a few seconds.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

PROGRAMS = ("level1/cumsum", "level1/ReLU")


def _mini_corpus(corpus: pathlib.Path, tmp: pathlib.Path) -> pathlib.Path:
    """A corpus of the two PROGRAMS (links to the real files)."""
    mini = tmp / "corpus"
    for prog in PROGRAMS:
        folder = mini / "programs" / prog.split("/")[0]
        folder.mkdir(parents=True, exist_ok=True)
        for suffix in (".leir", ".decls.json"):
            (folder / (prog.split("/")[1] + suffix)).symlink_to(corpus / "programs" / (prog + suffix))
    return mini


def _fake_ptxas(tmp: pathlib.Path, status: int) -> pathlib.Path:
    """A stand-in for ptxas that exits with status at once."""
    path = tmp / f"ptxas{status}"
    path.write_text(f"#!/bin/sh\nexit {status}\n")
    path.chmod(0o755)
    return path


def _bench(top: pathlib.Path, leirc: str, mini: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs bench/ptxas_bench.py over the mini corpus."""
    cmd = [sys.executable, str(top / "bench" / "ptxas_bench.py"), "--leirc", leirc, "--corpus", str(mini), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _counts(leirc: str, mini: pathlib.Path) -> dict[str, int]:
    """Each program's number of one-step candidates, from leirc itself."""
    out = {}
    for prog in PROGRAMS:
        leir = mini / "programs" / (prog + ".leir")
        r = subprocess.run([leirc, "--decls", str(leir)[:-5] + ".decls.json", "--list-applicable", str(leir)],
                           capture_output=True, text=True, check=True)
        out[prog] = len([s for s in r.stdout.splitlines() if s])
    return out


def _summary(path: pathlib.Path) -> dict[str, dict[str, str]]:
    """The lines of a --by-program summary by program, each by column."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# ptxas_bench.py --by-program:")
    cols = lines[1].split("\t")
    return {c[0]: dict(zip(cols, c)) for c in (ln.split("\t") for ln in lines[2:])}


Setup = tuple[pathlib.Path, str, pathlib.Path, dict[str, int], pathlib.Path]


@pytest.fixture()
def setup(leirc: str, corpus: pathlib.Path, top_srcdir: pathlib.Path, tmp_path: pathlib.Path) -> Setup:
    """The source tree, leirc, the mini corpus, its candidate counts and a scratch folder."""
    mini = _mini_corpus(corpus, tmp_path)
    return top_srcdir, leirc, mini, _counts(leirc, mini), tmp_path


def test_summary_resume_and_report(setup: Setup) -> None:
    """Measured, stopped and resumed, skipped, measured again when its PTX changes, kept when --corpus is a
    part, reported."""
    top, leirc, mini, counts, tmp = setup
    ok = str(_fake_ptxas(tmp, 0))
    summary, rows = tmp / "summary.tsv", tmp / "rows.tsv"
    total = sum(counts.values())

    r = _bench(top, leirc, mini, "--ptxas", ok, "-j", "2", "--by-program", str(summary), "--results", str(rows))
    assert r.returncode == 0, r.stderr
    assert f"0 programs measured before ({summary}), 2 to go" in r.stdout
    assert f"measured {total} of {total} candidates (100.0%)" in r.stdout
    first = _summary(summary)
    assert sorted(first) == sorted(PROGRAMS)
    for prog, n in counts.items():
        row = first[prog]
        assert [row[k] for k in ("candidates", "emitted", "refused", "ptxas_ok", "ptxas_fail", "timeouts",
                                 "over_1s", "over_10s", "over_1s_by_strategy")] == \
            [str(n), str(n), "0", str(n), "0", "0", "0", "0", "-"]
        assert len(row["plain_ptx"]) == 16 and int(row["plain_ptx"], 16) >= 0
        hist = [item.split(":") for item in row["hist_all"].split(",")]
        assert sum(int(c) for _, c in hist) == n

    # a run stopped half way through the first program: its rows go on, the summary is rebuilt
    head = rows.read_text().splitlines(keepends=True)
    rows.write_text("".join(head[:2 + 10]))
    summary.unlink()
    r = _bench(top, leirc, mini, "--ptxas", ok, "--by-program", str(summary), "--results", str(rows), "--resume")
    assert r.returncode == 0, r.stderr
    assert f"10 candidates measured before ({rows}), {total - 10} to go" in r.stdout
    assert f"measured {total} of {total} candidates" in r.stdout
    second = _summary(summary)
    for prog in PROGRAMS:
        assert second[prog]["candidates"] == first[prog]["candidates"]
        assert second[prog]["plain_ptx"] == first[prog]["plain_ptx"]

    # every program in the summary: nothing to measure
    r = _bench(top, leirc, mini, "--ptxas", ok, "--by-program", str(summary))
    assert r.returncode == 0, r.stderr
    assert f"2 programs measured before ({summary}), 0 to go" in r.stdout
    assert f"measured 0 of {total} candidates" in r.stdout

    # a program whose plain PTX differs from its line's is measured again, alone
    text = summary.read_text().replace(first[PROGRAMS[1]]["plain_ptx"], "0" * 16)
    summary.write_text(text)
    r = _bench(top, leirc, mini, "--ptxas", ok, "--by-program", str(summary))
    assert r.returncode == 0, r.stderr
    assert (f"1 programs measured before ({summary}), 1 to go; 1 to measure again (their plain PTX changed)"
            in r.stdout)
    assert f"measured {counts[PROGRAMS[1]]} of {total} candidates" in r.stdout
    assert _summary(summary)[PROGRAMS[1]]["plain_ptx"] == first[PROGRAMS[1]]["plain_ptx"]

    # a corpus of one of the two programs: the other's line stays
    part = tmp / "part"
    (part / "programs" / "level1").mkdir(parents=True)
    for suffix in (".leir", ".decls.json"):
        name = PROGRAMS[0] + suffix
        (part / "programs" / name).symlink_to((mini / "programs" / name).resolve())
    before = summary.read_text()
    r = _bench(top, leirc, part, "--ptxas", ok, "--by-program", str(summary))
    assert r.returncode == 0, r.stderr
    assert f"2 programs measured before ({summary}), 0 to go" in r.stdout
    assert summary.read_text() == before

    r = _bench(top, leirc, mini, "--report", str(summary))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{summary}: 2 programs of the corpus's 2, {total} one-step candidates; measured ")
    assert lines[1] == (f"leirc: {total} PTX written, 0 not (an error or a timeout); ptxas: {total} ok, "
                        "0 failed; calls timed out (leirc or ptxas): 0")
    assert any(ln.startswith(f"| all | {total} | ") and ln.endswith(" | 0 | 0 |") for ln in lines)
    assert "over 1 s by strategy: none" in lines
    assert not any(ln.startswith("programs left") for ln in lines)


def test_failures_and_bad_files(setup: Setup) -> None:
    """ptxas failures are counted and fail the report; files of another kind and bad options are refused."""
    top, leirc, mini, counts, tmp = setup
    summary = tmp / "summary.tsv"
    r = _bench(top, leirc, mini, "--ptxas", str(_fake_ptxas(tmp, 1)), "-j", "2", "--by-program", str(summary))
    rows = _summary(summary)
    for prog, n in counts.items():
        assert (rows[prog]["ptxas_ok"], rows[prog]["ptxas_fail"], rows[prog]["hist_all"]) == ("0", str(n), "-")
    assert r.stdout.count("ptxas failed: ") == sum(counts.values())

    r = _bench(top, leirc, mini, "--report", str(summary))
    assert r.returncode == 1
    assert f"ptxas: 0 ok, {sum(counts.values())} failed" in r.stdout

    bad = tmp / "bad.tsv"
    bad.write_text("program\tspelling\n")
    for args in (("--report", str(bad)), ("--by-program", str(bad))):
        r = _bench(top, leirc, mini, *args)
        assert r.returncode == 1
        assert r.stderr == f"ptxas_bench: {bad} is not a --by-program summary of this script\n"

    r = _bench(top, leirc, mini, "--by-program", str(summary), "--sample", "5")
    assert r.returncode == 2
    assert "--by-program measures every candidate of a program: not with --sample or --strategies" in r.stderr
    assert os.path.exists(summary)
