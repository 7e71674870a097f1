"""leir.compile, leir.Compiled and the torch.compile backend "leir" (issue 60).

Every model of zoo/ compiled by leir.compile matches PyTorch under the reference
acceptance rule (SPEC §13.4); its errors have exact texts; the tuning cache is reused by
another process, and a corrupt or foreign entry is rebuilt; two threads call one compiled
object at once.  torch.compile itself needs PyTorch >= 2.0 (skipped on Debian's 1.13).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leir  # noqa: E402
from leir.torch_import import TorchImportError, from_torch  # noqa: E402
from leir.torch_import.kernelbench import load_model_file  # noqa: E402
from test_import import MODELS, ZOO, reference_ok  # noqa: E402

pytestmark = pytest.mark.usefixtures("libleir")

FAST_TUNE = {"search": "greedy", "cost": "model", "budget": 4, "max_depth": 2}


def as_numpy(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:  # the importer's outputs are bf16 bit patterns
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def outputs_of(result) -> list:
    return [result] if isinstance(result, torch.Tensor) else list(result)


class Small(torch.nn.Module):
    """x @ W.T + b, then ReLU: a Linear(32 -> 24)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(32, 24)

    def forward(self, x):
        return torch.relu(self.fc(x))


class TwoOut(torch.nn.Module):
    def forward(self, x, y, scale: float):
        return x * scale + y, x - y


def small():
    torch.manual_seed(1)
    return Small().eval(), (torch.randn(16, 32),)


# -- the zoo ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", MODELS)
def test_zoo_model(name: str) -> None:
    """The compiled module's results on the example inputs match PyTorch's."""
    model, inputs = load_model_file(ZOO / f"{name}.py")
    f = leir.compile(model, inputs)
    got = outputs_of(f(*inputs))
    want = f.imported.outputs
    assert len(got) == len(want)
    for out, (leir_name, ref) in zip(got, want.items()):
        assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
        ok, why = reference_ok(as_numpy(out), ref, f.imported.text)
        assert ok, f"{name}: output {leir_name} differs from PyTorch: {why}"


@pytest.mark.parametrize("name", ["Gemm_Add_ReLU", "conv2d", "softmax", "MHA"])
def test_zoo_new_inputs(name: str) -> None:
    """Parameters are bound, inputs are not: new inputs give PyTorch's new results, bit for
    bit the host JIT's (Program.run)."""
    model, inputs = load_model_file(ZOO / f"{name}.py")
    f = leir.compile(model, inputs)
    torch.manual_seed(123)
    fresh = tuple(torch.randn_like(t) for t in inputs)
    with torch.no_grad():
        want = outputs_of(model(*fresh))
    got = outputs_of(f(*fresh))
    for g, w in zip(got, want):
        ok, why = reference_ok(g.numpy(), w.numpy(), f.imported.text)
        assert ok, why
    run = f.program.run({**{n: a for n, a in f.imported.arrays.items() if f.imported.roles[n] == "param"},
                         **{n: t.numpy() for (_, n), t in zip(f.imported.arguments, fresh)}},
                        target="host")
    for g, t in zip(got, f.program.outputs):
        assert g.numpy().tobytes() == run[t.name].tobytes()


def test_signature_and_constants() -> None:
    """Positional tensors and a Python constant, two outputs returned as forward does."""
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    f = leir.compile(TwoOut(), (x, y, 2.0))
    a, b = f(x, y, 2.0)
    assert torch.equal(a, x * 2.0 + y) and torch.equal(b, x - y)
    x2 = torch.randn(4, 8)
    a, b = f(x2, y, 2.0)
    assert torch.equal(a, x2 * 2.0 + y)
    assert isinstance(f(x, y, 2.0), tuple)


def test_no_copy_and_noncontiguous() -> None:
    """A transposed view is read correctly (copied once); the outputs are fresh tensors."""
    model, (x,) = small()
    f = leir.compile(model, (x,))
    xt = x.t().contiguous().t()
    assert not xt.is_contiguous()
    with torch.no_grad():
        want = model(x)
    r1, r2 = f(x), f(xt)
    assert torch.equal(r1, r2)
    assert reference_ok(r1.numpy(), want.numpy(), "f32")[0]
    assert r1.data_ptr() != r2.data_ptr()


