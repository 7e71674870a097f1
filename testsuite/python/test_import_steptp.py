"""leirc-import and leir.from_torch on model files in the Step-TP authors' convention (issue 62).

Their files give ``get_default_input_shapes()`` and ``get_default_model_params_shapes()``
(lists) to ``get_model(*params, dtype=…)`` and ``get_real_inputs(*shapes, dtype=…)`` (or
``get_inputs``), with ``dtype`` defaulting to ``torch.float16``; the importer, like their
translator, builds in float32 and keeps the module's mode (training mode: BatchNorm uses the
batch statistics).  For each file of zoo_steptp/: ``load_model_file`` + ``from_torch`` and
``leirc-import`` (its ``main``, in process: a Python start with torch per model would take
minutes) give the same program and data, every array has its declared shape, and the program
run by ``leirc --run`` on the data ``--data-dir`` wrote matches PyTorch under the reference
rule (SPEC §13.4).  The real ``leirc-import`` command is run on the 0-d tensor case end to
end; the convention's errors have exact messages.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from leir.torch_import import TorchImportError, from_torch  # noqa: E402
from leir.torch_import.cli import main as cli_main  # noqa: E402
from leir.torch_import.kernelbench import load_model_file  # noqa: E402
from test_import import as_float, cli_command, reference_ok, run_leirc  # noqa: E402

ZOO = pathlib.Path(__file__).resolve().parent / "zoo_steptp"
MODELS = sorted(p.stem for p in ZOO.glob("*.py"))
DECL = re.compile(r"^%(in|param|out) (\w+) : (\w+)\[([\d,]*)\]$")


def declared(text: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Each declared name's dtype code and shape, from the program's header."""
    decls = {}
    for line in text.splitlines():
        m = DECL.match(line)
        if m:
            decls[m[2]] = (m[3], tuple(int(s) for s in m[4].split(",")) if m[4] else ())
    return decls


def leirc_inputs(imp, d: pathlib.Path) -> dict[str, pathlib.Path]:
    return {n: d / f"{imp.roles[n]}_{n}.npy" for n in imp.arrays}


def reference_scaled(inputs: tuple) -> tuple:
    """The reference's verification inputs (SPEC §13.4): a floating-point tensor whose
    max |x| < 10 and with no zero element is multiplied by 10."""
    return tuple(t * 10 if isinstance(t, torch.Tensor) and t.is_floating_point()
                 and float(t.abs().max()) < 10 and bool(t.all()) else t for t in inputs)


def check_run(leirc: str, imp, d: pathlib.Path, what: str, written: bool = False) -> None:
    """``imp``'s program and data in ``d`` (written there unless ``written``) run by
    ``leirc --run``: every output matches PyTorch's under the reference rule."""
    prog = d / f"{imp.name}.leir" if written else imp.write(d)
    run_leirc(leirc, prog, leirc_inputs(imp, d), d / "out")
    for out, want in imp.outputs.items():
        got = np.load(d / "out" / f"{out}.npy")
        ok, why = reference_ok(got, want, imp.text)
        assert ok, f"{what}: output {out} differs from PyTorch: {why}"


def test_zoo_size() -> None:
    assert len(MODELS) >= 40


@pytest.mark.parametrize("name", MODELS)
def test_steptp_zoo_model(name: str, leirc: str, tmp_path: pathlib.Path) -> None:
    path = ZOO / f"{name}.py"
    model, inputs = load_model_file(path)
    imp = from_torch(model, inputs, name=name)
    assert "f16" not in imp.text  # built in float32, whatever the file's dtype default
    # leirc-import: the same program and the same data
    data = tmp_path / "cli"
    assert cli_main([str(path), "-o", str(tmp_path / f"{name}.leir"),
                     "--data-dir", str(data)]) == 0
    assert (tmp_path / f"{name}.leir").read_text() == imp.text
    decls = declared(imp.text)
    for leir_name, array in imp.arrays.items():
        written = np.load(data / f"{imp.roles[leir_name]}_{leir_name}.npy")
        assert written.dtype == array.dtype and written.tobytes() == array.tobytes()
        assert array.shape == written.shape == decls[leir_name][1], leir_name
    for leir_name, array in imp.outputs.items():
        assert array.shape == decls[leir_name][1], leir_name
    check_run(leirc, imp, data, name, written=True)  # what leirc-import wrote
    # the reference's own verification inputs: the same program, still matching
    scaled = from_torch(model, reference_scaled(inputs), name=name)
    assert scaled.text == imp.text
    check_run(leirc, scaled, tmp_path / "scaled", f"{name} (inputs scaled by 10)")


