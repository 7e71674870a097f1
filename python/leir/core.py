"""Contexts, programs, candidates, diagnostics: the API of :mod:`leir`.

Everything here calls libleir (``leir/leir.h``) through :mod:`leir._lib`.
Use the names :mod:`leir` exports; this module's layout may change.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence, Union

from . import _lib

if TYPE_CHECKING:  # numpy is needed by run() and compare(inputs=...) only
    import numpy as np

__all__ = [
    "LeirError",
    "Unsupported",
    "TensorError",
    "Diagnostic",
    "Context",
    "default_context",
    "Program",
    "Compiled",
    "Tensor",
    "Candidate",
    "StepResult",
    "Comparison",
    "numpy_dtype",
    "bf16_to_float32",
    "float32_to_bf16",
]

PathLike = Union[str, "os.PathLike[str]"]

# ---------------------------------------------------------------- errors


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of libleir, as leirc prints it.

    ``file`` is the source's name (``"<string>"`` for parsed text unless
    named, ``None`` when the diagnostic concerns no source), ``line`` and
    ``column`` are 1-based (0: no location), ``severity`` is ``"error"``,
    ``"warning"`` or ``"note"``, ``message`` the bare message and
    ``rendered`` the full text leirc writes to standard error
    (``file:line:col: error: message``, the source line and a caret,
    ending with a newline).
    """

    file: str | None
    line: int
    column: int
    severity: str
    message: str
    rendered: str

    def __str__(self) -> str:
        return self.rendered


class LeirError(Exception):
    """A call into libleir failed.

    ``diagnostics`` is the list of :class:`Diagnostic` the call left (may be
    empty for errors found on the Python side), ``status`` the C status name
    (``"LEIR_ERROR"``, ``"LEIR_EINVAL"``, ...; ``None`` for errors found in
    Python).  ``str()`` is the rendered diagnostics, exactly as leirc prints
    them to standard error.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic] = (), status: str | None = None,
                 message: str | None = None) -> None:
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        self.status = status
        text = "".join(d.rendered for d in self.diagnostics)
        if not text:
            text = message or (f"libleir: {status}" if status else "libleir: error")
        super().__init__(text)

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity ``"error"``."""
        return [d for d in self.diagnostics if d.severity == "error"]


class Unsupported(LeirError):
    """Not available in this build or on this machine (LEIR_EUNSUPPORTED:
    no LLVM host JIT, no CUDA driver, an option the library lacks)."""


class TensorError(LeirError, ValueError):
    """An array given for a tensor has the wrong shape or dtype, or names no
    argument of the program (found in Python, before calling libleir)."""

    def __init__(self, message: str, tensor: str | None = None) -> None:
        super().__init__((), None, message)
        self.tensor = tensor


def _diagnostics(L: ctypes.CDLL, handle: int) -> list[Diagnostic]:
    out = []
    d = _lib.Diagnostic()
    for i in range(L.leir_diag_count(handle)):
        if L.leir_diag_get(handle, i, ctypes.byref(d)) != _lib.OK:
            break
        out.append(Diagnostic(
            file=_lib.text(d.file),
            line=d.line,
            column=d.column,
            severity=_lib.SEVERITY_NAMES.get(d.severity, "error"),
            message=_lib.text(d.message) or "",
            rendered=_lib.text(d.rendered) or "",
        ))
    return out


# ---------------------------------------------------------------- contexts

