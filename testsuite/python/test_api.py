"""The Python API of libleir (python/leir): every function against leirc.

Each test that calls the library takes the ``libleir`` fixture, which skips
only when the library file is absent.  What leirc prints or writes is the
reference: texts, candidates, refusals and diagnostics must be leirc's
exactly, and ``Program.run`` must be bit-identical to ``leirc --run`` on the
same inputs (examples/*.leir and the corpus programs with data, up to a
size limit that keeps this file well under a minute).
"""

from __future__ import annotations

import gc
import json
import os
import pathlib
import re
import subprocess
import threading

import numpy as np
import pytest

import leir

pytestmark = pytest.mark.usefixtures("libleir")

TOP = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = TOP / "examples"
MATMUL = EXAMPLES / "matmul.leir"
BAD = "B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*2\n"
ILLEGAL = "loop_tiling(nest=0,loop=a,factor1=7,factor2=7)"
# Statement executions past which a program is too slow for these tests in
# the interpreter (a sanitizer build is several times slower).
MAX_WORK = int(os.environ.get("LEIR_PY_MAX_WORK", "20000000"))


def run_leirc(leirc: str, *args: str | os.PathLike[str], ok: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([leirc, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


_LOOP = re.compile(r"[LBPVU]\^\{(\d+)\}_\{[a-z0-9_]+=0\}")


def work(text: str) -> int:
    """About how many statement executions running ``text`` takes."""
    total, stack, pending, i = 0, [1], 1, 0
    while i < len(text):
        m = _LOOP.match(text, i)
        if m:
            pending *= int(m.group(1))
            i = m.end()
            continue
        ch = text[i]
        if ch == "[" and (pending != 1 or text[i - 1:i] == "}"):
            stack.append(stack[-1] * pending)
            pending = 1
        elif ch == "]" and len(stack) > 1 and text[i + 1:i + 2] == ";":
            stack.pop()
        elif ch == ";":
            total += stack[-1]
        i += 1
    return total


def example_programs() -> list[pathlib.Path]:
    return sorted(EXAMPLES.glob("*.leir"))


@pytest.fixture()
def matmul() -> leir.Program:
    return leir.Program.load(MATMUL)


# ------------------------------------------------------------ the package


def test_library_version(leirc: str) -> None:
    out = run_leirc(leirc, "--version").stdout
    assert out.split()[1] == leir.library_version()


def test_help_lists_the_api() -> None:
    import pydoc

    text = pydoc.render_doc(leir, renderer=pydoc.plaintext)
    for name in ("Program", "Context", "LeirError", "candidates", "check_step", "run", "ptx"):
        assert name in text


def test_library_path() -> None:
    assert leir.library_available()
    libdir = os.environ.get("LEIR_LIBDIR")
    assert leir.library_path() == (os.path.join(libdir, "libleir.so.0") if libdir else "libleir.so.0")


def test_import_without_the_library(tmp_path: pathlib.Path) -> None:
    import sys

    code = ("import leir\n"
            "assert not leir.library_available()\n"
            "try:\n"
            "    leir.Program.parse('B^{4}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx};];')\n"
            "except leir.LibraryNotFound as e:\n"
            "    print(e)\n")
    env = dict(os.environ, LEIR_LIBDIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert r.stdout.startswith(f"cannot load libleir ({tmp_path}/libleir.so.0)")


def test_program_has_no_public_constructor() -> None:
    with pytest.raises(TypeError):
        leir.Program()


# ------------------------------------------------------------ parsing


@pytest.mark.parametrize("path", example_programs(), ids=lambda p: p.name)
def test_text_is_leircs(leirc: str, path: pathlib.Path) -> None:
    p = leir.Program.load(path)
    assert p.text == run_leirc(leirc, "--emit=leir", path).stdout
    assert p.header_text == run_leirc(leirc, "--emit=leir", "--print-decls", path).stdout
    assert p.name == str(path)
    # the canonical text reads back as the same program
    assert leir.Program.parse(p.header_text).header_text == p.header_text


def test_tensors(matmul: leir.Program) -> None:
    assert [(t.name, t.role, t.dtype, t.shape, t.elem_size, t.nbytes) for t in matmul.tensors] == [
        ("A", "in", "f32", (64, 32), 4, 64 * 32 * 4),
        ("C", "in", "f32", (32, 48), 4, 32 * 48 * 4),
        ("D", "out", "f32", (64, 48), 4, 64 * 48 * 4),
    ]
    assert [t.name for t in matmul.inputs] == ["A", "C"]
    assert [t.name for t in matmul.outputs] == ["D"]
    assert matmul.tensors[0].numpy_dtype == np.float32
    assert str(matmul.tensors[2]) == "%out D : f32[64,48]"


def test_parse_infers_declarations() -> None:
    p = leir.Program.parse("B^{8}_{tx=0}[C^{f32,g}_{tx}=A^{f32,g}_{tx}*2;];")
    assert [(t.name, t.role, t.shape) for t in p.tensors] == [("A", "in", (8,)), ("C", "out", (8,))]
    assert p.name == "<string>"


def test_parse_with_decls(corpus: pathlib.Path, leirc: str) -> None:
    leir_path = corpus / "programs" / "level1" / "Average_Pooling_1D.leir"
    decls_path = leir_path.with_suffix(".decls.json")
    text = leir_path.read_text()
    decls = json.loads(decls_path.read_text())
    from_dict = leir.Program.parse(text, decls)
    from_json = leir.Program.parse(text, decls_path.read_text())
    loaded = leir.Program.load(leir_path, decls_path)
    want = run_leirc(leirc, "--emit=leir", "--print-decls", f"--decls={decls_path}", leir_path).stdout
    assert from_dict.header_text == from_json.header_text == loaded.header_text == want


def test_unparsable_text_gives_leircs_diagnostic(leirc: str, tmp_path: pathlib.Path) -> None:
    f = tmp_path / "bad.leir"
    f.write_text(BAD)
    want = run_leirc(leirc, f, ok=False)
    assert want.returncode == 1
    with pytest.raises(leir.LeirError) as e:
        leir.Program.load(f)
    assert str(e.value) == want.stderr
    with pytest.raises(leir.LeirError) as e2:
        leir.Program.parse(BAD, name=str(f))
    assert str(e2.value) == want.stderr
    d = e2.value.diagnostics[0]
    assert (d.file, d.line, d.column, d.severity) == (str(f), 1, 45, "error")
    assert d.message == "syntax error, unexpected end of file, expecting ';'"
    assert d.rendered == want.stderr and str(d) == d.rendered
    assert e2.value.errors == [d]
    # unnamed: the source is "<string>"
    with pytest.raises(leir.LeirError) as e3:
        leir.Program.parse(BAD)
    assert str(e3.value) == want.stderr.replace(str(f), "<string>")


def test_semantic_error(leirc: str, tmp_path: pathlib.Path) -> None:
    text = "%in A : f32[8]\n%out C : f32[8]\nB^{8}_{tx=0}[A^{f32,g}_{tx}=C^{f32,g}_{tx};];\n"
    f = tmp_path / "sema.leir"
    f.write_text(text)
    want = run_leirc(leirc, f, ok=False)
    with pytest.raises(leir.LeirError) as e:
        leir.Program.parse(text, name=str(f))
    assert str(e.value) == want.stderr


def test_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(leir.LeirError) as e:
        leir.Program.load(tmp_path / "none.leir")
    assert "none.leir" in str(e.value)


def test_nul_in_text() -> None:
    with pytest.raises(ValueError):
        leir.Program.parse("B^{8}_{tx=0}[C^{f32,g}_{tx}=\0;];")


def test_parse_warnings(corpus: pathlib.Path) -> None:
    # the corpus has programs that declare a constant the text never reads
    # (SPEC 8.2: a warning); find one and see that the warning is kept
    for decls_path in sorted((corpus / "programs" / "level2").glob("*.decls.json"))[:40]:
        p = leir.Program.load(decls_path.with_name(decls_path.name.replace(".decls.json", ".leir")), decls_path)
        if p.warnings:
            assert all(w.severity == "warning" for w in p.warnings)
            assert p.warnings[0].rendered.startswith(str(decls_path.parent))
            return
    pytest.skip("no corpus program with a warning among the first 40")


# ------------------------------------------------------------ steps


@pytest.mark.parametrize("path", [MATMUL, EXAMPLES / "softmax.leir"], ids=lambda p: p.name)
def test_candidates_are_leircs(leirc: str, path: pathlib.Path) -> None:
    p = leir.Program.load(path)
    lines = run_leirc(leirc, "--list-applicable", "--json", path).stdout.splitlines()
    want = [json.loads(line) for line in lines]
    got = p.candidates()
    assert [(c.spelling, c.strategy, c.level, c.cls, c.site) for c in got] == [
        (w["spelling"], w["strategy"], w["level"], w["class"], (w["site"]["line"], w["site"]["col"]))
        for w in want
    ]
    assert str(got[0]) == got[0].spelling


def test_candidates_of_one_strategy(matmul: leir.Program) -> None:
    tiling = matmul.candidates("loop_tiling")
    assert tiling and all(c.strategy == "loop_tiling" for c in tiling)
    assert tiling == [c for c in matmul.candidates() if c.strategy == "loop_tiling"]
    with pytest.raises(leir.LeirError) as e:
        matmul.candidates("no_such_strategy")
    assert "no_such_strategy" in str(e.value)


def test_apply_is_leircs(leirc: str, matmul: leir.Program) -> None:
    before = matmul.header_text
    for cand in matmul.candidates()[::7]:
        q = matmul.apply(cand)
        assert q.text == run_leirc(leirc, "-O", cand.spelling, "--emit=leir", MATMUL).stdout, cand
        assert q.step == cand.spelling
        assert q.step_cls == cand.cls
        assert matmul.apply(cand.spelling).text == q.text
    # a filter spelling, as -O takes it
    assert matmul.apply("loop_tiling").text == run_leirc(leirc, "-O", "loop_tiling", "--emit=leir", MATMUL).stdout
    # matmul is unchanged
    assert leir.Program.parse(matmul.header_text).header_text == before


def test_illegal_spelling_gives_leircs_refusal(leirc: str, matmul: leir.Program) -> None:
    want = run_leirc(leirc, "-O", ILLEGAL, MATMUL, ok=False)
    assert want.returncode == 1 and want.stderr
    with pytest.raises(leir.LeirError) as e:
        matmul.apply(ILLEGAL)
    assert str(e.value) == want.stderr
    with pytest.raises(leir.LeirError) as e2:
        matmul.apply("no_such_strategy(nest=0)")
    assert str(e2.value) == run_leirc(leirc, "-O", "no_such_strategy(nest=0)", MATMUL, ok=False).stderr


def test_check_step(matmul: leir.Program) -> None:
    cand = matmul.candidates("loop_tiling")[0]
    after = matmul.apply(cand)
    r = matmul.check_step(after)
    assert (r.verdict, r.spelling, r.cls, r.legal, bool(r)) == ("legal", cand.spelling, after.step_cls, True, True)
    assert cand.spelling in r.message
    assert matmul.check_step(after.text, "loop_tiling").legal
    # the same program: unchanged
    same = matmul.check_step(matmul)
    assert same.verdict == "unchanged" and not same.legal and same.spelling is None
    # text that does not parse is a verdict, not an exception
    bad = matmul.check_step(BAD)
    assert bad.verdict == "does not parse" and not bad.legal and bad.cls is None
    assert bad.message.startswith("does not parse")
    # parses, but wrong: a different program
    wrong = matmul.text.replace("+A^{f32,g}_{tx,c}*", "+A^{f32,g}_{tx,c}*2*")
    r = matmul.check_step(wrong)
    assert r.verdict == "not equivalent" and not r.legal
    with pytest.raises(leir.LeirError):
        matmul.check_step(after, "no_such_strategy")


def test_compare(leirc: str, matmul: leir.Program, tmp_path: pathlib.Path) -> None:
    q = matmul.apply(matmul.candidates("loop_tiling")[0])
    c = matmul.compare(q)
    assert (c.verdict, bool(c)) == ("equal", True)
    f = tmp_path / "twice.leir"
    f.write_text(matmul.text.replace("+A^{f32,g}_{tx,c}*", "+A^{f32,g}_{tx,c}*2*"))
    twice = leir.Program.load(f)
    d = matmul.compare(twice)
    assert (d.verdict, bool(d)) == ("differ", False)
    want = run_leirc(leirc, "--compare", MATMUL, f, ok=False)
    assert want.returncode == 1
    assert d.message == want.stdout.rstrip("\n")
    # with inputs: run on them and compared here
    a = np.ones((64, 32), np.float32)
    assert matmul.compare(q, {"A": a}).verdict == "equal"
    assert matmul.compare(twice, {"A": a}).verdict == "differ"
    # a program of another context
    other = leir.Program.load(MATMUL, context=leir.Context())
    assert matmul.compare(other).verdict == "equal"


def test_compare_close() -> None:
    # (x+y)+z against x+(y+z): not bit-identical, within the f32 tolerance
    a = leir.Program.parse("B^{64}_{tx=0}[D^{f32,g}_{tx}=(A^{f32,g}_{tx}+E^{f32,g}_{tx})+C^{f32,g}_{tx};];")
    b = leir.Program.parse("B^{64}_{tx=0}[D^{f32,g}_{tx}=A^{f32,g}_{tx}+(E^{f32,g}_{tx}+C^{f32,g}_{tx});];")
    rng = np.random.default_rng(1)
    inputs = {n: rng.standard_normal(64).astype(np.float32) * 1e3 for n in "AEC"}
    assert a.compare(b, inputs).verdict == "close"
    assert a.compare(b).verdict in ("equal", "close")
    with leir.Context(tolerance="exact") as ctx:
        ea = leir.Program.parse(a.text)
        eb = leir.Program.parse(b.text)
        assert ea.context is ctx
        assert ea.compare(eb, inputs).verdict == "differ"


# ------------------------------------------------------------ running


def npy_outputs(leirc: str, path: pathlib.Path, out: pathlib.Path, *args: str) -> dict[str, np.ndarray]:
    out.mkdir(parents=True, exist_ok=True)
    run_leirc(leirc, "--run", "--output-dir", out, *args, path)
    return {f.stem: np.load(f) for f in out.glob("*.npy")}


def assert_bit_identical(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for name in want:
        g, w = got[name], want[name]
        assert g.dtype == w.dtype and g.shape == w.shape, name
        assert g.tobytes() == w.tobytes(), f"output {name} differs"


@pytest.mark.parametrize("path", [p for p in example_programs() if work(p.read_text()) <= MAX_WORK],
                         ids=lambda p: p.name)
def test_run_is_bit_identical_to_leirc(leirc: str, path: pathlib.Path, tmp_path: pathlib.Path) -> None:
    p = leir.Program.load(path)
    # random inputs of the seed, as leirc --run makes them
    assert_bit_identical(p.run(), npy_outputs(leirc, path, tmp_path / "random"))
    # inputs given: the same files to both
    rng = np.random.default_rng(7)
    inputs, args = {}, []
    for t in p.inputs:
        a = rng.standard_normal(t.shape).astype(t.numpy_dtype)
        f = tmp_path / f"in_{t.name}.npy"
        np.save(f, a)
        inputs[t.name] = a
        args += ["--input", f"{t.name}={f}"]
    want = npy_outputs(leirc, path, tmp_path / "given", *args)
    assert_bit_identical(p.run(inputs), want)
    assert_bit_identical(p.run(inputs, target="host"), want)


def corpus_runs() -> list:
    """One parameter per corpus run (its manifest), named LEVEL/WORKLOAD.

    The ids are given with the values, not by a function: without the corpus
    the list is empty, and pytest would call an ids function with its
    placeholder for an empty parameter set (a collection error, issue 60).
    """
    from conftest import CORPUS

    return [pytest.param(m, id=f"{m.parent.parent.name}/{m.parent.name}")
            for m in sorted(CORPUS.glob("data/*/*/manifest.json"))]


@pytest.mark.parametrize("manifest", corpus_runs())
def test_run_corpus_is_bit_identical_to_leirc(leirc: str, corpus: pathlib.Path, manifest: pathlib.Path,
                                               tmp_path: pathlib.Path) -> None:
    man = json.loads(manifest.read_text())
    base = corpus / "programs" / man["level"] / man["workload"]
    text = base.with_suffix(".leir").read_text()
    if work(text) > MAX_WORK:
        pytest.skip(f"about {work(text):.2g} statement executions, over LEIR_PY_MAX_WORK={MAX_WORK}")
    decls = base.with_suffix(".decls.json")
    p = leir.Program.load(base.with_suffix(".leir"), decls)
    inputs, args = {}, []
    for t in man["tensors"]:
        if t["role"] == "output":
            continue
        f = manifest.parent / t["file"]
        inputs[t["leir_name"]] = np.load(f)
        args += ["--input", f"{t['leir_name']}={f}"]
    want = npy_outputs(leirc, base.with_suffix(".leir"), tmp_path, f"--decls={decls}", *args)
    got = p.run(inputs)
    assert_bit_identical(got, want)
    assert_bit_identical(p.run(inputs, target="host"), want)
    # and the model's output (PyTorch) under a loose rule
    for t in man["tensors"]:
        if t["role"] == "output":
            ref = np.load(manifest.parent / t["file"])
            np.testing.assert_allclose(got[t["leir_name"]], ref, rtol=1e-2, atol=1e-3)


def test_run_matmul_against_numpy(matmul: leir.Program) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 32), dtype=np.float32)
    c = rng.standard_normal((32, 48), dtype=np.float32)
    d = matmul.run({"A": a, "C": c})["D"]
    assert d.dtype == np.float32 and d.shape == (64, 48)
    np.testing.assert_allclose(d, a.astype(np.float64) @ c, rtol=1e-5, atol=1e-5)
    # a non-contiguous view and a list are copied; same result
    at = np.asfortranarray(a)
    assert not at.flags.c_contiguous
    assert matmul.run({"A": at, "C": c.tolist()})["D"].tobytes() == d.tobytes()
    # big-endian data is converted
    assert matmul.run({"A": a.astype(">f4"), "C": c})["D"].tobytes() == d.tobytes()
    # the inputs are not written
    a0 = a.copy()
    matmul.run({"A": a, "C": c}, target="host")
    assert a.tobytes() == a0.tobytes()


def test_run_bad_arrays(matmul: leir.Program) -> None:
    c = np.zeros((32, 48), np.float32)
    with pytest.raises(leir.TensorError, match=r"input 'A': expected shape \(64, 32\).*got \(32, 64\)") as e:
        matmul.run({"A": np.zeros((32, 64), np.float32), "C": c})
    assert e.value.tensor == "A" and isinstance(e.value, ValueError) and isinstance(e.value, leir.LeirError)
    with pytest.raises(leir.TensorError,
                       match=r"input 'A': expected f32\[64,32\] \(numpy.float32\), got numpy.float64"):
        matmul.run({"A": np.zeros((64, 32)), "C": c})
    with pytest.raises(leir.TensorError, match=r"input 'C'.*got numpy.int32"):
        matmul.run({"C": np.zeros((32, 48), np.int32)})
    with pytest.raises(leir.TensorError, match="no input 'X'.*A, C"):
        matmul.run({"X": c})
    with pytest.raises(leir.TensorError, match="'D' is an output"):
        matmul.run({"D": np.zeros((64, 48), np.float32)})
    with pytest.raises(leir.TensorError, match="input 'A'"):
        matmul.run({"A": [[1, 2], [3]]})
    with pytest.raises(leir.LeirError, match="unknown target"):
        matmul.run(target="tpu")


def test_run_seed_and_limits(matmul: leir.Program) -> None:
    d0 = matmul.run()["D"]
    assert matmul.run()["D"].tobytes() == d0.tobytes()
    with leir.Context(seed=1):
        d1 = leir.Program.load(MATMUL).run()["D"]
    assert d1.tobytes() != d0.tobytes()
    small = leir.Context(max_steps=100)
    with pytest.raises(leir.LeirError) as e:
        leir.Program.load(MATMUL, context=small).run()
    assert e.value.status == "LEIR_ERROR" and e.value.diagnostics
    tiny = leir.Context(max_memory="1K")
    with pytest.raises(leir.LeirError) as e2:
        leir.Program.load(MATMUL, context=tiny).run()
    assert e2.value.status == "LEIR_ENOMEM"


def test_run_cuda_without_driver(matmul: leir.Program) -> None:
    try:
        out = matmul.run(target="cuda")
    except leir.Unsupported as e:
        assert e.status == "LEIR_EUNSUPPORTED" and str(e)
    else:
        assert out["D"].shape == (64, 48)


def test_dtypes() -> None:
    text = ("%in A : f16[4]\n%in G : i32[4]\n%in E : bf16[4]\n%out C : f16[4]\n%out D : i64[4]\n%out F : bf16[4]\n"
            "B^{4}_{tx=0}[C^{f16,g}_{tx}=A^{f16,g}_{tx}*2;];B^{4}_{tx=0}[D^{i64,g}_{tx}=G^{i32,g}_{tx}+1;];"
            "B^{4}_{tx=0}[F^{bf16,g}_{tx}=E^{bf16,g}_{tx}*2;];\n")
    p = leir.Program.parse(text)
    assert [t.numpy_dtype for t in p.tensors] == [np.float16, np.int32, np.uint16, np.float16, np.int64, np.uint16]
    a = np.array([1, 2.5, -3, 0.125], np.float16)
    e = leir.float32_to_bf16(np.array([1, 2.5, -3, 0.125], np.float32))
    out = p.run({"A": a, "G": np.arange(4, dtype=np.int32), "E": e})
    assert out["C"].dtype == np.float16 and out["C"].tolist() == [2, 5, -6, 0.25]
    assert out["D"].tolist() == [1, 2, 3, 4]
    assert out["F"].dtype == np.uint16
    assert leir.bf16_to_float32(out["F"]).tolist() == [2, 5, -6, 0.25]
    assert np.isnan(leir.bf16_to_float32(leir.float32_to_bf16(np.float32("nan"))))
    with pytest.raises(ValueError):
        leir.numpy_dtype("c64")


def test_scalar_output() -> None:
    p = leir.Program.parse("%in A : f32[8]\n%out C : f32[]\nL^{8}_{a=0}[C^{f32,g}=C^{f32,g}+A^{f32,g}_{a};];\n")
    out = p.run({"A": np.arange(8, dtype=np.float32)})
    assert out["C"].shape == () and float(out["C"]) == 28.0


# ------------------------------------------------------------ code and cost


@pytest.mark.parametrize("kind", ["ptx", "llvm", "asm", "cuda", "tir", "tirx", "leir"])
def test_emit_is_leircs(leirc: str, matmul: leir.Program, kind: str) -> None:
    assert matmul.emit(kind) == run_leirc(leirc, f"--emit={kind}", MATMUL).stdout


def test_emit_unknown_kind(matmul: leir.Program) -> None:
    with pytest.raises(leir.LeirError):
        matmul.emit("fortran")


def test_ptx(leirc: str, matmul: leir.Program) -> None:
    assert matmul.ptx() == run_leirc(leirc, "--emit=ptx", MATMUL).stdout
    sm80 = matmul.ptx("sm_80")
    assert sm80 == run_leirc(leirc, "--emit=ptx", "--gpu-arch=sm_80", MATMUL).stdout
    assert ".target sm_80" in sm80
    assert matmul.ptx() == matmul.ptx("sm_90")  # the context's arch is back
    assert "gpu_arch" not in matmul.context.options
    with pytest.raises(leir.LeirError):
        matmul.ptx("sm_1")


def test_cost(leirc: str, matmul: leir.Program) -> None:
    for target in ("host", "cuda"):
        out = run_leirc(leirc, "--print-cost", "--cost=model", f"--target={target}", MATMUL).stdout
        want = float(re.search(r"^seconds: (\S+)", out, re.M).group(1))
        assert matmul.cost(target) == pytest.approx(want, rel=1e-5)
    with pytest.raises(leir.LeirError):
        matmul.cost("tpu")


FAST_SUM = ("%in A : f32[512,512]\n%out C : f32[512]\n"
            "L^{512}_{a=0}L^{512}_{c=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n")
SLOW_SUM = ("%in A : f32[512,512]\n%out C : f32[512]\n"
            "L^{512}_{c=0}L^{512}_{a=0}[C^{f32,g}_{c}=C^{f32,g}_{c}+A^{f32,g}_{a,c};];\n")


def _learned_or_skip(p: leir.Program) -> float:
    try:
        return p.cost("learned")
    except leir.LeirError as e:
        if any("built without XGBoost" in str(d) for d in e.diagnostics):
            assert str(e.diagnostics[0]) == ("libleir: error: the learned cost model: this libleir was built "
                                             "without XGBoost (configure found no libxgboost-dev)\n")
            pytest.skip("libleir built without XGBoost")
        raise


def test_cost_learned(leirc: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cost("learned") is leirc --print-cost --cost=learned's learned_seconds
    (the build tree's model, found beside libleir), ranks the two row sums
    as measured, and says exactly why when the model file is missing."""
    monkeypatch.delenv("LEIRC_COST_MODEL", raising=False)
    ctx = leir.Context()
    fast = leir.Program.parse(FAST_SUM, context=ctx)
    slow = leir.Program.parse(SLOW_SUM, context=ctx)
    f = _learned_or_skip(fast)
    src = tmp_path / "fast.leir"
    src.write_text(FAST_SUM)
    out = run_leirc(leirc, "--print-cost", "--cost=learned", str(src)).stdout
    assert f == pytest.approx(float(re.search(r"^learned_seconds: (\S+)", out, re.M).group(1)), rel=1e-5)
    assert 0 < f < slow.cost("learned")
    assert fast.cost("learned") == f  # deterministic, the model kept by the context
    missing = tmp_path / "none" / "costmodel.json"
    monkeypatch.setenv("LEIRC_COST_MODEL", str(missing))
    other = leir.Program.parse(FAST_SUM, context=leir.Context())  # a new context loads it
    with pytest.raises(leir.LeirError) as ei:
        other.cost("learned")
    assert [str(d) for d in ei.value.diagnostics] == [f"libleir: error: cannot read the learned cost model {missing}\n"]
    with pytest.raises(leir.LeirError) as ei:
        other.cost("tpu")
    assert str(ei.value.diagnostics[0]).endswith(
        "error: the cost model's target must be host, cuda or learned, not 'tpu'\n")


def test_measure(matmul: leir.Program) -> None:
    try:
        t = matmul.measure()
    except leir.Unsupported:
        pytest.skip("no host JIT in this build")
    assert 0 < t < 1


# ------------------------------------------------------------ contexts


def test_context_options() -> None:
    ctx = leir.Context(seed=3, max_steps=1e9, max_memory="1G", tolerance="reference", unsafe_math=True,
                       gpu_arch="sm_80")
    assert ctx.options == {"seed": "3", "max_steps": "1000000000", "max_memory": "1G", "tolerance": "reference",
                           "unsafe_math": "1", "gpu_arch": "sm_80"}
    assert "sm_80" in repr(ctx)
    assert ctx.gpu_arch == "sm_80" and ctx.fp_contract is None
    ctx.tolerance = "exact"
    assert ctx.tolerance == "exact" and ctx.options["tolerance"] == "exact"
    with pytest.raises(leir.LeirError, match="unknown option 'colour'"):
        ctx.set_option("colour", "blue")
    with pytest.raises(leir.LeirError, match="tolerance"):
        leir.Context(tolerance="loose")
    with pytest.raises(leir.LeirError):
        leir.Context(seed=-1)
    assert ctx.options["seed"] == "3"
    p = leir.Program.load(MATMUL, context=ctx)
    assert p.context is ctx and ".target sm_80" in p.ptx()


def test_default_context_per_thread() -> None:
    mine = leir.default_context()
    assert leir.default_context() is mine
    seen: list[leir.Context] = []
    results: list[bytes] = []

    def work_in_thread() -> None:
        seen.append(leir.default_context())
        p = leir.Program.load(MATMUL)
        for _ in range(3):
            results.append(p.apply("loop_tiling").run()["D"].tobytes())

    threads = [threading.Thread(target=work_in_thread) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 3 and len({id(c) for c in seen} | {id(mine)}) == 4
    assert len(set(results)) == 1 and len(results) == 9
    with leir.Context(seed=5) as ctx:
        assert leir.default_context() is ctx
    assert leir.default_context() is mine


def test_one_context_shared_by_threads() -> None:
    p = leir.Program.load(MATMUL, context=leir.Context())
    errors: list[BaseException] = []

    def hammer() -> None:
        try:
            for c in p.candidates()[:10]:
                p.apply(c).text
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_programs_outlive_their_context_reference() -> None:
    p = leir.Program.load(MATMUL, context=leir.Context())
    q = p.apply("loop_tiling")
    del p
    gc.collect()
    assert q.candidates() and q.run()["D"].shape == (64, 48)
    # many programs made and dropped
    for _ in range(50):
        q.apply("loop_reorder")
    gc.collect()
    assert q.candidates()  # the next call frees what the collector left
    assert q.context._pending == []


# ------------------------------------------------------------ examples/python


def run_example(name: str, *args: str) -> str:
    import sys

    r = subprocess.run([sys.executable, str(EXAMPLES / "python" / name), *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_example_greedy(leirc: str, tmp_path: pathlib.Path) -> None:
    out = run_example("greedy.py", str(MATMUL), "4")
    lines = out.splitlines()
    assert lines[0].startswith("start: ")
    costs = [float(re.search(r": (\S+) s$", line).group(1)) for line in lines if line.endswith(" s")]
    assert costs == sorted(costs, reverse=True) and len(costs) >= 2  # it found a cheaper program
    # the program it prints is leirc's text of the steps it took
    steps = [line.split(": ")[0] for line in lines[1:] if line.endswith(" s")]
    want = run_leirc(leirc, *[a for s in steps for a in ("-O", s)], "--emit=leir", MATMUL).stdout
    assert out.endswith(want)


def test_example_run_numpy() -> None:
    out = run_example("run_numpy.py")
    assert "interp: max |leir - numpy|" in out and "host: max |leir - numpy|" in out
    assert out.splitlines()[-1] == "ok"
