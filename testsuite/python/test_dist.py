"""leirc-dist (python/leir/dist.py, issue 61): leirc --emit-steps, --eval and
--tune on a Dask cluster give the bytes of one ``leirc -j 1`` run, lose and
duplicate nothing when a worker is killed, and fail only the task of a bad
record.  Skipped where the Python package ``distributed`` (Debian's
python3-distributed) is absent."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import threading
import time
from typing import Iterator, List, Tuple

import pytest

distributed = pytest.importorskip(
    "distributed", reason="leirc-dist needs Dask: the Python package 'distributed' (python3-distributed) is absent")

from leir import dist  # noqa: E402

# small corpus programs (about a second each of --emit-steps on one core)
CORPUS_SLICE = ["level1/ReLU.leir", "level1/HardTanh.leir", "level1/Matrix_scalar_multiplication.leir"]
BAD = "%in A : f32[4]\n%out D : f32[4]\nL^{4}_{a=0}[D^{f32,g}_{a}=B^{f32,g}_{a}+;];\n"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuple[object, object]]:
    """Two worker processes, one thread and 512 MiB each, on 127.0.0.1."""
    import logging

    tmp = tmp_path_factory.mktemp("dask")
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, memory_limit="512MiB", silence_logs=logging.ERROR,
                                  local_directory=str(tmp))
    client = distributed.Client(lc, set_as_default=False)
    yield lc, client
    client.close()
    lc.close()


def leirc_run(leirc: str, args: List[str], cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([leirc] + args, cwd=cwd, capture_output=True, check=False)


def dist_main(args: List[str], scheduler: str, tmp: pathlib.Path, leirc: str) -> int:
    return dist.main(["--leirc", leirc, "--temp-dir", str(tmp), "-q"] + args, scheduler=scheduler)


def test_split_leirc_args() -> None:
    opts, inputs = dist.split_leirc_args(["--seed", "3", "-O", "loop_split", "a.leir", "--sample=2", "b.leir"],
                                         "emit-steps")
    assert opts == ["--seed=3", "-Oloop_split", "--sample=2"]
    assert inputs == ["a.leir", "b.leir"]
    with pytest.raises(dist.DistError, match=r"^emit-steps: --shard is set by leirc-dist itself$"):
        dist.split_leirc_args(["--shard=0/2", "a.leir"], "emit-steps")
    assert dist.json_string('a"b\\c\n\x01/é') == '"a\\"b\\\\c\\n\\u0001/é"'


def test_emit_steps_examples_cli(leirc: str, top_srcdir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """python3 -m leir.dist on its own LocalCluster: examples/ and a program
    that does not parse; the records are leirc -j 1's, the bad program's task
    fails with its number and file, the others run, exit status 1 as leirc's."""
    for name in ("matmul.leir", "softmax.leir"):
        (tmp_path / name).write_bytes((top_srcdir / "examples" / name).read_bytes())
    (tmp_path / "bad.leir").write_text(BAD)
    files = ["matmul.leir", "bad.leir", "softmax.leir"]
    ref = leirc_run(leirc, ["--emit-steps=ref.jsonl"] + files, tmp_path)
    assert ref.returncode == 1
    env = dict(os.environ, PYTHONPATH=str(top_srcdir / "python"))
    p = subprocess.run([sys.executable, "-m", "leir.dist", "emit-steps", "-o", "dist.jsonl", "--workers", "2",
                        "--memory-limit", "512MiB", "--temp-dir", str(tmp_path), "--leirc", leirc] + files,
                       cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert p.returncode == 1, p.stderr
    assert (tmp_path / "dist.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    assert len((tmp_path / "ref.jsonl").read_bytes().splitlines()) > 50
    assert ("leirc-dist: program 1 (bad.leir): failed: leirc exit status 1: "
            "bad.leir:3:27: error: syntax error, unexpected loop kind\n") in p.stderr
    assert "leirc-dist: emit-steps: 3/3 tasks done, 1 failed, 0 retried, " in p.stderr


@pytest.mark.parametrize("flags", [[], ["--sample=5", "--seed=3", "--format=chat"], ["--format=steptp"]])
def test_emit_steps_corpus(leirc: str, corpus: pathlib.Path, cluster: Tuple[object, object],
                           tmp_path: pathlib.Path, flags: List[str]) -> None:
    """A corpus slice (with its decls sidecars): the bytes of leirc -j 1."""
    files = [str(corpus / "programs" / f) for f in CORPUS_SLICE]
    if flags:  # the first run has them all; the others, two programs
        files = files[:2]
    ref = leirc_run(leirc, ["--emit-steps=ref.jsonl"] + flags + files, tmp_path)
    assert ref.returncode == 0, ref.stderr
    rc = dist_main(["emit-steps", "-o", str(tmp_path / "dist.jsonl")] + flags + files,
                   cluster[0].scheduler_address, tmp_path, leirc)
    assert rc == 0
    assert (tmp_path / "dist.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def eval_records(leirc: str, top_srcdir: pathlib.Path, tmp: pathlib.Path) -> bytes:
    """Predictions made of matmul's step records (before, strategy, after; id
    on some), a damaged after, a line that is not JSON and blank lines."""
    (tmp / "m.leir").write_bytes((top_srcdir / "examples" / "matmul.leir").read_bytes())
    p = leirc_run(leirc, ["--emit-steps=m.jsonl", "--sample=9", "m.leir"], tmp)
    assert p.returncode == 0, p.stderr
    lines = []
    for k, line in enumerate((tmp / "m.jsonl").read_text().splitlines()):
        r = json.loads(line)
        rec = {"before": r["before"], "strategy": r["strategy"], "after": r["after"]}
        if k % 2:
            rec["id"] = f"p{k}"
        if k == 3:
            rec["after"] = rec["after"].replace("+", "-", 1)
        lines.append(json.dumps(rec))
    lines[4:4] = ["", "not json", "   "]
    return ("\n".join(lines) + "\n").encode()


def test_eval(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object], tmp_path: pathlib.Path,
              capfd: pytest.CaptureFixture) -> None:
    """--eval over 4 record ranges: leirc -j 1's results and summary."""
    (tmp_path / "p.jsonl").write_bytes(eval_records(leirc, top_srcdir, tmp_path))
    ref = leirc_run(leirc, ["--eval=p.jsonl", "-o", "ref.jsonl", "--cost=model", "--json"], tmp_path)
    assert ref.returncode == 0, ref.stderr
    capfd.readouterr()
    rc = dist_main(["eval", "-o", str(tmp_path / "dist.jsonl"), "--tasks", "4", "--cost=model", "--json",
                    str(tmp_path / "p.jsonl")], cluster[0].scheduler_address, tmp_path, leirc)
    out = capfd.readouterr().out
    assert rc == 0
    assert (tmp_path / "dist.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    assert out.encode() == ref.stdout
    assert len((tmp_path / "ref.jsonl").read_bytes().splitlines()) == 10


def test_eval_bad_record(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object],
                         tmp_path: pathlib.Path, capfd: pytest.CaptureFixture) -> None:
    """A record on which leirc itself dies (a wrapper kills it when the
    record is in its input) fails alone, named by number and id; every other
    record's result is leirc -j 1's."""
    recs = eval_records(leirc, top_srcdir, tmp_path).replace(b"not json", b'{"id":"poison","before":"x"}')
    (tmp_path / "p.jsonl").write_bytes(recs)
    ref = leirc_run(leirc, ["--eval=p.jsonl", "-o", "ref.jsonl", "--cost=model"], tmp_path)
    assert ref.returncode == 0
    wrapper = tmp_path / "leirc-wrapper"
    wrapper.write_text("#!/bin/sh\nfor a; do case $a in --eval=*) grep -q poison \"${a#--eval=}\" && "
                       f"exec env -u LD_PRELOAD /bin/sh -c 'kill -SEGV $$';; esac; done\nexec '{leirc}' \"$@\"\n")
    wrapper.chmod(0o755)
    capfd.readouterr()
    rc = dist_main(["eval", "-o", str(tmp_path / "dist.jsonl"), "--tasks", "2", "--retries", "0",
                    "--cost=model", str(tmp_path / "p.jsonl")], cluster[0].scheduler_address, tmp_path,
                   str(wrapper))
    err = capfd.readouterr().err
    assert rc == 2
    assert "leirc-dist: record 4 (id \"poison\"): failed after 1 attempts: leirc killed by signal 11\n" in err
    want = [ln for ln in (tmp_path / "ref.jsonl").read_bytes().splitlines() if b'"poison"' not in ln]
    assert (tmp_path / "dist.jsonl").read_bytes().splitlines() == want


def test_worker_killed(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object],
                       tmp_path: pathlib.Path) -> None:
    """A worker killed while it runs a task: the task runs again elsewhere;
    no record is lost or written twice."""
    lc, client = cluster
    files = []
    for k in range(4):
        for name in ("softmax.leir", "matmul.leir"):
            f = tmp_path / f"{k}-{name}"
            f.write_bytes((top_srcdir / "examples" / name).read_bytes())
            files.append(f.name)
    ref = leirc_run(leirc, ["--emit-steps=ref.jsonl"] + files, tmp_path)
    assert ref.returncode == 0
    killed: List[int] = []

    def killer() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            busy = [w for w, keys in client.processing().items() if keys]
            if busy:
                time.sleep(0.3)
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, 9)
                killed.append(pid)
                return
            time.sleep(0.05)

    th = threading.Thread(target=killer)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        th.start()
        rc = dist_main(["emit-steps", "-o", "dist.jsonl"] + files, lc.scheduler_address, tmp_path, leirc)
    finally:
        th.join()
        os.chdir(cwd)
    assert killed, "no worker was busy"
    assert rc == 0
    assert (tmp_path / "dist.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    ids = [json.loads(line)["id"] for line in (tmp_path / "dist.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids))