_OPTIONS = ("seed", "max_steps", "max_memory", "tolerance", "unsafe_math", "gpu_arch", "fp_contract")


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Context:
    """The options, diagnostics and programs of one libleir context.

    Options (keyword arguments, attributes, or :meth:`set_option`), by the
    names of leirc's flags; ``None`` keeps the library's default:

    ``seed`` (int, 0)
        random inputs of :meth:`Program.run`/:meth:`Program.compare` and
        the seeded choice of a bare strategy name in :meth:`Program.apply`.
    ``max_steps`` (int, 1e11; 0 = none)
        the interpreter's budget of statement executions.
    ``max_memory`` (str or int: ``"512M"``, ``"4G"``, 0 = no limit)
        the most memory a program's tensors may take.
    ``tolerance`` (``"exact"``, ``"default"``, ``"reference"``)
        of :meth:`Program.compare` and :meth:`Program.check_step`.
    ``unsafe_math`` (bool)
        let the math strategies assume moderate, nonzero, finite values.
    ``gpu_arch`` (``"sm_NN"``, ``"sm_90"``)
        of :meth:`Program.ptx` and the cuda cost model.
    ``fp_contract`` (``"off"``, ``"on"``)
        ``"on"``: ``a*b+c`` is one fused multiply-add on every target.

    Every :class:`Program` belongs to one context and keeps it alive.  Each
    thread has its own default context (:func:`default_context`); ``with
    Context(...) as ctx:`` makes ``ctx`` the thread's default inside the
    block.  A context serialises the calls made through it, so programs of
    one context may be used from several threads (one at a time); use one
    context per thread to run in parallel.
    """

    def __init__(self, *, seed: int | None = None, max_steps: int | None = None,
                 max_memory: str | int | None = None, tolerance: str | None = None,
                 unsafe_math: bool | None = None, gpu_arch: str | None = None,
                 fp_contract: str | None = None) -> None:
        L = _lib.lib()
        handle = L.leir_context_new()
        if not handle:
            raise MemoryError("leir_context_new: out of memory")
        self._L = L
        self._handle: int = handle
        self._lock = threading.Lock()  # not reentrant: see _free_program
        self._pending: list[int] = []  # program handles to free
        self._options: dict[str, str] = {}
        # No freeing at interpreter exit: a program still alive then would
        # point into a freed context.
        self._finalizer = weakref.finalize(self, L.leir_context_free, handle)
        self._finalizer.atexit = False
        given = dict(seed=seed, max_steps=max_steps, max_memory=max_memory, tolerance=tolerance,
                     unsafe_math=unsafe_math, gpu_arch=gpu_arch, fp_contract=fp_contract)
        for key, value in given.items():
            if value is not None:
                self.set_option(key, value)

    # -- options

    def set_option(self, key: str, value: object) -> None:
        """Sets one option (see the class); :class:`LeirError` for an unknown
        key or a bad value (the library's diagnostic)."""
        text = _option_text(value)
        with self._call() as (L, h):
            st = L.leir_context_set_option(h, key.encode(), text.encode())
            if st != _lib.OK:
                raise self._error(st)
            self._options[key] = text

    @property
    def options(self) -> dict[str, str]:
        """The options set so far, as the library was given them."""
        return dict(self._options)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self._options.items())
        return f"leir.Context({opts})"

    # -- the thread's default

    def __enter__(self) -> Context:
        _stack().append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    # -- plumbing

    def _call(self) -> _Call:
        return _Call(self)

    def _error(self, status: int, what: str | None = None) -> LeirError:
        """The exception for a failed call (the lock held)."""
        diags = _diagnostics(self._L, self._handle)
        name = _lib.STATUS_NAMES.get(status, f"status {status}")
        cls = Unsupported if status == _lib.EUNSUPPORTED else LeirError
        return cls(diags, name, f"{what}: {name}" if what else None)

    def _drain(self) -> None:
        while self._pending:
            self._L.leir_program_free(self._pending.pop())

    def _warnings(self) -> list[Diagnostic]:
        return [d for d in _diagnostics(self._L, self._handle) if d.severity != "error"]


def _option_property(key: str) -> property:
    def get(self: Context) -> str | None:
        return self._options.get(key)

    def set_(self: Context, value: object) -> None:
        self.set_option(key, value)

    return property(get, set_, doc=f"The option {key!r} as last set (None: the library's default); "
                                     "assigning sets it.")


for _key in _OPTIONS:
    setattr(Context, _key, _option_property(_key))
del _key


class _Call:
    """``with ctx._call() as (L, handle):`` -- the context's lock held, the
    programs whose Python objects died freed first."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def __enter__(self) -> tuple[ctypes.CDLL, int]:
        self.ctx._lock.acquire()
        try:
            self.ctx._drain()
        except BaseException:
            self.ctx._lock.release()
            raise
        return self.ctx._L, self.ctx._handle

    def __exit__(self, *exc: object) -> None:
        self.ctx._lock.release()


def _free_program(ctx: Context, handle: int) -> None:
    # A finalizer may run in any thread, also inside a call of this very
    # context (the garbage collector runs at any allocation): free the
    # handle now only when the lock is free, else at the next call.
    if ctx._lock.acquire(blocking=False):
        try:
            ctx._drain()
            ctx._L.leir_program_free(handle)
        finally:
            ctx._lock.release()
    else:
        ctx._pending.append(handle)


_tls = threading.local()


def _stack() -> list[Context]:
    stack = getattr(_tls, "stack", None)
    if stack is None:
        stack = _tls.stack = []
    return stack


def default_context() -> Context:
    """The calling thread's default context (made with default options on
    first use), or the innermost ``with Context(...)`` block's."""
    stack = _stack()
    if stack:
        return stack[-1]
    ctx = getattr(_tls, "default", None)
    if ctx is None:
        ctx = _tls.default = Context()
    return ctx


# ---------------------------------------------------------------- tensors

# leir dtype -> NumPy dtype name.  bf16 has no NumPy type: its arrays are
# numpy.uint16 holding the bit patterns (ml_dtypes.bfloat16 is accepted as
# input when that package is installed).
_NUMPY_DTYPES = {
    "f16": "float16", "bf16": "uint16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "bool": "bool",
}