def test_parameters_frozen() -> None:
    """Changing the module after compile changes nothing (torch.jit.freeze)."""
    model, (x,) = small()
    f = leir.compile(model, (x,))
    before = f(x)
    with torch.no_grad():
        model.fc.weight.add_(1.0)
    assert torch.equal(f(x), before)


# -- errors -------------------------------------------------------------------------------

def test_errors_exact() -> None:
    model, (x,) = small()
    f = leir.compile(model, (x,))
    with pytest.raises(leir.TensorError) as e:
        f(x.double())
    assert str(e.value) == ("leir.compile: Small: argument 'x': expected torch.float32 of shape "
                            "(16, 32), got torch.float64 of shape (16, 32)")
    assert e.value.tensor == "x"
    with pytest.raises(leir.TensorError) as e:
        f(torch.randn(16, 31))
    assert str(e.value) == ("leir.compile: Small: argument 'x': expected torch.float32 of shape "
                            "(16, 32), got torch.float32 of shape (16, 31)")
    with pytest.raises(leir.TensorError) as e:
        f(torch.randn(32))
    assert str(e.value) == ("leir.compile: Small: argument 'x': expected torch.float32 of shape "
                            "(16, 32), got torch.float32 of shape (32,)")
    with pytest.raises(leir.TensorError) as e:
        f(np.zeros((16, 32), np.float32))
    assert str(e.value) == "leir.compile: Small: argument 'x': expected a tensor f32[16, 32], got ndarray"
    with pytest.raises(leir.TensorError) as e:
        f(torch.empty(16, 32, device="meta"))
    assert str(e.value) == "leir.compile: Small: argument 'x': expected a CPU tensor, got one on meta"
    with pytest.raises(TypeError) as e:
        f(x, x)
    assert str(e.value) == "leir.compile: Small takes 1 arguments, 2 given"
    g = leir.compile(TwoOut(), (torch.randn(2), torch.randn(2), 2.0))
    with pytest.raises(leir.TensorError) as e:
        g(torch.randn(2), torch.randn(2), 3.0)
    assert str(e.value) == "leir.compile: TwoOut: argument 'scale': compiled for 2.0, got 3.0"


def test_option_errors_exact() -> None:
    model, inputs = small()
    with pytest.raises(ValueError) as e:
        leir.compile(model, inputs, target="cuda")
    assert str(e.value) == "leir.compile: unknown target 'cuda' (host)"
    with pytest.raises(ValueError) as e:
        leir.compile(model, inputs, tune="fast")
    assert str(e.value) == "leir.compile: tune must be None, \"default\" or a dict, not 'fast'"
    with pytest.raises(ValueError) as e:
        leir.compile(model, inputs, tune={"beam": 3})
    assert str(e.value) == ("leir.compile: unknown tuning option 'beam' (one of search, cost, "
                            "budget, beam_width, max_depth, expand, lookahead, time_limit, "
                            "verify_all, seed, unsafe_math)")


def test_tuner_error_exact(tmp_path: pathlib.Path, leirc: str) -> None:
    """leirc's refusal is passed on, and nothing is cached."""
    model, inputs = small()
    with pytest.raises(leir.LeirError) as e:
        leir.compile(model, inputs, tune={"search": "nope", "budget": 2}, cache_dir=tmp_path)
    assert str(e.value) == (f"leir.compile: {os.environ.get('LEIRC') or leirc} --tune=nope --budget=2 failed "
                            "(exit status 2):\nleirc: --tune must be auto, sketch, greedy, beam, bfs, dfs, mcts or "
                            "policy, not 'nope'\nTry 'leirc --help' for more information.\n")
    assert _cache_files(tmp_path) == []