def test_emit_steps_crash(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object],
                          tmp_path: pathlib.Path, capfd: pytest.CaptureFixture) -> None:
    """A program on which leirc --emit-steps dies every time (a wrapper kills
    it): run twice (--retries 1), then failed; the other programs' records
    are leirc -j 1's, with their ids; exit status 2."""
    src = (top_srcdir / "examples" / "matmul.leir").read_text()
    (tmp_path / "a.leir").write_text(src)
    (tmp_path / "poison.leir").write_text("# poison\n" + src)
    (tmp_path / "c.leir").write_text(src)
    files = ["a.leir", "poison.leir", "c.leir"]
    ref = leirc_run(leirc, ["--emit-steps=ref.jsonl"] + files, tmp_path)
    assert ref.returncode == 0
    wrapper = tmp_path / "leirc-wrapper"
    wrapper.write_text("#!/bin/sh\nfor a; do case $a in --emit-steps=*) grep -q poison *.leir && "
                       f"exec env -u LD_PRELOAD /bin/sh -c 'kill -SEGV $$';; esac; done\nexec '{leirc}' \"$@\"\n")
    wrapper.chmod(0o755)
    capfd.readouterr()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        rc = dist.main(["--leirc", str(wrapper), "--temp-dir", str(tmp_path), "--retries", "1", "emit-steps",
                        "-o", "dist.jsonl"] + files, scheduler=cluster[0].scheduler_address)
    finally:
        os.chdir(cwd)
    err = capfd.readouterr().err
    assert rc == 2
    assert "leirc-dist: program 1 (poison.leir): failed after 2 attempts: leirc killed by signal 11\n" in err
    assert "leirc-dist: dist.jsonl: the records of program 1 (poison.leir) are missing\n" in err
    assert "1 failed, 1 retried" in err
    want = [ln for ln in (tmp_path / "ref.jsonl").read_bytes().splitlines(keepends=True)
            if b'"source":"poison.leir"' not in ln]
    assert len(want) == 2 * len((tmp_path / "ref.jsonl").read_bytes().splitlines()) // 3
    assert (tmp_path / "dist.jsonl").read_bytes() == b"".join(want)