def numpy_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype of a LEIR dtype code: ``f32`` -> ``float32``,
    ``f16`` -> ``float16``, ``bool`` -> ``bool``, and ``bf16`` ->
    ``uint16`` (the bfloat16 bit patterns; see :func:`bf16_to_float32`)."""
    import numpy as np

    try:
        return np.dtype(_NUMPY_DTYPES[dtype])
    except KeyError:
        raise ValueError(f"unknown LEIR dtype '{dtype}'") from None


def bf16_to_float32(a: Any) -> np.ndarray:
    """bfloat16 bit patterns (``uint16``, as :meth:`Program.run` returns a
    bf16 output) to ``float32`` values (exact)."""
    import numpy as np

    a = np.asarray(a)
    return (a.astype(np.uint32) << 16).view(np.float32)


def float32_to_bf16(a: Any) -> np.ndarray:
    """``float32`` values to bfloat16 bit patterns (``uint16``), rounded to
    nearest even as the interpreter's conversions are; NaN stays NaN."""
    import numpy as np

    a = np.ascontiguousarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)
    return rounded


@dataclass(frozen=True)
class Tensor:
    """An argument of a program: ``name``, ``role`` (``"in"``, ``"param"``
    or ``"out"``), ``dtype`` (LEIR code, ``"f32"``), ``shape`` (a tuple;
    ``()`` for a scalar), ``elem_size`` and ``nbytes``."""

    name: str
    role: str
    dtype: str
    shape: tuple[int, ...]
    elem_size: int
    nbytes: int

    @property
    def numpy_dtype(self) -> np.dtype:
        """The dtype :meth:`Program.run` takes and returns for it."""
        return numpy_dtype(self.dtype)

    def __str__(self) -> str:
        return f"%{self.role} {self.name} : {self.dtype}[{','.join(map(str, self.shape))}]"


# ---------------------------------------------------------------- steps


class Candidate(NamedTuple):
    """A legal step of a program (one line of ``leirc --list-applicable``):
    ``spelling`` as ``-O`` takes it, ``strategy`` (STRATEGIES.md name),
    ``level`` (``"graph"``, ``"operator"``, ``"memory"``, ``"math"``),
    ``cls`` (``"E"`` exact or ``"T"`` within tolerance) and ``site``
    ``(line, column)`` of the loop or statement concerned (``(0, 0)``:
    none).  ``str()`` is the spelling.  (A named tuple: cheap to make by
    the hundred.)"""

    spelling: str
    strategy: str
    level: str
    cls: str
    site: tuple[int, int]

    def __str__(self) -> str:
        return self.spelling


@dataclass(frozen=True)
class StepResult:
    """The verdict of :meth:`Program.check_step`: ``verdict`` in leirc's
    words (``"legal"``, ``"equivalent"``, ``"not-equivalent"``, ...),
    ``spelling`` (legal: the candidate; equivalent: the closest one; else
    None), ``cls`` (legal: ``"E"`` or ``"T"``; else None) and ``message``
    (the verdict line leirc prints).  ``legal`` is whether the verdict is
    ``"legal"``; ``bool(result)`` is the same."""

    verdict: str
    spelling: str | None
    cls: str | None
    message: str
    code: int = field(default=0, repr=False)

    @property
    def legal(self) -> bool:
        return self.code == _lib.VERDICT_LEGAL

    def __bool__(self) -> bool:
        return self.legal


@dataclass(frozen=True)
class Comparison:
    """The result of :meth:`Program.compare`: ``verdict`` ``"equal"``
    (bit-identical), ``"close"`` (within the context's tolerance) or
    ``"differ"``, and ``message`` (leirc's line).  ``bool()`` is whether it
    is not ``"differ"``."""

    verdict: str
    message: str

    def __bool__(self) -> bool:
        return self.verdict != "differ"


# ---------------------------------------------------------------- programs


def _encode(s: str, what: str) -> bytes:
    b = s.encode("utf-8")
    if b"\0" in b:
        raise ValueError(f"{what} contains a NUL character")
    return b


