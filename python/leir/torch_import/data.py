"""The imported program and its data: ``Imported`` and its ``write`` in the corpus layout."""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NUMPY_DTYPES = {"f32": "float32", "f16": "float16", "f64": "float64", "i64": "int64",
                "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "bool": "bool"}


def to_numpy(tensor: Any, code: str) -> np.ndarray:
    """A tensor as a C-ordered NumPy array of LEIR dtype ``code`` (bf16 as ``uint16``, the
    raw bfloat16 bits, which is what leirc reads and writes: NumPy has no bfloat16)."""
    import torch

    t = tensor.detach().cpu()
    if code == "bf16":
        bits = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
        return np.array(bits, order="C", copy=True)
    t = t.to(getattr(torch, NUMPY_DTYPES[code]))
    return np.array(t.numpy(), order="C", copy=True)


def bf16_to_float32(bits: np.ndarray) -> np.ndarray:
    """Raw bfloat16 bits (``uint16``) as float32 values."""
    wide = np.left_shift(np.array(bits, dtype=np.uint32, ndmin=1), 16)
    return wide.view(np.float32).reshape(np.shape(bits))  # a 0-d array stays 0-d


@dataclass
class Imported:
    """A PyTorch module as a LEIR program.

    ``text``: the program with its ``%in``/``%param``/``%out`` header; ``arrays``: the data
    of every ``%in`` and ``%param`` by LEIR name; ``outputs``: PyTorch's result for every
    ``%out``; ``roles`` and ``dtypes``: each name's role and LEIR dtype code; ``arguments``:
    forward's arguments in order, ``(name, LEIR name)`` (``None`` for one that is no tensor:
    a constant of the program); ``returns``: what forward returns (``"tensor"``, ``"tuple"``
    or ``"list"`` of the ``%out`` tensors in order)."""

    name: str
    text: str
    arrays: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    roles: dict[str, str] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    torch_ops: list[str] = field(default_factory=list)
    arguments: list[tuple[str, str | None]] = field(default_factory=list)
    returns: str = "tensor"

    def write(self, directory: str | pathlib.Path) -> pathlib.Path:
        """Write ``NAME.leir``, one ``ROLE_NAME.npy`` per tensor and ``manifest.json`` (the
        corpus's ``data/<level>/<name>/`` layout) into ``directory``; returns the program's
        path."""
        out = pathlib.Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        program = out / f"{self.name}.leir"
        program.write_text(self.text, encoding="utf-8")
        tensors = []
        for leir_name, role in self.roles.items():
            array = self.arrays.get(leir_name) if role != "output" else self.outputs.get(leir_name)
            if array is None:
                continue
            file = f"{role}_{leir_name}.npy"
            np.save(out / file, array)
            tensors.append({"role": role, "leir_name": leir_name, "shape": list(array.shape),
                            "dtype": str(array.dtype), "file": file})
        manifest = {"workload": self.name, "program": program.name, "torch_ops": self.torch_ops,
                    "tensors": tensors}
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return program
