"""leir: LEIR tensor programs from Python.

The Python side of leirc, the compiler for LEIR (Loop-Equation IR), the
tensor-program notation of the Step-TP work.  From the build tree use it
with ``PYTHONPATH=python``; ``make install`` installs it.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

# The PyTorch front end (issue 36), loaded on first use so that `import leir`
# works without torch: leir.from_torch(module, example_inputs) -> leir.Imported.
_TORCH_IMPORT_NAMES = ("from_torch", "Imported", "TorchImportError")


def __getattr__(name: str) -> object:
    if name in _TORCH_IMPORT_NAMES:
        from . import torch_import

        return getattr(torch_import, name)
    raise AttributeError(f"module 'leir' has no attribute {name!r}")