class Program:
    """A parsed, analysed LEIR program (immutable).

    Make one with :meth:`parse` or :meth:`load`; every step
    (:meth:`apply`) makes a new one.  A program belongs to the
    :class:`Context` it was made in (its options apply to every method).
    ``str()`` is its canonical text.
    """

    __slots__ = ("_ctx", "_handle", "_name", "_text", "_header_text", "_tensors",
                 "warnings", "step", "step_cls", "__weakref__")

    def __init__(self) -> None:
        raise TypeError("make a leir.Program with Program.parse or Program.load")

    @classmethod
    def _wrap(cls, ctx: Context, handle: int, name: str) -> Program:
        self = object.__new__(cls)
        self._ctx = ctx
        self._handle = handle
        self._name = name
        self._text: str | None = None
        self._header_text: str | None = None
        self._tensors: tuple[Tensor, ...] | None = None
        self.warnings: list[Diagnostic] = []
        self.step: str | None = None
        self.step_cls: str | None = None
        weakref.finalize(self, _free_program, ctx, handle).atexit = False
        return self

    # -- making programs

    @classmethod
    def parse(cls, text: str, decls: Mapping[str, Any] | str | None = None, *,
              name: str | None = None, context: Context | None = None) -> Program:
        """Parses and analyses LEIR text.

        ``decls`` gives the declarations when the text has no ``%`` header:
        the SPEC §8.2 sidecar (``known_names``, ``known_shapes``,
        ``known_dtype``, ``input_known_names``) as a dict or as JSON text;
        without either they are inferred as leirc infers them.  ``name``
        names the source in diagnostics (default ``"<string>"``).
        Raises :class:`LeirError` with leirc's diagnostics when the text
        does not parse or analyse; warnings go to :attr:`warnings`.
        """
        ctx = context or default_context()
        if decls is not None and not isinstance(decls, str):
            decls = json.dumps(decls)
        btext = _encode(text, "the text")
        bdecls = None if decls is None else _encode(decls, "decls")
        bname = None if name is None else _encode(name, "name")
        with ctx._call() as (L, h):
            p = L.leir_program_parse(h, bname, btext, bdecls)
            if not p:
                raise ctx._error(_lib.ERROR, "leir_program_parse")
            prog = cls._wrap(ctx, p, name or "<string>")
            prog.warnings = ctx._warnings()
        return prog

    @classmethod
    def load(cls, path: PathLike, decls_path: PathLike | None = None, *,
             context: Context | None = None) -> Program:
        """Reads a ``.leir`` file (and, if given, a ``.decls.json`` sidecar)
        as leirc does; :class:`LeirError` with leirc's diagnostics when it
        cannot be read, parsed or analysed."""
        ctx = context or default_context()
        bpath = os.fsencode(path)
        bdecls = None if decls_path is None else os.fsencode(decls_path)
        with ctx._call() as (L, h):
            p = L.leir_program_load(h, bpath, bdecls)
            if not p:
                raise ctx._error(_lib.ERROR, "leir_program_load")
            prog = cls._wrap(ctx, p, os.fsdecode(path))
            prog.warnings = ctx._warnings()
        return prog

    # -- what it is

    @property
    def context(self) -> Context:
        """The context the program belongs to."""
        return self._ctx

    @property
    def name(self) -> str:
        """The source's name in diagnostics (a path, or ``"<string>"``)."""
        return self._name

    @property
    def text(self) -> str:
        """The canonical text, as ``leirc --emit=leir`` writes it (with the
        declaration header when the source had one)."""
        if self._text is None:
            with self._ctx._call() as (L, _):
                self._text = _lib.take_string(L.leir_program_text(self._handle, 0)) or ""
        return self._text

    @property
    def header_text(self) -> str:
        """The canonical text with its declaration header (given or
        inferred) first, as ``leirc --print-decls --emit=leir`` writes it:
        a file that reads back as the same program."""
        if self._header_text is None:
            with self._ctx._call() as (L, _):
                self._header_text = _lib.take_string(L.leir_program_text(self._handle, 1)) or ""
        return self._header_text

    @property
    def tensors(self) -> tuple[Tensor, ...]:
        """The arguments (``%in``, ``%param``, ``%out``), in declaration
        order, the order of the generated entry point."""
        if self._tensors is None:
            out = []
            info = _lib.TensorInfo()
            with self._ctx._call() as (L, _):
                for i in range(L.leir_program_ntensors(self._handle)):
                    st = L.leir_program_tensor(self._handle, i, ctypes.byref(info))
                    if st != _lib.OK:
                        raise self._ctx._error(st, "leir_program_tensor")
                    out.append(Tensor(
                        name=_lib.text(info.name) or "",
                        role=_lib.ROLE_NAMES.get(info.role, "in"),
                        dtype=_lib.text(info.dtype) or "",
                        shape=tuple(int(info.shape[d]) for d in range(info.rank)),
                        elem_size=int(info.elem_size),
                        nbytes=int(info.nbytes),
                    ))
            self._tensors = tuple(out)
        return self._tensors

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        """The ``%in`` and ``%param`` tensors."""
        return tuple(t for t in self.tensors if t.role != "out")

    @property
    def outputs(self) -> tuple[Tensor, ...]:
        """The ``%out`` tensors."""
        return tuple(t for t in self.tensors if t.role == "out")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        text = self.text.replace("\n", " ").strip()
        if len(text) > 60:
            text = text[:57] + "..."
        return f"<leir.Program {self._name} {text!r}>"

    # -- steps

    def candidates(self, strategy: str | None = None) -> list[Candidate]:
        """Every legal step of ``strategy`` (a STRATEGIES.md name or alias;
        None: of every strategy), in the order of ``leirc
        --list-applicable``.  :class:`LeirError` for an unknown strategy."""
        bstrategy = None if strategy is None else _encode(strategy, "strategy")
        out = []
        with self._ctx._call() as (L, h):
            cs = L.leir_candidates_list(h, self._handle, bstrategy)
            if not cs:
                raise self._ctx._error(_lib.ERROR, "leir_candidates_list")
            try:
                c = _lib.CandidateInfo()
                ref = ctypes.byref(c)
                get = L.leir_candidate_get
                for i in range(L.leir_candidates_count(cs)):
                    if get(cs, i, ref) != _lib.OK:
                        break
                    out.append(Candidate(
                        (c.spelling or b"").decode(),
                        (c.strategy or b"").decode(),
                        (c.level or b"").decode(),
                        (c.cls or b"").decode(),
                        (c.line, c.column),
                    ))
            finally:
                L.leir_candidates_free(cs)
        return out

    def apply(self, step: str | Candidate) -> Program:
        """Applies one step, given as a :class:`Candidate` or a spelling
        (complete, or a filter as ``-O`` takes it: a bare strategy name
        picks its default candidate, or a seeded one when the context's
        seed is set), checking its precondition.  Returns the new program
        (this one is unchanged; the new one's ``step`` and ``step_cls`` say
        what was applied); :class:`LeirError` with leirc's refusal when the
        step is illegal."""
        spelling = step.spelling if isinstance(step, Candidate) else step
        bspelling = _encode(spelling, "the spelling")
        cls_out = ctypes.c_char_p()
        with self._ctx._call() as (L, h):
            p = L.leir_program_apply(h, self._handle, bspelling, ctypes.byref(cls_out))
            if not p:
                raise self._ctx._error(_lib.ERROR, "leir_program_apply")
            prog = Program._wrap(self._ctx, p, self._name)
            prog.warnings = self._ctx._warnings()
        prog.step = spelling
        prog.step_cls = _lib.text(cls_out.value)
        return prog

    def check_step(self, after: str | Program, strategy: str | None = None) -> StepResult:
        """Is ``after`` (LEIR text, which may be anything, or a Program) one
        legal step of ``strategy`` (None: of any strategy) from this
        program?  The verdict as ``leirc --check-step`` gives it; a text
        that does not parse is a verdict (``"does-not-parse"``), not an
        exception.  :class:`LeirError` for an unknown strategy."""
        text = after.text if isinstance(after, Program) else after
        btext = _encode(text, "the text")
        bstrategy = None if strategy is None else _encode(strategy, "strategy")
        res = _lib.StepResult()
        with self._ctx._call() as (L, h):
            st = L.leir_check_step(h, self._handle, btext, bstrategy, ctypes.byref(res))
            try:
                if st != _lib.OK:
                    raise self._ctx._error(st, "leir_check_step")

                def s(ptr: int | None) -> str | None:
                    return None if not ptr else ctypes.string_at(ptr).decode("utf-8", "replace")

                result = StepResult(
                    verdict=_lib.text(L.leir_verdict_name(res.verdict)) or str(res.verdict),
                    spelling=s(res.spelling),
                    cls=s(res.cls),
                    message=s(res.message) or "",
                    code=res.verdict,
                )
            finally:
                L.leir_step_result_clear(ctypes.byref(res))
        return result

    def _adopt(self, other: Program) -> Program:
        """``other`` as a program of this one's context."""
        if other._ctx is self._ctx:
            return other
        return Program.parse(other.header_text, name=other._name, context=self._ctx)

    def compare(self, other: Program, inputs: Mapping[str, Any] | None = None) -> Comparison:
        """Runs this program and ``other`` on the same inputs and compares
        every output, as ``leirc --compare`` does: ``"equal"``
        (bit-identical, NaN payloads aside), ``"close"`` (within the
        context's ``tolerance``: STRATEGIES.md §0.4 by default) or
        ``"differ"``.

        Without ``inputs`` both run in the reference interpreter on the
        random inputs of the context's seed (libleir's own comparison).
        With ``inputs`` (a dict as :meth:`run` takes; missing ones random)
        both run on them and their outputs are compared here by the same
        rules.  Programs of another context are re-parsed into this one.
        """
        other = self._adopt(other)
        if inputs is not None:
            return _compare_outputs(self, other, inputs)
        verdict = ctypes.c_char_p()
        message = ctypes.c_void_p()
        with self._ctx._call() as (L, h):
            st = L.leir_compare(h, self._handle, other._handle, ctypes.byref(verdict), ctypes.byref(message))
            msg = _lib.take_string(message.value) if message.value else None
            if st != _lib.OK:
                raise self._ctx._error(st, "leir_compare")
            v = _lib.text(verdict.value) or ""
        return Comparison(v, (msg or v).rstrip("\n"))

    # -- running

    def run(self, inputs: Mapping[str, Any] | None = None, target: str = "interp") -> dict[str, np.ndarray]:
        """Runs the program and returns its outputs, ``{name: ndarray}``.

        ``inputs`` maps ``%in``/``%param`` names to arrays; those not given
        get the deterministic random data of the context's seed, as
        ``leirc --run`` makes it.  An array must have the tensor's shape
        and its NumPy dtype (:attr:`Tensor.numpy_dtype`; ``bf16``:
        ``uint16`` bit patterns or ``ml_dtypes.bfloat16``); a C-contiguous
        one is passed without a copy, any other is copied.  Values that
        are not arrays (lists, scalars) are converted to the tensor's
        dtype.  A wrong shape or dtype, or a name that is no input of the
        program, raises :class:`TensorError` naming the tensor, the
        expected and the given.  Outputs are new NumPy arrays, written in
        place by the library.

        ``target``: ``"interp"`` (the reference interpreter), ``"host"``
        (the LLVM JIT, bit-identical to it) or ``"cuda"``
        (:class:`Unsupported` without a CUDA driver).
        """
        import numpy as np

        tensors = self.tensors
        given = dict(inputs or {})
        by_name = {t.name: t for t in tensors}
        for name in given:
            t = by_name.get(name)
            if t is None:
                known = ", ".join(t.name for t in tensors if t.role != "out") or "none"
                raise TensorError(f"run: the program has no input '{name}' (its inputs: {known})", name)
            if t.role == "out":
                raise TensorError(f"run: '{name}' is an output of the program, not an input", name)
        keep: list[np.ndarray] = []  # alive until the call returns
        outputs: dict[str, np.ndarray] = {}
        buffers = (ctypes.c_void_p * max(len(tensors), 1))()
        for i, t in enumerate(tensors):
            if t.role == "out":
                a = np.empty(t.shape, dtype=t.numpy_dtype)
                outputs[t.name] = a
            elif t.name in given:
                a = _input_array(t, given[t.name])
            else:
                buffers[i] = None
                continue
            keep.append(a)
            buffers[i] = a.ctypes.data if a.nbytes else ctypes.addressof(_EMPTY)
        btarget = _encode(target, "target")
        with self._ctx._call() as (L, h):
            st = L.leir_program_run(h, self._handle, btarget, buffers)
            if st != _lib.OK:
                raise self._ctx._error(st, "leir_program_run")
        del keep
        return outputs

    def compile(self, target: str = "host") -> Compiled:
        """The program compiled once for ``target`` (``"host"``: the LLVM
        JIT), to run many times without compiling again
        (:meth:`Compiled.run`); :class:`LeirError` with the library's
        diagnostic for another target."""
        return Compiled(self, target)

    # -- code

    def emit(self, kind: str) -> str:
        """The text ``leirc --emit=KIND`` writes: ``"ptx"`` (for the
        context's gpu_arch), ``"llvm"``, ``"asm"``, ``"cuda"``, ``"tir"``,
        ``"tirx"`` or ``"leir"``."""
        bkind = _encode(kind, "kind")
        with self._ctx._call() as (L, h):
            s = L.leir_program_emit(h, self._handle, bkind)
            if not s:
                raise self._ctx._error(_lib.ERROR, "leir_program_emit")
            return _lib.take_string(s) or ""

    def ptx(self, arch: str | None = None) -> str:
        """The launch plan and PTX for ``arch`` (``"sm_90"``; default: the
        context's gpu_arch, sm_90 unless set)."""
        if arch is None:
            return self.emit("ptx")
        ctx = self._ctx
        before = ctx._options.get("gpu_arch", "sm_90")
        with ctx._call() as (L, h):  # one lock: no other thread sees the change
            st = L.leir_context_set_option(h, b"gpu_arch", _encode(arch, "arch"))
            if st != _lib.OK:
                raise ctx._error(st, "leir_context_set_option")
            try:
                s = L.leir_program_emit(h, self._handle, b"ptx")
                if not s:
                    raise ctx._error(_lib.ERROR, "leir_program_emit")
                return _lib.take_string(s) or ""
            finally:
                L.leir_context_set_option(h, b"gpu_arch", before.encode())

    def cost(self, target: str = "host") -> float:
        """The analytic cost model's estimate in seconds on ``target``
        (``"host"`` or ``"cuda"``, for the context's gpu_arch); no run.
        ``target="learned"``: the learned model's estimate of the host's
        run time (``leirc --cost=learned``; the model file is
        ``$LEIRC_COST_MODEL``, else the installed one, else
        ``costmodel.json`` beside libleir or one folder up).  Raises
        :class:`LeirError` when libleir was built without XGBoost or the
        model file cannot be read (the diagnostic says which)."""
        out = ctypes.c_double()
        btarget = _encode(target, "target")
        with self._ctx._call() as (L, h):
            st = L.leir_program_cost(h, self._handle, btarget, ctypes.byref(out))
            if st != _lib.OK:
                raise self._ctx._error(st, "leir_program_cost")
        return out.value

    def measure(self) -> float:
        """The host JIT's measured median run time in seconds (random
        inputs; noisy)."""
        out = ctypes.c_double()
        with self._ctx._call() as (L, h):
            st = L.leir_program_measure(h, self._handle, ctypes.byref(out))
            if st != _lib.OK:
                raise self._ctx._error(st, "leir_program_measure")
        return out.value