def test_tune_learned(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object],
                      tmp_path: pathlib.Path) -> None:
    """--cost=learned passes through: the program leirc --tune --cost=learned writes (no measurement: the same
    bytes); --cost-model-save is refused with its reason."""
    name = "matmul.leir"
    (tmp_path / name).write_bytes((top_srcdir / "examples" / name).read_bytes())
    p = leirc_run(leirc, ["--tune", "--cost=learned", "--budget=24", name, "-o", "ref-" + name], tmp_path)
    if b"built without XGBoost" in p.stderr:
        pytest.skip("leirc built without XGBoost")
    assert p.returncode == 0, p.stderr
    rc = dist_main(["tune", "-o", str(tmp_path / "out"), "--cost", "learned", "--budget=24", str(tmp_path / name)],
                   cluster[0].scheduler_address, tmp_path, leirc)
    assert rc == 0
    assert (tmp_path / "out" / name).read_bytes() == (tmp_path / ("ref-" + name)).read_bytes()
    with pytest.raises(dist.DistError, match=r"^tune: --cost-model-save is not offered: each program's search refits a "
                                        r"learned model of its own on its worker: run leirc --tune itself to keep "
                                        r"one$"):
        dist.split_leirc_args(["--cost=learned", "--cost-model-save", "m.json", name], "tune")
    assert dist.split_leirc_args(["--rank-cost", "learned", name], "tune") == (["--rank-cost=learned"], [name])


def test_tune(leirc: str, top_srcdir: pathlib.Path, cluster: Tuple[object, object], tmp_path: pathlib.Path) -> None:
    """--tune --cost=model per program: the programs leirc writes.  A --budget ends each search
    (--tune's default is a time limit, which a loaded machine may reach at another program)."""
    for name in ("matmul.leir", "softmax.leir"):
        (tmp_path / name).write_bytes((top_srcdir / "examples" / name).read_bytes())
        p = leirc_run(leirc, ["--tune", "--cost=model", "--budget=64", name, "-o", "ref-" + name], tmp_path)
        assert p.returncode == 0, p.stderr
    rc = dist_main(["tune", "-o", str(tmp_path / "out"), "--cost=model", "--budget=64", str(tmp_path / "matmul.leir"),
                    str(tmp_path / "softmax.leir")], cluster[0].scheduler_address, tmp_path, leirc)
    assert rc == 0
    for name in ("matmul.leir", "softmax.leir"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / ("ref-" + name)).read_bytes()
