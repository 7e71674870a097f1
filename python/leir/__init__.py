"""leir: LEIR tensor programs from Python.

The Python side of leirc, the compiler for LEIR (Loop-Equation IR), the
tensor-program notation of the Step-TP work: parse a program, list and
apply its legal optimisation steps, judge a proposed step, run it on NumPy
arrays (reference interpreter or host JIT), emit PTX and other code, and
estimate or measure its cost -- all in memory, through libleir
(``libleir.so.0``, bound with ctypes; no compiled extension).

Quick start::

    import leir
    p = leir.Program.load("examples/matmul.leir")
    best = min(p.candidates(), key=lambda c: p.apply(c).cost("host"))
    q = p.apply(best)
    out = q.run({"A": a, "C": c})["D"]        # NumPy arrays in and out

From PyTorch (needs torch)::

    f = leir.compile(model, (x,))             # imported, JIT-compiled once
    y = f(x)                                  # torch tensors in and out

Main names: :class:`Program` (``parse``, ``load``, ``text``, ``tensors``,
``candidates``, ``apply``, ``check_step``, ``compare``, ``run``,
``compile``, ``emit``, ``ptx``, ``cost``, ``measure``), :class:`Compiled`
(a program compiled once: ``run``), :func:`compile` (a PyTorch module as a
callable running the compiled program; :func:`register_torch_backend`
registers ``torch.compile``'s backend ``"leir"`` where torch >= 2.0), :class:`Context` (options: seed,
max_steps, max_memory, tolerance, unsafe_math, gpu_arch; one default per
thread), :class:`LeirError` (``.diagnostics``; ``str()`` is leirc's
rendered diagnostics).  :mod:`leir.env` has ``StepEnv``, a Gymnasium
environment whose actions are optimisation steps (needs ``gymnasium``).

dtypes: f32/f64/f16 are NumPy's float32/float64/float16, integers and bool
their NumPy types; bf16 tensors are ``numpy.uint16`` arrays of bfloat16 bit
patterns (:func:`bf16_to_float32`, :func:`float32_to_bf16`;
``ml_dtypes.bfloat16`` inputs are accepted too).

Where libleir comes from: ``$LEIR_LIBDIR/libleir.so.0`` when
``LEIR_LIBDIR`` is set (the build tree: ``LEIR_LIBDIR=_build/.libs``),
else the package's own copy (the wheel of ``make wheel`` bundles
``leir/libleir.so.0`` and ``leir/bin/leirc``), else the system's loader
(installed).  From the build tree use the package
with ``PYTHONPATH=python``; ``make install`` installs it.  ``import leir``
works without the library; the first call that needs it raises
:class:`LibraryNotFound`.
"""

from __future__ import annotations

from ._lib import LibraryNotFound, available as library_available, library_path
from .core import (
    Candidate,
    Compiled,
    Comparison,
    Context,
    Diagnostic,
    LeirError,
    Program,
    StepResult,
    Tensor,
    TensorError,
    Unsupported,
    bf16_to_float32,
    default_context,
    float32_to_bf16,
    numpy_dtype,
)

__all__ = [
    "__version__",
    "Program",
    "Compiled",
    "compile",
    "CompiledModule",
    "register_torch_backend",
    "torch_backend",
    "Candidate",
    "StepResult",
    "Comparison",
    "Tensor",
    "Context",
    "default_context",
    "Diagnostic",
    "LeirError",
    "TensorError",
    "Unsupported",
    "LibraryNotFound",
    "library_available",
    "library_path",
    "library_version",
    "numpy_dtype",
    "bf16_to_float32",
    "float32_to_bf16",
]

__version__ = "0.1.0"

# leir.compile (issue 60): imports neither torch nor numpy until called.  The
# function is bound after the submodule, so ``leir.compile`` is the function
# (the module stays importable as ``leir.compile`` through sys.modules).
from .compile import CompiledModule, register_torch_backend, torch_backend  # noqa: E402
from .compile import _register_if_torch_loaded  # noqa: E402
from .compile import compile  # noqa: E402,A004

_register_if_torch_loaded()


def library_version() -> str:
    """The version of the loaded libleir (``leir_version()``)."""
    from . import _lib

    return (_lib.lib().leir_version() or b"").decode()


# The PyTorch front end (issue 36), loaded on first use so that `import leir`
# works without torch: leir.from_torch(module, example_inputs) -> leir.Imported.
_TORCH_IMPORT_NAMES = ("from_torch", "Imported", "TorchImportError")


def __getattr__(name: str) -> object:
    if name in _TORCH_IMPORT_NAMES:
        from . import torch_import

        return getattr(torch_import, name)
    raise AttributeError(f"module 'leir' has no attribute {name!r}")