_EMPTY = ctypes.c_char()  # the buffer of a tensor with no element


def _free_compiled(ctx: Context, handle: int) -> None:
    with ctx._lock:  # never called inside a call of ctx: see Compiled
        ctx._L.leir_compiled_free(handle)


class Compiled:
    """A :class:`Program` compiled once (``leir_program_compile``), run many
    times on arrays the caller owns.

    Its own :class:`Context` (a copy of the program's options) serialises
    its runs: several threads may call one object (one run at a time), and
    objects compiled from one program run in parallel.  ``tensors`` are the
    program's arguments in order.
    """

    __slots__ = ("_ctx", "_handle", "tensors", "target", "__weakref__")

    def __init__(self, program: Program, target: str = "host") -> None:
        ctx = Context()
        for key, value in program.context.options.items():
            ctx.set_option(key, value)
        own = Program.parse(program.header_text, name=program.name, context=ctx)
        btarget = _encode(target, "target")
        with ctx._call() as (L, h):
            c = L.leir_program_compile(h, own._handle, btarget)
            if not c:
                raise ctx._error(_lib.ERROR, "leir_program_compile")
        self._ctx = ctx
        self._handle: int = c
        self.tensors: tuple[Tensor, ...] = own.tensors
        self.target = target
        # the context outlives this object: the finalizer holds it
        weakref.finalize(self, _free_compiled, ctx, c).atexit = False

    def run_pointers(self, buffers: ctypes.Array[ctypes.c_void_p]) -> None:
        """Runs on raw buffers, one per tensor of :attr:`tensors` (each
        that tensor's ``nbytes``, C order, aligned to its element size;
        outputs are written), with no check: the caller keeps them alive
        and right.  :class:`LeirError` with the library's diagnostic when
        the run fails (an out-of-bounds access, memory)."""
        ctx = self._ctx
        with ctx._lock:
            st = ctx._L.leir_compiled_run(self._handle, buffers)
            if st != _lib.OK:
                raise ctx._error(st, "leir_compiled_run")

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """As :meth:`Program.run` on ``target``, every ``%in`` and
        ``%param`` given (no random data; :class:`TensorError` naming one
        that is missing); C-contiguous arrays are used in place."""
        import numpy as np

        given = dict(inputs)
        for name in given:
            if not any(t.name == name and t.role != "out" for t in self.tensors):
                raise TensorError(f"run: the program has no input '{name}'", name)
        keep: list[np.ndarray] = []
        outputs: dict[str, np.ndarray] = {}
        buffers = (ctypes.c_void_p * max(len(self.tensors), 1))()
        for i, t in enumerate(self.tensors):
            if t.role == "out":
                a = outputs[t.name] = np.empty(t.shape, dtype=t.numpy_dtype)
            elif t.name in given:
                a = _input_array(t, given[t.name])
            else:
                raise TensorError(f"run: input '{t.name}' is not given", t.name)
            keep.append(a)
            buffers[i] = a.ctypes.data if a.nbytes else ctypes.addressof(_EMPTY)
        self.run_pointers(buffers)
        del keep
        return outputs


