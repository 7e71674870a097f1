"""The ctypes binding of libleir (``leir/leir.h``, API level 2).

This module only loads the shared library and declares the C types and
the prototype (``argtypes`` and ``restype``) of every function of the
header; the Python API of :mod:`leir` is built on it.  Nothing here is
public: use :mod:`leir`.

Where the library comes from: ``$LEIR_LIBDIR/libleir.so.0`` when the
environment variable ``LEIR_LIBDIR`` is set (the build tree's ``.libs``
folder; ``make check`` sets it), else the package's own copy
(``leir/libleir.so.0``, which the wheel of ``make wheel`` bundles), else
whatever the system's dynamic loader finds for ``libleir.so.0`` (an
installed library).  The library is loaded on first use, so ``import leir``
works without it; :func:`lib` raises :class:`LibraryNotFound` when it
cannot be loaded.  :func:`leirc_path` finds the wheel's bundled ``leirc``
(``leir/bin/leirc``) the same way.

Every ``char *`` that the library hands over to the caller is declared
``c_void_p`` here, so that its address survives for ``leir_free``;
``const char *`` strings owned by the library are ``c_char_p`` (ctypes
copies them into ``bytes`` at once).
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_void_p,
)

#: The API level of leir/leir.h this binding was written for.
API_VERSION = 2
#: The soname of the library.
SONAME = "libleir.so.0"
#: LEIR_MAX_RANK of the header.
MAX_RANK = 8

# leir_status
OK = 0
ERROR = 1
EINVAL = 2
ENOMEM = 3
EUNSUPPORTED = 4
STATUS_NAMES = {
    OK: "LEIR_OK",
    ERROR: "LEIR_ERROR",
    EINVAL: "LEIR_EINVAL",
    ENOMEM: "LEIR_ENOMEM",
    EUNSUPPORTED: "LEIR_EUNSUPPORTED",
}

# leir_severity
SEVERITY_NAMES = {0: "note", 1: "warning", 2: "error"}
# leir_role
ROLE_NAMES = {0: "in", 1: "param", 2: "out"}
# leir_verdict
VERDICT_LEGAL = 0


class LibraryNotFound(OSError):
    """libleir.so.0 could not be loaded (see :func:`library_path`)."""


class Diagnostic(Structure):
    """struct leir_diagnostic."""

    _fields_ = [
        ("severity", c_int),
        ("file", c_char_p),
        ("line", c_int),
        ("column", c_int),
        ("message", c_char_p),
        ("rendered", c_char_p),
    ]


class TensorInfo(Structure):
    """struct leir_tensor_info."""

    _fields_ = [
        ("name", c_char_p),
        ("role", c_int),
        ("dtype", c_char_p),
        ("rank", c_int),
        ("shape", c_int64 * MAX_RANK),
        ("elem_size", c_size_t),
        ("nbytes", c_size_t),
    ]


class CandidateInfo(Structure):
    """struct leir_candidate."""

    _fields_ = [
        ("spelling", c_char_p),
        ("strategy", c_char_p),
        ("level", c_char_p),
        ("cls", c_char_p),
        ("line", c_int),
        ("column", c_int),
    ]


class StepResult(Structure):
    """struct leir_step_result (its strings are freed by leir_step_result_clear)."""

    _fields_ = [
        ("verdict", c_int),
        ("spelling", c_void_p),
        ("cls", c_void_p),
        ("message", c_void_p),
    ]


ctx_p = c_void_p  # leir_context *
prog_p = c_void_p  # leir_program *
cands_p = c_void_p  # leir_candidates *
compiled_p = c_void_p  # leir_compiled *

# name: (restype, argtypes) -- every function of leir/leir.h, in its order.
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "leir_version": (c_char_p, []),
    "leir_api_version": (c_int, []),
    "leir_context_new": (ctx_p, []),
    "leir_context_free": (None, [ctx_p]),
    "leir_context_set_option": (c_int, [ctx_p, c_char_p, c_char_p]),
    "leir_diag_count": (c_size_t, [ctx_p]),
    "leir_diag_get": (c_int, [ctx_p, c_size_t, POINTER(Diagnostic)]),
    "leir_program_parse": (prog_p, [ctx_p, c_char_p, c_char_p, c_char_p]),
    "leir_program_load": (prog_p, [ctx_p, c_char_p, c_char_p]),
    "leir_program_free": (None, [prog_p]),
    "leir_program_text": (c_void_p, [prog_p, c_int]),
    "leir_program_ntensors": (c_size_t, [prog_p]),
    "leir_program_tensor": (c_int, [prog_p, c_size_t, POINTER(TensorInfo)]),
    "leir_candidates_list": (cands_p, [ctx_p, prog_p, c_char_p]),
    "leir_candidates_count": (c_size_t, [cands_p]),
    "leir_candidate_get": (c_int, [cands_p, c_size_t, POINTER(CandidateInfo)]),
    "leir_candidates_free": (None, [cands_p]),
    "leir_program_apply": (prog_p, [ctx_p, prog_p, c_char_p, POINTER(c_char_p)]),
    "leir_check_step": (c_int, [ctx_p, prog_p, c_char_p, c_char_p, POINTER(StepResult)]),
    "leir_step_result_clear": (None, [POINTER(StepResult)]),
    "leir_verdict_name": (c_char_p, [c_int]),
    "leir_program_run": (c_int, [ctx_p, prog_p, c_char_p, POINTER(c_void_p)]),
    "leir_program_compile": (compiled_p, [ctx_p, prog_p, c_char_p]),
    "leir_compiled_run": (c_int, [compiled_p, POINTER(c_void_p)]),
    "leir_compiled_free": (None, [compiled_p]),
    "leir_compare": (c_int, [ctx_p, prog_p, prog_p, POINTER(c_char_p), POINTER(c_void_p)]),
    "leir_program_emit": (c_void_p, [ctx_p, prog_p, c_char_p]),
    "leir_program_cost": (c_int, [ctx_p, prog_p, c_char_p, POINTER(c_double)]),
    "leir_program_measure": (c_int, [ctx_p, prog_p, POINTER(c_double)]),
    "leir_free": (None, [c_void_p]),
}

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_error: str | None = None


#: The folder of this package (where a wheel puts libleir.so.0 and bin/leirc).
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def bundled_library() -> str | None:
    """The package's own ``libleir.so.0`` (a wheel's), or None when it has none."""
    path = os.path.join(PACKAGE_DIR, SONAME)
    return path if os.path.isfile(path) else None


def library_path() -> str:
    """The file name :func:`lib` loads: under ``$LEIR_LIBDIR``, else the
    package's own copy (:func:`bundled_library`), else the soname (the
    system's loader searches for it)."""
    libdir = os.environ.get("LEIR_LIBDIR")
    if libdir:
        return os.path.join(libdir, SONAME)
    return bundled_library() or SONAME