def test_unsupported_operator_is_the_importers_message(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "fftmodel.py"
    src.write_text(textwrap.dedent("""\
        import torch


        class Model(torch.nn.Module):
            def forward(self, x):
                return torch.fft.fft(x).real


        def get_inputs():
            return [torch.randn(8)]
    """))
    model, inputs = load_model_file(src)
    with pytest.raises(TorchImportError) as want:
        from_torch(model, inputs)
    with pytest.raises(TorchImportError) as got:
        leir.compile(model, inputs)
    assert str(got.value) == str(want.value)
    assert str(got.value) == (f"unsupported operator 'torch.fft_fft' (FX node 'fft_fft', "
                              f"{src}:6)")


# -- the cache ----------------------------------------------------------------------------

def _cache_files(d: pathlib.Path) -> list[pathlib.Path]:
    return sorted(d.glob("*.json"))


def test_tune_cache_across_processes(tmp_path: pathlib.Path) -> None:
    """Tuned once; another process reads the cache and runs no leirc (LEIRC points nowhere)."""
    cache = tmp_path / "cache"
    model, (x,) = small()
    f = leir.compile(model, (x,), tune=FAST_TUNE, cache_dir=cache)
    assert f.how == "tuned"
    files = _cache_files(cache)
    assert len(files) == 1
    entry = json.loads(files[0].read_text())
    assert sorted(entry) == ["format", "key", "options", "program", "tuned"]  # no machine code
    assert entry["format"] == "leir-compile-cache 1" and files[0].stem == entry["key"]
    assert entry["options"] == {"budget": 4, "cost": "model", "max_depth": 2, "search": "greedy"}
    assert entry["program"] == leir.Program.parse(f.imported.text).header_text
    assert entry["tuned"] == f.program.header_text
    with torch.no_grad():
        want = model(x)
    assert reference_ok(f(x).numpy(), want.numpy(), "f32")[0]
    script = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        import leir
        from test_compile import small, FAST_TUNE
        model, (x,) = small()
        f = leir.compile(model, (x,), tune=FAST_TUNE, cache_dir={str(cache)!r})
        y = torch.load({str(tmp_path / "y.pt")!r})
        print(f.how, f.program.header_text == {entry["tuned"]!r}, torch.equal(f(x), y))
    """)
    torch.save(f(x), tmp_path / "y.pt")
    env = dict(os.environ, LEIRC=str(tmp_path / "no-such-leirc"))
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "cached True True\n"
    # other options: another entry
    g = leir.compile(model, (x,), tune=dict(FAST_TUNE, budget=3), cache_dir=cache)
    assert g.how == "tuned" and len(_cache_files(cache)) == 2


@pytest.mark.parametrize("damage", ["garbage", "empty", "truncated", "foreign", "other-options",
                                    "bad-program", "other-arguments", "not-an-object"])
def test_corrupt_or_foreign_entry_rebuilt(tmp_path: pathlib.Path, damage: str) -> None:
    model, (x,) = small()
    f = leir.compile(model, (x,), tune=FAST_TUNE, cache_dir=tmp_path)
    (path,) = _cache_files(tmp_path)
    good = path.read_text()
    entry = json.loads(good)
    if damage == "garbage":
        path.write_bytes(b"\x00\xffnot json")
    elif damage == "empty":
        path.write_text("")
    elif damage == "truncated":
        path.write_text(good[: len(good) // 2])
    elif damage == "foreign":  # another program's entry under this name
        entry["program"] = entry["program"].replace("f32[16,32]", "f32[16,33]")
        path.write_text(json.dumps(entry))
    elif damage == "other-options":
        entry["options"] = {"search": "beam"}
        path.write_text(json.dumps(entry))
    elif damage == "bad-program":
        entry["tuned"] = "%in A : f32[4]\nthis is not LEIR"
        path.write_text(json.dumps(entry))
    elif damage == "other-arguments":
        entry["tuned"] = "%in A : f32[4]\n%out E : f32[4]\nB^{4}_{tx=0}[E^{f32,g}_{tx}=A^{f32,g}_{tx};];\n"
        path.write_text(json.dumps(entry))
    else:
        path.write_text("[1, 2, 3]")
    g = leir.compile(model, (x,), tune=FAST_TUNE, cache_dir=tmp_path)
    assert g.how == "tuned"
    assert json.loads(path.read_text()) == json.loads(good)  # rebuilt, and the same
    assert torch.equal(g(x), f(x))
    assert leir.compile(model, (x,), tune=FAST_TUNE, cache_dir=tmp_path).how == "cached"


def test_default_cache_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from leir.compile import default_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "leir"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "leir"
    model, (x,) = small()
    f = leir.compile(model, (x,), tune=FAST_TUNE)
    assert f.how == "tuned" and len(_cache_files(tmp_path / "home" / ".cache" / "leir")) == 1


def test_tune_default(tmp_path: pathlib.Path) -> None:
    """tune="default" is leirc --tune with its defaults (the measured beam search)."""
    class Relu(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) * 2.0

    x = torch.randn(8, 64)
    f = leir.compile(Relu(), (x,), tune="default", cache_dir=tmp_path)
    assert f.how == "tuned"
    entry = json.loads(_cache_files(tmp_path)[0].read_text())
    assert entry["options"] == {}
    assert torch.equal(f(x), torch.relu(x) * 2.0)
    assert leir.compile(Relu(), (x,), tune="default", cache_dir=tmp_path).how == "cached"


# -- threads ------------------------------------------------------------------------------

def test_two_threads_one_object() -> None:
    model, inputs = load_model_file(ZOO / "Gemm_Add_ReLU.py")
    f = leir.compile(model, inputs)
    torch.manual_seed(5)
    xs = [torch.randn_like(inputs[0]) for _ in range(8)]
    want = [f(x) for x in xs]
    errors: list[str] = []
    barrier = threading.Barrier(2)

    def worker(k: int) -> None:
        barrier.wait()
        for i in range(200):
            j = (i + k) % len(xs)
            if not torch.equal(f(xs[j]), want[j]):
                errors.append(f"thread {k} call {i}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- leir.Compiled ------------------------------------------------------------------------

def test_program_compile_bit_identical(top_srcdir: pathlib.Path) -> None:
    p = leir.Program.load(top_srcdir / "examples" / "matmul.leir")
    rng = np.random.default_rng(0)
    ins = {t.name: rng.standard_normal(t.shape).astype(np.float32) for t in p.inputs}
    c = p.compile()
    assert [t.name for t in c.tensors] == ["A", "C", "D"]
    want = p.run(ins, target="host")
    for _ in range(2):
        got = c.run(ins)
        assert got["D"].tobytes() == want["D"].tobytes()
    with pytest.raises(leir.TensorError) as e:
        c.run({"A": ins["A"]})
    assert str(e.value) == "run: input 'C' is not given"
    with pytest.raises(leir.LeirError) as e:
        p.compile("cuda")
    assert str(e.value) == "libleir: error: leir_program_compile: unknown target 'cuda' (host)\n"


# -- README -------------------------------------------------------------------------------

def test_readme_example(top_srcdir: pathlib.Path) -> None:
    """The README's five-line example, exactly as written there, runs."""
    readme = (top_srcdir / "README.md").read_text()
    start = readme.index("<!-- leir.compile example -->")
    block = readme[start:].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) == 5
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)  # noqa: S102
    assert torch.allclose(scope["y"], scope["model"](scope["x"]), rtol=1e-5, atol=1e-6)


