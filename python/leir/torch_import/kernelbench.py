"""Loading a model file in either of two conventions.

KernelBench's: a ``Model`` class, ``get_inputs()``, and ``get_init_inputs()`` (the class's
constructor arguments) or ``get_model()`` when present; the module is put in eval mode.

The Step-TP authors': ``get_default_input_shapes()`` and ``get_default_model_params_shapes()``
return lists, ``get_model(*params, dtype=…)`` builds the module from the second and
``get_real_inputs(*shapes, dtype=…)`` (or ``get_inputs(*shapes, dtype=…)``) the inputs from the
first.  Their ``dtype`` default is usually ``torch.float16``; like the authors' translator, every
function that takes a ``dtype`` is passed ``dtype=torch.float32`` (``from_torch(…, dtype=…)``
converts afterwards), and the module keeps the mode it was built in (training mode unless the
file says otherwise: batch normalisation uses the batch statistics, the reference's rule).
"""

from __future__ import annotations

import importlib.util
import inspect
import pathlib
import sys
from typing import Any, Callable

from .errors import TorchImportError

INPUT_SHAPES = "get_default_input_shapes"
PARAMS_SHAPES = "get_default_model_params_shapes"
STEPTP_MARKERS = (INPUT_SHAPES, PARAMS_SHAPES, "get_real_inputs")


def is_steptp(mod: Any) -> bool:
    """Whether a loaded model file follows the Step-TP authors' convention (it defines
    ``get_default_input_shapes``, ``get_default_model_params_shapes`` or
    ``get_real_inputs``)."""
    return any(callable(getattr(mod, n, None)) for n in STEPTP_MARKERS)


def load_module(path: str | pathlib.Path) -> Any:
    """The Python module of the file at ``path`` (no ``__pycache__`` written beside it)."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise TorchImportError(f"{path}: no such file")
    name = "leir_model_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TorchImportError(f"{path}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # no __pycache__ beside the user's (or the zoo's) file
    try:
        spec.loader.exec_module(mod)
    except Exception as exc:  # noqa: BLE001 - the user's file
        raise TorchImportError(f"{path}: cannot load: {type(exc).__name__}: {exc}") from None
    finally:
        sys.dont_write_bytecode = saved
    return mod


class _Signature:
    """What a function of the model file takes: how many positional arguments (``lo`` to
    ``hi``, ``hi`` None for ``*args``) and whether a ``dtype`` keyword."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.lo, self.hi, self.dtype = 0, None, False
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):  # a builtin or C function: no arity checks
            return
        kinds = inspect.Parameter
        self.dtype = any(p.kind == kinds.VAR_KEYWORD or (p.name == "dtype" and p.kind in (
            kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY)) for p in params)
        pos = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
               and not (self.dtype and p.name == "dtype")]
        self.lo = sum(1 for p in pos if p.default is p.empty)
        var = any(p.kind == kinds.VAR_POSITIONAL for p in params)
        self.hi = None if var else len(pos)

    def wants_args(self) -> bool:
        return self.lo > 0 or self.hi is None

    def takes(self, noun: str) -> str:
        """``2 input shapes``, ``1 model parameter``, ``1 to 3 …``, ``at least 1 …``."""
        if self.hi is None:
            count = f"at least {self.lo}"
        elif self.lo == self.hi:
            count = str(self.lo)
        else:
            count = f"{self.lo} to {self.hi}"
        return f"{count} {noun}" + ("" if count.endswith(" 1") or count == "1" else "s")

    def accepts(self, n: int) -> bool:
        return self.lo <= n and (self.hi is None or n <= self.hi)


def _defaults(path: pathlib.Path, mod: Any, getter: str) -> list[Any] | None:
    """The list ``getter()`` returns (None when the file has no such function)."""
    fn = getattr(mod, getter, None)
    if fn is None:
        return None
    if not callable(fn):
        raise TorchImportError(f"{path}: '{getter}' is not a function")
    try:
        got = fn()
    except Exception as exc:  # noqa: BLE001 - the user's file
        raise TorchImportError(f"{path}: {getter}() fails: {type(exc).__name__}: {exc}") from None
    if not isinstance(got, (list, tuple)):
        raise TorchImportError(f"{path}: {getter}() returns {type(got).__name__}, not a list")
    return list(got)


def _call(path: pathlib.Path, mod: Any, fname: str, getter: str, noun: str) -> Any:
    """``fname(*getter(), dtype=torch.float32)``, the Step-TP way, with the arity checked
    (``noun`` names one argument in messages: ``input shape``, ``model parameter``)."""
    import torch

    fn = getattr(mod, fname)
    sig = _Signature(fn)
    args = _defaults(path, mod, getter)
    if args is None:
        if sig.wants_args():
            raise TorchImportError(f"{path}: {fname}() takes {noun}s but the file has no "
                                   f"{getter}()")
        args = []
    elif not sig.accepts(len(args)):
        raise TorchImportError(f"{path}: {fname}() takes {sig.takes(noun)}, {getter}() "
                               f"returns {len(args)}")
    kwargs = {"dtype": torch.float32} if sig.dtype else {}
    return fn(*args, **kwargs)


def load_model_file(path: str | pathlib.Path, cls: str = "Model", inputs: str | None = None,
                    seed: int = 0, train: bool | None = None) -> tuple[Any, tuple[Any, ...]]:
    """The module and its example inputs defined by the file at ``path``.

    ``inputs`` names the function giving the inputs (default ``get_real_inputs`` where a
    Step-TP file has it, else ``get_inputs``).  ``train``: True or False puts the module in
    training or eval mode; None (the default) is the convention's: eval mode for a
    KernelBench file, the mode the file built it in for a Step-TP file.
    ``torch.manual_seed(seed)`` before building each of the module and the inputs."""
    import torch

    path = pathlib.Path(path)
    mod = load_module(path)
    steptp = is_steptp(mod)
    if inputs is None:
        inputs = "get_real_inputs" if steptp and hasattr(mod, "get_real_inputs") else "get_inputs"
    try:
        torch.manual_seed(seed)
        if hasattr(mod, "get_model"):
            model = _call(path, mod, "get_model", PARAMS_SHAPES, "model parameter")
        else:
            klass = getattr(mod, cls, None)
            if klass is None:
                raise TorchImportError(f"{path}: no class '{cls}'")
            if steptp:
                model = _call(path, mod, cls, PARAMS_SHAPES, "model parameter")
            else:
                init = mod.get_init_inputs() if hasattr(mod, "get_init_inputs") else []
                model = klass(*init)
        if getattr(mod, inputs, None) is None:
            raise TorchImportError(f"{path}: no function '{inputs}'")
        torch.manual_seed(seed)
        example = _call(path, mod, inputs, INPUT_SHAPES, "input shape")
    except TorchImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's file
        raise TorchImportError(f"{path}: cannot build the model or its inputs: "
                               f"{type(exc).__name__}: {exc}") from None
    if not isinstance(model, torch.nn.Module):
        raise TorchImportError(f"{path}: '{cls}' is not a torch.nn.Module")
    if train is not None:
        model.train(train)
    elif not steptp:
        model.eval()
    if isinstance(example, torch.Tensor):
        example = [example]
    if not isinstance(example, (list, tuple)):
        raise TorchImportError(f"{path}: {inputs}() returns {type(example).__name__}, "
                               "not a list of inputs")
    forward = _Signature(model.forward)
    if not forward.accepts(len(example)):
        raise TorchImportError(f"{path}: {type(model).__name__}.forward() takes "
                               f"{forward.takes('input')}, {inputs}() returns {len(example)}")
    return model, tuple(example)