def _shape_text(dtype: str, shape: Sequence[int]) -> str:
    return f"{dtype}[{','.join(map(str, shape))}]"


def _input_array(t: Tensor, value: Any) -> np.ndarray:
    """The array to hand the library for input ``t`` (checked; copied only
    when it is not C-contiguous or not in native byte order)."""
    import numpy as np

    want = t.numpy_dtype
    if not isinstance(value, np.ndarray):
        try:
            value = np.asarray(value, dtype=want)
        except (TypeError, ValueError) as e:
            raise TensorError(f"run: input '{t.name}': expected {_shape_text(t.dtype, t.shape)}, "
                              f"got a value NumPy cannot convert ({e})", t.name) from None
    a = value
    if a.dtype != want:
        if t.dtype == "bf16" and a.dtype.name == "bfloat16" and a.dtype.itemsize == 2:
            a = a.view(np.uint16)  # ml_dtypes.bfloat16
        elif a.dtype.newbyteorder("=") == want and a.dtype.isnative is False:
            a = a.astype(want)
        else:
            raise TensorError(f"run: input '{t.name}': expected {_shape_text(t.dtype, t.shape)} "
                              f"(numpy.{want.name}), got numpy.{a.dtype.name} {tuple(a.shape)}", t.name)
    if tuple(a.shape) != t.shape:
        raise TensorError(f"run: input '{t.name}': expected shape {t.shape} ({_shape_text(t.dtype, t.shape)}), "
                          f"got {tuple(a.shape)}", t.name)
    if not a.flags.c_contiguous or not a.flags.aligned:
        a = np.ascontiguousarray(a)
    return a


