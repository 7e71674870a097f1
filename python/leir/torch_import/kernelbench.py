"""Loading a KernelBench-style model file: a ``Model`` class, ``get_inputs()``, and
``get_init_inputs()`` or ``get_model()`` when present."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from typing import Any

from .errors import TorchImportError


def load_model_file(path: str | pathlib.Path, cls: str = "Model", inputs: str = "get_inputs",
                    seed: int = 0, train: bool = False) -> tuple[Any, tuple[Any, ...]]:
    """The module and its example inputs defined by the file at ``path``; the module is put
    in eval mode unless ``train``; ``torch.manual_seed(seed)`` before building each."""
    import torch

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
    try:
        torch.manual_seed(seed)
        if hasattr(mod, "get_model"):
            model = mod.get_model()
        else:
            klass = getattr(mod, cls, None)
            if klass is None:
                raise TorchImportError(f"{path}: no class '{cls}'")
            init = mod.get_init_inputs() if hasattr(mod, "get_init_inputs") else []
            model = klass(*init)
        fn = getattr(mod, inputs, None)
        if fn is None:
            raise TorchImportError(f"{path}: no function '{inputs}'")
        torch.manual_seed(seed)
        example = fn()
    except TorchImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's file
        raise TorchImportError(f"{path}: cannot build the model or its inputs: "
                               f"{type(exc).__name__}: {exc}") from None
    if not isinstance(model, torch.nn.Module):
        raise TorchImportError(f"{path}: '{cls}' is not a torch.nn.Module")
    model.train(train)
    if isinstance(example, torch.Tensor):
        example = [example]
    return model, tuple(example)