# -- torch.compile ------------------------------------------------------------------------

def test_torch_backend_fx_graph() -> None:
    """The backend function on an FX graph: a callable returning a tuple, as Dynamo's
    graphs do; a graph the importer refuses is left to PyTorch (gm.forward)."""
    class G(torch.nn.Module):
        def forward(self, x, y):
            return torch.sigmoid(x) + y

    gm = torch.fx.symbolic_trace(G())
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    fn = leir.torch_backend(gm, [x, y])
    assert hasattr(fn, "leir_compiled")
    (out,) = fn(x, y)
    assert reference_ok(out.numpy(), (torch.sigmoid(x) + y).numpy(), "f32")[0]

    class H(torch.nn.Module):
        def forward(self, x):
            return torch.fft.fft(x).real

    hm = torch.fx.symbolic_trace(H())
    assert leir.torch_backend(hm, [torch.randn(8)]) == hm.forward
    xg = torch.randn(4, 4, requires_grad=True)
    assert leir.torch_backend(gm, [xg, y]) == gm.forward  # gradients: PyTorch's
    # fake example inputs (no values), as Dynamo may give them: shapes and dtypes suffice
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        fakes = [torch.randn(4, 4), torch.randn(4, 4)]
    fn = leir.torch_backend(gm, fakes)
    assert hasattr(fn, "leir_compiled")
    (out,) = fn(x, y)
    assert reference_ok(out.numpy(), (torch.sigmoid(x) + y).numpy(), "f32")[0]


@pytest.mark.skipif(not hasattr(torch, "compile"),
                    reason=f"torch.compile needs PyTorch >= 2.0 (this is {torch.__version__})")
def test_torch_compile_backend() -> None:
    assert leir.register_torch_backend()
    from torch._dynamo import list_backends

    assert "leir" in list_backends(exclude_tags=())
    model, (x,) = small()
    with torch.no_grad():
        want = model(x)
        got = torch.compile(model, backend="leir")(x)
    assert reference_ok(got.numpy(), want.numpy(), "f32")[0]