# -------------------------------------------------------- compare(inputs=)

_TOLERANCES = {  # STRATEGIES.md §0.4, class T: (rtol, atol)
    "f64": (1e-10, 1e-12),
    "f32": (1e-4, 1e-6),
    "f16": (1e-2, 1e-3),
    "bf16": (1e-2, 1e-3),
}


def _as_values(t: Tensor, a: np.ndarray) -> np.ndarray:
    import numpy as np

    if t.dtype == "bf16":
        return bf16_to_float32(a)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    return a


def _close(t: Tensor, x: np.ndarray, r: np.ndarray, tolerance: str, text: str) -> bool:
    import numpy as np

    if tolerance == "exact" or t.dtype not in _TOLERANCES:
        return False
    x = _as_values(t, x).astype(np.float64)
    r = _as_values(t, r).astype(np.float64)
    if tolerance == "reference":
        both = (np.isnan(x) & np.isnan(r)) | (np.isinf(x) & np.isinf(r) & (np.sign(x) == np.sign(r)))
        d = np.abs(x - r)[~both]
        rel = (d / (np.abs(r[~both]) + 1e-8)) if d.size else d
        if not d.size:
            return True
        atol, rtol, mse = float(d.max()), float(rel.max()), float((d * d).mean())
        if rtol <= 5e-3 or atol <= 1e-7 or mse <= 1e-5:
            return True
        return ("f16" in text and atol < 1.5) or ("f32" in text and atol < 1e-3)
    rtol, atol = _TOLERANCES[t.dtype]
    special_x = ~np.isfinite(x)
    special_r = ~np.isfinite(r)
    if not np.array_equal(special_x, special_r):
        return False
    if special_x.any() and not np.array_equal(np.where(np.isnan(x), 0, x)[special_x],
                                              np.where(np.isnan(r), 0, r)[special_r]):
        return False
    fin = ~special_x
    return bool(np.all(np.abs(x[fin] - r[fin]) <= atol + rtol * np.abs(r[fin])))