# -- half precision: the authors' dtype default -------------------------------------------
HALF = ["Gemm_Multiply_0d", "cumsum_reverse", "Conv2d_BatchNorm_ReLU_Train", "LayerNorm_GELU",
        "Attention_Scaled_0d"]


@pytest.mark.parametrize("name", HALF)
def test_steptp_zoo_f16(name: str, leirc: str, tmp_path: pathlib.Path) -> None:
    model, inputs = load_model_file(ZOO / f"{name}.py")
    imp = from_torch(model, inputs, name=name, dtype="f16")
    assert "f32" not in imp.text
    decls = declared(imp.text)
    for leir_name, array in imp.arrays.items():
        assert array.shape == decls[leir_name][1]
    prog = imp.write(tmp_path)
    run_leirc(leirc, prog, leirc_inputs(imp, tmp_path), tmp_path / "out")
    for out, want in imp.outputs.items():
        got = np.load(tmp_path / "out" / f"{out}.npy")
        ok, why = reference_ok(as_float(got, "f16"), as_float(want, "f16"), imp.text)
        assert ok, f"{name} in f16: {why}"


# -- 0-d tensor attributes ------------------------------------------------------------------
def test_zero_dim_attribute_arrays() -> None:
    """``self.multiplier = torch.tensor(m, dtype=dtype)`` is a ``%param X : f32[]`` whose
    array is 0-d, in every dtype."""
    model, inputs = load_model_file(ZOO / "Gemm_Multiply_0d.py")
    for dtype, code in ((None, "f32"), ("f16", "f16"), ("bf16", "bf16")):
        imp = from_torch(model, inputs, dtype=dtype)
        scalars = [n for n, (_, shape) in declared(imp.text).items() if shape == ()]
        assert scalars == ["E"]
        assert f"%param E : {code}[]" in imp.text.splitlines()
        assert imp.arrays["E"].shape == ()
        assert float(as_float(imp.arrays["E"], code)) == 2.5


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_cli_zero_dim_end_to_end(dtype: str, leirc: str, tmp_path: pathlib.Path) -> None:
    """The real leirc-import writes the 0-d parameter as a 0-d .npy that the real
    ``leirc --run --input E=…`` accepts, and the result matches PyTorch."""
    out, data = tmp_path / "g.leir", tmp_path / "d"
    res = subprocess.run(cli_command(leirc) + [str(ZOO / "Gemm_Multiply_0d.py"), "--dtype",
                                               dtype, "-o", str(out), "--data-dir", str(data)],
                         capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (0, "")
    text = out.read_text()
    assert text.splitlines()[:5] == [f"%in A : {dtype}[16,32]", f"%param E : {dtype}[]",
                                     f"%param F : {dtype}[24,32]", f"%param G : {dtype}[24]",
                                     f"%out D : {dtype}[16,24]"]
    scalar = np.load(data / "param_E.npy")
    assert scalar.shape == () and float(scalar) == 2.5
    manifest = json.loads((data / "manifest.json").read_text())
    assert [t["shape"] for t in manifest["tensors"] if t["leir_name"] == "E"] == [[]]
    cmd = [leirc, "--run", "--output-dir", str(tmp_path / "o")]
    for t in manifest["tensors"]:
        if t["role"] != "output":
            cmd += ["--input", f"{t['leir_name']}={data / t['file']}"]
    (tmp_path / "o").mkdir()
    res = subprocess.run(cmd + [str(out)], capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (0, "")
    got = np.load(tmp_path / "o" / "D.npy")
    ok, why = reference_ok(got.astype(np.float32), np.load(data / "output_D.npy")
                           .astype(np.float32), text)
    assert ok, why


# -- training mode ----------------------------------------------------------------------
def test_steptp_keeps_training_mode() -> None:
    """A Step-TP module stays in training mode (batch statistics: no running-statistics
    parameters); ``train=False`` (``--no-train``) imports the running statistics; a file
    whose get_model() returns ``.eval()`` is imported in eval mode."""
    path = ZOO / "BatchNorm1d_Train.py"
    model, inputs = load_model_file(path)
    assert model.training
    train = from_torch(model, inputs)
    assert [line for line in train.text.splitlines() if line.startswith("%")] == [
        "%in A : f32[16,12,10]", "%param D : f32[12]", "%param E : f32[12]",
        "%out C : f32[16,12,10]"]
    with torch.no_grad():
        want = torch.nn.functional.batch_norm(inputs[0], None, None, model.bn.weight,
                                              model.bn.bias, training=True)
    assert np.array_equal(train.outputs["C"], want.numpy())
    # the caller's module is left as given: tracing ran it, its statistics are unchanged
    assert not model.bn.running_mean.any() and int(model.bn.num_batches_tracked) == 0
    model, inputs = load_model_file(path, train=False)
    assert not model.training
    evald = from_torch(model, inputs)
    assert [line for line in evald.text.splitlines() if line.startswith("%")] == [
        "%in A : f32[16,12,10]", "%param D : f32[12]", "%param E : f32[12]",
        "%param F : f32[12]", "%param G : f32[12]", "%out C : f32[16,12,10]"]
    assert not np.allclose(evald.outputs["C"], train.outputs["C"], atol=1e-2)
    model, _ = load_model_file(ZOO / "BatchNorm2d_Eval_Explicit.py")
    assert not model.training
    model, _ = load_model_file(ZOO / "BatchNorm2d_Eval_Explicit.py", train=True)
    assert model.training


def test_cli_no_train(tmp_path: pathlib.Path) -> None:
    path = str(ZOO / "BatchNorm1d_Train.py")
    assert cli_main([path, "-o", str(tmp_path / "t.leir")]) == 0
    assert cli_main([path, "--no-train", "-o", str(tmp_path / "e.leir")]) == 0
    assert cli_main([path, "--train", "-o", str(tmp_path / "t2.leir")]) == 0
    model, inputs = load_model_file(path, train=False)
    assert (tmp_path / "e.leir").read_text() == from_torch(model, inputs, name="e").text
    assert (tmp_path / "t.leir").read_text() == (tmp_path / "t2.leir").read_text()
    assert (tmp_path / "t.leir").read_text() != (tmp_path / "e.leir").read_text()


def test_load_model_file_exported() -> None:
    import leir.torch_import
    assert leir.torch_import.load_model_file is load_model_file


def test_kernelbench_default_stays_eval() -> None:
    model, _ = load_model_file(ZOO.parent / "zoo" / "Conv2d_BatchNorm_Scaling.py")
    assert not model.training


def test_real_inputs_preferred_and_dtype_passed(tmp_path: pathlib.Path) -> None:
    """get_real_inputs wins over get_inputs; both functions get dtype=torch.float32; the
    seed is set before each."""
    path = tmp_path / "both.py"
    path.write_text(textwrap.dedent("""\
        import torch
        import torch.nn as nn

        SEEN = []


        class Model(nn.Module):
            def forward(self, x):
                return x * 2


        def get_default_input_shapes():
            return [[2, 3]]


        def get_default_model_params_shapes():
            return []


        def get_model(*params, dtype=torch.float16):
            SEEN.append(("model", params, dtype))
            return Model()


        def get_inputs(*shapes, dtype=torch.float16):
            return [torch.zeros(*shapes[0], dtype=dtype)]


        def get_real_inputs(*shapes, dtype=torch.float16):
            SEEN.append(("inputs", shapes, dtype))
            return [torch.randn(*shapes[0], dtype=dtype)]
        """))
    model, (x,) = load_model_file(path, seed=3)
    import sys
    seen = sys.modules["leir_model_both"].SEEN
    assert seen == [("model", (), torch.float32), ("inputs", ([2, 3],), torch.float32)]
    torch.manual_seed(3)
    assert torch.equal(x, torch.randn(2, 3))
    _, (z,) = load_model_file(path, inputs="get_inputs")
    assert z.dtype == torch.float32 and not z.any()


# -- Tensor.flip --------------------------------------------------------------------------
def test_flip_text() -> None:
    """A flip is one copy nest reading index n-1-i on each flipped dimension."""
    model, inputs = load_model_file(ZOO / "Flip_HW.py")
    imp = from_torch(model, inputs)
    assert imp.text == (
        "%in A : f32[2,3,7,9]\n%out C : f32[2,3,7,9]\n"
        "B^{2}_{tx=0}L^{3}_{a=0}L^{7}_{c=0}L^{9}_{d=0}"
        "[C^{f32,g}_{tx,a,c,d}=A^{f32,g}_{tx,a,6-c,8-d};];\n")
    assert np.array_equal(imp.outputs["C"], np.flip(inputs[0].numpy(), (2, 3)))


class _Flips(torch.nn.Module):
    def forward(self, x):
        return x.flip(0, 2) + torch.fliplr(x) - x.flipud() * x.flip(dims=(-1,))


def test_flip_forms(leirc: str, tmp_path: pathlib.Path) -> None:
    x = torch.randn(4, 5, 3)
    imp = from_torch(_Flips(), (x,), name="flips")
    assert imp.torch_ops == ["flip", "fliplr", "add", "flipud", "flip", "mul", "sub"]
    prog = imp.write(tmp_path)
    run_leirc(leirc, prog, leirc_inputs(imp, tmp_path), tmp_path / "out")
    run_leirc(leirc, prog, leirc_inputs(imp, tmp_path), tmp_path / "host", "--target=host")
    (out,) = imp.outputs
    assert np.array_equal(np.load(tmp_path / "out" / f"{out}.npy"), imp.outputs[out])
    assert np.array_equal(np.load(tmp_path / "host" / f"{out}.npy"), imp.outputs[out])


# -- the convention's errors ---------------------------------------------------------------
HEAD = "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n" \
       "    def __init__(self, *args, dtype=torch.float16):\n        super().__init__()\n\n" \
       "    def forward(self, x):\n        return x + 1\n\n\n"
MODEL = "def get_model(*params, dtype=torch.float16):\n    return Model(*params, dtype=dtype)\n"
SHAPES = "def get_default_input_shapes():\n    return [[2, 3]]\n"
PARAMS = "def get_default_model_params_shapes():\n    return []\n"
INPUTS = "def get_real_inputs(*shapes, dtype=torch.float16):\n" \
         "    return [torch.randn(*s, dtype=dtype) for s in shapes]\n"
BAD = {
    "no_input_shapes": (
        PARAMS + MODEL + INPUTS,
        "{path}: get_real_inputs() takes input shapes but the file has no "
        "get_default_input_shapes()"),
    "no_input_shapes_get_inputs": (
        "def get_inputs(*shapes, dtype=torch.float16):\n"
        "    return [torch.randn(*s, dtype=dtype) for s in shapes]\n",
        "{path}: get_inputs() takes input shapes but the file has no "
        "get_default_input_shapes()"),
    "too_many_shapes": (
        "def get_default_input_shapes():\n    return [[2, 3], [3, 4]]\n" + PARAMS + MODEL
        + "def get_real_inputs(x_shape, dtype=torch.float16):\n"
          "    return [torch.randn(x_shape, dtype=dtype)]\n",
        "{path}: get_real_inputs() takes 1 input shape, get_default_input_shapes() returns 2"),
    "too_few_shapes": (
        SHAPES + PARAMS + MODEL
        + "def get_real_inputs(a, b, c=None, dtype=torch.float16):\n    return [a]\n",
        "{path}: get_real_inputs() takes 2 to 3 input shapes, get_default_input_shapes() "
        "returns 1"),
    "too_many_params": (
        SHAPES + "def get_default_model_params_shapes():\n    return [8, 4, 0.5]\n"
        + "def get_model(in_features, out_features, dtype=torch.float16):\n"
          "    return Model()\n" + INPUTS,
        "{path}: get_model() takes 2 model parameters, get_default_model_params_shapes() "
        "returns 3"),
    "too_few_params": (
        SHAPES + PARAMS + "def get_model(features, *rest, dtype=torch.float16):\n"
                          "    return Model()\n" + INPUTS,
        "{path}: get_model() takes at least 1 model parameter, "
        "get_default_model_params_shapes() returns 0"),
    "no_params_shapes": (
        SHAPES + "def get_model(in_features, out_features, dtype=torch.float16):\n"
                 "    return Model()\n" + INPUTS,
        "{path}: get_model() takes model parameters but the file has no "
        "get_default_model_params_shapes()"),
    "shapes_not_a_list": (
        "def get_default_input_shapes():\n    return 7\n" + PARAMS + MODEL + INPUTS,
        "{path}: get_default_input_shapes() returns int, not a list"),
    "shapes_fail": (
        "def get_default_input_shapes():\n    return [[1 // 0]]\n" + PARAMS + MODEL + INPUTS,
        "{path}: get_default_input_shapes() fails: ZeroDivisionError: integer division or "
        "modulo by zero"),
    "params_not_a_function": (
        SHAPES + "get_default_model_params_shapes = [8, 4]\n" + MODEL + INPUTS,
        "{path}: 'get_default_model_params_shapes' is not a function"),
    "forward_arity": (
        "def get_default_input_shapes():\n    return [[2, 3], [4, 5]]\n" + PARAMS + MODEL
        + INPUTS,
        "{path}: Model.forward() takes 1 input, get_real_inputs() returns 2"),
    "inputs_not_a_list": (
        SHAPES + PARAMS + MODEL + "def get_real_inputs(*shapes, dtype=None):\n    return 3\n",
        "{path}: get_real_inputs() returns int, not a list of inputs"),
    "no_inputs_function": (
        SHAPES + PARAMS + MODEL,
        "{path}: no function 'get_inputs'"),
}


def write_bad(tmp_path: pathlib.Path, key: str) -> tuple[pathlib.Path, str]:
    body, message = BAD[key]
    path = tmp_path / f"{key}.py"
    path.write_text(HEAD + body)
    return path, message.format(path=path)


@pytest.mark.parametrize("key", sorted(BAD))
def test_convention_error(key: str, tmp_path: pathlib.Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    path, message = write_bad(tmp_path, key)
    with pytest.raises(TorchImportError) as info:
        load_model_file(path)
    assert str(info.value) == message
    assert cli_main([str(path), "-o", str(tmp_path / "x.leir")]) == 1
    assert capsys.readouterr().err == f"leirc-import: error: {message}\n"
    assert not (tmp_path / "x.leir").exists()


def test_convention_error_command(leirc: str, tmp_path: pathlib.Path) -> None:
    path, message = write_bad(tmp_path, "too_many_shapes")
    res = subprocess.run(cli_command(leirc) + [str(path), "-o", str(tmp_path / "x.leir")],
                         capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (1, f"leirc-import: error: {message}\n")