def leirc_path() -> str | None:
    """The ``leirc`` executable bundled with the package (``leir/bin/leirc``,
    a wheel's), or None when the package has none (a build tree's or an
    installed package: their ``leirc`` is the one on ``PATH``)."""
    path = os.path.join(PACKAGE_DIR, "bin", "leirc")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _declare(cdll: ctypes.CDLL) -> None:
    missing = [name for name in PROTOTYPES if not hasattr(cdll, name)]
    if missing:
        raise LibraryNotFound(f"{cdll._name}: no symbol {', '.join(missing)} (not libleir API level {API_VERSION}?)")
    for name, (restype, argtypes) in PROTOTYPES.items():
        fn = getattr(cdll, name)
        fn.restype = restype
        fn.argtypes = argtypes


def lib() -> ctypes.CDLL:
    """The loaded library, its prototypes declared; loads it on the first call.

    Raises :class:`LibraryNotFound` when it cannot be loaded (the same
    error again on every later call).
    """
    global _lib, _error
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            if _error is not None:
                raise LibraryNotFound(_error)
            path = library_path()
            try:
                cdll = ctypes.CDLL(path)
                _declare(cdll)
                level = cdll.leir_api_version()
                if level < API_VERSION:
                    raise LibraryNotFound(f"{path}: API level {level}, this binding needs {API_VERSION}")
            except OSError as e:
                _error = f"cannot load libleir ({path}): {e}"
                if not os.environ.get("LEIR_LIBDIR") and path == SONAME:
                    _error += "; set LEIR_LIBDIR to the folder of libleir.so.0"
                raise LibraryNotFound(_error) from None
            _lib = cdll
    return _lib


def available() -> bool:
    """Whether libleir can be loaded."""
    try:
        lib()
    except LibraryNotFound:
        return False
    return True


def take_string(ptr: int | None) -> str | None:
    """The text of a ``char *`` the library handed over, which it then frees."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib().leir_free(ptr)


def text(b: bytes | None) -> str | None:
    """A ``const char *`` of the library as ``str`` (None for NULL)."""
    return None if b is None else b.decode("utf-8", "replace")