def _equal(t: Tensor, x: np.ndarray, r: np.ndarray) -> bool:
    import numpy as np

    if x.dtype.kind == "f" or t.dtype == "bf16":
        xv, rv = _as_values(t, x), _as_values(t, r)
        same_nan = np.isnan(xv) & np.isnan(rv)
        bits_x = x.view(f"u{x.dtype.itemsize}")
        bits_r = r.view(f"u{r.dtype.itemsize}")
        return bool(np.all(same_nan | (bits_x == bits_r)))
    return bool(np.array_equal(x, r))


def _first_difference(t: Tensor, x: np.ndarray, r: np.ndarray) -> str:
    import numpy as np

    xv, rv = _as_values(t, x), _as_values(t, r)
    with np.errstate(invalid="ignore"):
        bad = ~((xv == rv) | (np.isnan(xv) & np.isnan(rv)))
    idx = np.argwhere(bad)
    if not len(idx):
        return f"'{t.name}'"
    i = tuple(int(k) for k in idx[0])
    return f"'{t.name}' at {list(i)}: {xv[i]!r} vs {rv[i]!r}"


def _compare_outputs(a: Program, b: Program, inputs: Mapping[str, Any]) -> Comparison:
    outs_a = a.run(inputs)
    outs_b = b.run(inputs)
    ta = {t.name: t for t in a.outputs}
    tb = {t.name: t for t in b.outputs}
    if set(ta) != set(tb) or any(ta[n].shape != tb[n].shape or ta[n].dtype != tb[n].dtype for n in ta):
        return Comparison("differ", "differ: the programs' outputs are not the same tensors")
    tolerance = a.context.options.get("tolerance", "default")
    verdict = "equal"
    text = a.text + b.text
    for name, t in ta.items():
        x, r = outs_b[name], outs_a[name]
        if _equal(t, x, r):
            continue
        if _close(t, x, r, tolerance, text):
            verdict = "close"
            continue
        return Comparison("differ", f"differ: output {_first_difference(t, x, r)}")
    return Comparison(verdict, verdict)

