"""``leir.compile``: a PyTorch module as a callable that runs leirc's code.

``leir.compile(module, example_inputs)`` imports the module with the PyTorch
front end (:func:`leir.from_torch`), optionally tunes the program (leirc's
``--tune``, cached on disk), JIT-compiles it once for the host
(:meth:`leir.Program.compile`) and returns a :class:`CompiledModule`, a
callable with the module's signature that runs the compiled code on CPU
tensors.  Parameters are bound at compile time, as ``torch.jit.freeze``
does.

Where ``torch.compile`` exists (PyTorch 2.0 and later),
:func:`register_torch_backend` registers the backend ``"leir"``
(:func:`torch_backend`): each FX graph that the importer takes is compiled
by :func:`compile`, the others are left to PyTorch.

The tuning cache: one JSON file per (program, options) under ``cache_dir``
(default ``$XDG_CACHE_HOME/leir``, else ``~/.cache/leir``), named by the
SHA-256 of the program's canonical text, the tuning options and the
library's version.  It holds LEIR text and options only, never machine
code; an entry that does not read back as the same key, or whose program
does not parse or has other arguments, is ignored and rebuilt.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Mapping, Sequence, Union

from .core import Compiled, Context, LeirError, Program, TensorError

__all__ = ["compile", "CompiledModule", "torch_backend", "register_torch_backend",
           "TUNE_OPTIONS", "CACHE_FORMAT", "default_cache_dir"]

#: The first key of every cache entry, and its version.
CACHE_FORMAT = "leir-compile-cache 1"

#: The options a ``tune`` dict may give (leirc's flags, ``_`` for ``-``):
#: ``search`` is ``--tune=S``; a ``True`` value gives the bare flag.
TUNE_OPTIONS = ("search", "cost", "budget", "beam_width", "max_depth", "expand",
                "lookahead", "time_limit", "verify_all", "seed", "unsafe_math")

TuneSpec = Union[None, str, Mapping[str, Any]]

# LEIR dtype -> torch dtype name
_TORCH_DTYPES = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool",
}


def default_cache_dir() -> pathlib.Path:
    """``$XDG_CACHE_HOME/leir``, else ``~/.cache/leir``."""
    base = os.environ.get("XDG_CACHE_HOME")
    return pathlib.Path(base if base else pathlib.Path.home() / ".cache") / "leir"


# ---------------------------------------------------------------- tuning


def _tune_options(tune: TuneSpec) -> dict[str, Any] | None:
    """The normalised tuning options (``{}``: leirc's defaults), or None."""
    if tune is None:
        return None
    if isinstance(tune, str):
        if tune != "default":
            raise ValueError(f"leir.compile: tune must be None, \"default\" or a dict, not {tune!r}")
        return {}
    if not isinstance(tune, Mapping):
        raise ValueError(f"leir.compile: tune must be None, \"default\" or a dict, not {tune!r}")
    out: dict[str, Any] = {}
    for key in sorted(tune):
        if key not in TUNE_OPTIONS:
            raise ValueError(f"leir.compile: unknown tuning option '{key}' "
                             f"(one of {', '.join(TUNE_OPTIONS)})")
        value = tune[key]
        if not isinstance(value, (bool, int, float, str)):
            raise ValueError(f"leir.compile: tuning option '{key}': {value!r} is not a number, "
                             "a string or a bool")
        if value is False:
            continue
        out[key] = value
    return out


def _tune_flags(options: Mapping[str, Any]) -> list[str]:
    flags = [f"--tune={options['search']}" if "search" in options else "--tune"]
    for key, value in options.items():
        if key == "search":
            continue
        flag = "--" + key.replace("_", "-")
        flags.append(flag if value is True else f"{flag}={value}")
    return flags


def _leirc() -> str:
    path = os.environ.get("LEIRC") or shutil.which("leirc")
    if not path:
        raise LeirError(message="leir.compile: tuning needs leirc: set LEIRC or put leirc on PATH")
    return path


def _run_tuner(text: str, options: Mapping[str, Any]) -> str:
    """The program leirc --tune finds from ``text`` (with its header)."""
    with tempfile.TemporaryDirectory(prefix="leir-tune-") as d:
        src = pathlib.Path(d, "program.leir")
        dst = pathlib.Path(d, "tuned.leir")
        src.write_text(text, encoding="utf-8")
        cmd = [_leirc(), *_tune_flags(options), "--print-decls", "-o", str(dst), str(src)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode != 0 or not dst.is_file():
            raise LeirError(message=f"leir.compile: {' '.join(cmd[:1] + cmd[1:-4])} failed "
                                    f"(exit status {res.returncode}):\n{res.stderr}")
        return dst.read_text(encoding="utf-8")


def _library_version() -> str:
    from . import _lib

    return (_lib.lib().leir_version() or b"").decode()


def _cache_key(text: str, options: Mapping[str, Any], target: str) -> str:
    blob = json.dumps({"format": CACHE_FORMAT, "library": _library_version(), "target": target,
                       "program": text, "options": dict(options)}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _same_arguments(a: Program, b: Program) -> bool:
    return [(t.name, t.role, t.dtype, t.shape) for t in a.tensors] == \
           [(t.name, t.role, t.dtype, t.shape) for t in b.tensors]


def _read_entry(path: pathlib.Path, key: str, text: str, options: Mapping[str, Any],
                program: Program, ctx: Context) -> Program | None:
    """The tuned program of a cache entry, or None when it is absent, corrupt
    or not this key's."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or entry.get("key") != key \
            or entry.get("program") != text or entry.get("options") != dict(options) \
            or not isinstance(entry.get("tuned"), str):
        return None
    try:
        tuned = Program.parse(entry["tuned"], name=str(path), context=ctx)
    except LeirError:
        return None
    return tuned if _same_arguments(tuned, program) else None


def _write_entry(path: pathlib.Path, key: str, text: str, options: Mapping[str, Any],
                 tuned: str) -> None:
    """Writes the entry atomically (a temporary file renamed), so that a
    reader never sees half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"format": CACHE_FORMAT, "key": key, "program": text, "options": dict(options),
             "tuned": tuned}
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def tuned_program(program: Program, tune: TuneSpec, *, target: str = "host",
                  cache_dir: str | os.PathLike[str] | None = None) -> tuple[Program, str]:
    """``program`` tuned as ``tune`` asks (None: itself), through the cache:
    the program and how it was got (``"untuned"``, ``"cached"``,
    ``"tuned"``)."""
    options = _tune_options(tune)
    if options is None:
        return program, "untuned"
    text = program.header_text
    key = _cache_key(text, options, target)
    path = pathlib.Path(cache_dir if cache_dir is not None else default_cache_dir()) / f"{key}.json"
    got = _read_entry(path, key, text, options, program, program.context)
    if got is not None:
        return got, "cached"
    tuned_text = _run_tuner(text, options)
    tuned = Program.parse(tuned_text, name="<tuned>", context=program.context)
    if not _same_arguments(tuned, program):
        raise LeirError(message="leir.compile: the tuned program has other arguments than the "
                                "imported one")
    _write_entry(path, key, text, options, tuned.header_text)
    return tuned, "tuned"


# ---------------------------------------------------------------- the callable


def _shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ("," if len(shape) == 1 else "") + ")"


class CompiledModule:
    """A module compiled by :func:`compile`: call it as the module's
    ``forward`` (positional arguments).

    ``program`` is the program that runs (tuned when asked), ``imported``
    the importer's result (:class:`leir.Imported`), ``how`` says whether the
    program was ``"untuned"``, ``"tuned"`` or read from the ``"cached"``
    tuning.  Several threads may call one object; its runs take turns.
    """

    def __init__(self, name: str, program: Program, compiled: Compiled, imported: Any,
                 example_inputs: tuple[Any, ...], how: str) -> None:
        import numpy as np
        import torch

        self.name = name
        self.program = program
        self.imported = imported
        self.how = how
        self._compiled = compiled
        tensors = compiled.tensors
        by_name = {t.name: i for i, t in enumerate(tensors)}
        # forward's arguments: (name, slot in the buffer list or -1, the
        # tensor's dtype and shape, or the constant compiled in)
        self._args: list[tuple[str, int, Any, Any, str, Any]] = []
        for (arg, leir_name), example in zip(imported.arguments, example_inputs):
            if leir_name is None:
                self._args.append((arg, -1, None, None, "", example))
                continue
            t = tensors[by_name[leir_name]]
            tdtype = getattr(torch, _TORCH_DTYPES[t.dtype])
            self._args.append((arg, by_name[leir_name], tdtype, torch.Size(t.shape), t.dtype, None))
        self._nargs = len(self._args)
        # parameters: bound now (frozen), C-contiguous arrays kept alive here,
        # their addresses in the template every call's buffer list starts from
        self._buffer_type = ctypes.c_void_p * max(len(tensors), 1)
        self._template = self._buffer_type()
        self._params: list[np.ndarray] = []
        for name_, role in imported.roles.items():
            if role != "param":
                continue
            a = np.ascontiguousarray(imported.arrays[name_])
            self._params.append(a)
            self._template[by_name[name_]] = a.ctypes.data if a.nbytes else ctypes.addressof(_EMPTY)
        # outputs: torch.empty_like of a one-element tensor expanded to the
        # shape gives a new contiguous tensor faster than torch.empty
        self._outputs: list[tuple[int, Any]] = []
        for i, t in enumerate(tensors):
            if t.role != "out":
                continue
            dtype = getattr(torch, _TORCH_DTYPES[t.dtype])
            like = (torch.empty([1] * len(t.shape), dtype=dtype).expand(t.shape) if t.shape
                    else torch.empty((), dtype=dtype))
            probe = torch.empty_like(like)
            if not probe.is_contiguous() or probe.numel() == 0:
                like = torch.empty(t.shape, dtype=dtype)  # empty_like of it: contiguous
            self._outputs.append((i, like))
        self._returns = imported.returns
        self._empty_like = torch.empty_like
        self._tensor_type = torch.Tensor
        ctx = compiled._ctx
        self._lock = ctx._lock
        self._run = ctx._L.leir_compiled_run
        self._handle = compiled._handle

    def __repr__(self) -> str:
        return f"<leir.CompiledModule {self.name} ({self.how})>"

    def _error(self, message: str, arg: str) -> TensorError:
        return TensorError(f"leir.compile: {self.name}: argument '{arg}': {message}", arg)

    def _check(self, value: Any, arg: str, dtype: Any, shape: Any, code: str) -> Any:
        """The tensor to read for an argument that is not a contiguous CPU
        tensor of the right dtype and shape: an error, or a copy."""
        if not isinstance(value, self._tensor_type):
            raise self._error(f"expected a tensor {code}{list(shape)}, got {type(value).__name__}", arg)
        if value.dtype is not dtype or value.shape != shape:
            raise self._error(f"expected {dtype} of shape {_shape(shape)}, "
                              f"got {value.dtype} of shape {_shape(value.shape)}", arg)
        if not value.is_cpu:
            raise self._error(f"expected a CPU tensor, got one on {value.device}", arg)
        return value.contiguous()  # the one copy: a layout the code cannot read

    def __call__(self, *args: Any) -> Any:
        if len(args) != self._nargs:
            raise TypeError(f"leir.compile: {self.name} takes {self._nargs} arguments, "
                            f"{len(args)} given")
        buffers = self._buffer_type.from_buffer_copy(self._template)
        copies = []  # contiguous copies, alive until the run is over
        for value, (arg, slot, dtype, shape, code, constant) in zip(args, self._args):
            if slot < 0:
                if value is not constant and value != constant:
                    raise self._error(f"compiled for {constant!r}, got {value!r}", arg)
                continue
            if type(value) is not self._tensor_type or value.dtype is not dtype \
                    or value.shape != shape or not value.is_cpu or not value.is_contiguous():
                value = self._check(value, arg, dtype, shape, code)
                copies.append(value)
            buffers[slot] = value.data_ptr() or ctypes.addressof(_EMPTY)
        empty_like = self._empty_like
        outs = []
        for slot, like in self._outputs:
            o = empty_like(like)
            outs.append(o)
            buffers[slot] = o.data_ptr() or ctypes.addressof(_EMPTY)
        with self._lock:
            st = self._run(self._handle, buffers)
            if st:
                raise self._compiled._ctx._error(st, "leir_compiled_run")
        if self._returns == "tensor":
            return outs[0]
        return tuple(outs) if self._returns == "tuple" else outs


_EMPTY = ctypes.c_char()


def compile(module: Any, example_inputs: Sequence[Any] | Any, *, target: str = "host",  # noqa: A001
            tune: TuneSpec = None, cache_dir: str | os.PathLike[str] | None = None,
            name: str | None = None) -> CompiledModule:
    """``module`` (a ``torch.nn.Module``) compiled for ``example_inputs`` (a
    tensor or a sequence of them, as ``forward`` takes them).

    The module is imported with :func:`leir.from_torch` (an operator it
    cannot lower raises its :class:`leir.TorchImportError`), its parameters
    bound as they are now (later changes to the module are not seen).
    ``tune``: None (no tuning), ``"default"`` (``leirc --tune`` with its
    defaults) or a dict of :data:`TUNE_OPTIONS` (``{"search": "greedy",
    "cost": "model", "budget": 16}``); the tuned program is cached under
    ``cache_dir`` (see the module's documentation), so that another process
    does not tune again.  ``target``: ``"host"`` (the LLVM JIT; the only one
    so far).

    The result takes tensors of the example inputs' shapes and dtypes on
    the CPU (contiguous ones are read in place; others are copied once),
    any argument that is no tensor equal to the example's, and returns new
    tensors as ``forward`` does (a tensor, a tuple or a list).  A wrong
    shape, dtype or device raises :class:`leir.TensorError` naming the
    argument.
    """
    from .torch_import import from_torch

    if target != "host":
        raise ValueError(f"leir.compile: unknown target '{target}' (host)")
    options = _tune_options(tune)  # bad options fail before the import's work
    if not isinstance(example_inputs, (list, tuple)):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    imported = from_torch(module, example_inputs, name=name)
    ctx = Context()
    program = Program.parse(imported.text, name=f"<{imported.name}>", context=ctx)
    how = "untuned"
    if options is not None:
        program, how = tuned_program(program, options, target=target, cache_dir=cache_dir)
    compiled = program.compile(target)
    return CompiledModule(imported.name, program, compiled, imported, example_inputs, how)


# ---------------------------------------------------------------- torch.compile


def torch_backend(gm: Any, example_inputs: Sequence[Any]) -> Any:
    """The ``torch.compile`` backend ``"leir"``: the FX graph ``gm`` compiled
    by :func:`compile` when the importer takes it, else ``gm.forward``
    (PyTorch runs it).  Graphs that need gradients (grad mode on and an
    input or parameter that requires grad), have symbolic sizes, or take
    anything but CPU tensors are left to PyTorch too.  The result has the
    graph's contract: it returns a tuple (or list) of tensors."""
    import torch

    from .torch_import import TorchImportError

    inputs = []
    for t in example_inputs:
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu" \
                or not all(isinstance(n, int) for n in t.shape):  # symbolic sizes
            return gm.forward
        if type(t) is not torch.Tensor and not isinstance(t, torch.nn.Parameter):
            # a subclass (FakeTensor: no values): its shape and dtype are what matter
            t = torch.zeros(tuple(t.shape), dtype=t.dtype)
        inputs.append(t)
    if torch.is_grad_enabled() and (any(t.requires_grad for t in inputs)
                                    or any(p.requires_grad for p in gm.parameters())):
        return gm.forward
    try:
        compiled = compile(gm, tuple(inputs), name=type(gm).__name__)
    except (TorchImportError, LeirError, ValueError, TypeError, NotImplementedError):
        return gm.forward
    returns = compiled._returns

    def run(*args: Any) -> Any:
        out = compiled(*args)
        # FX graphs of torch.compile return a tuple (or list) of tensors
        return (out,) if returns == "tensor" else out

    run.leir_compiled = compiled  # type: ignore[attr-defined]
    return run


def register_torch_backend() -> bool:
    """Registers :func:`torch_backend` as ``torch.compile``'s backend
    ``"leir"`` (once); False where this PyTorch has no ``torch.compile``
    (before 2.0) or torch cannot be imported."""
    try:
        import torch
    except ImportError:
        return False
    if not hasattr(torch, "compile"):
        return False
    try:
        from torch._dynamo import list_backends, register_backend
    except ImportError:
        return False
    if "leir" in list_backends(exclude_tags=()):
        return True
    register_backend(compiler_fn=torch_backend, name="leir")
    return True


def _register_if_torch_loaded() -> None:
    """At ``import leir``: registers the backend when a PyTorch with
    ``torch.compile`` is already loaded (never imports torch itself)."""
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "compile"):
        try:
            register_torch_backend()
        except Exception:  # noqa: BLE001
            pass  # a registry of another version: backend=leir.torch_backend still works
