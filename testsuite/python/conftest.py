"""Shared fixtures of the pytest tests of the Python package ``leir``.

testsuite/check.sh runs them from the build tree with ``PYTHONPATH`` set to
``$top_srcdir/python`` and ``LEIRC`` naming the built ``leirc``.
"""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

TOP_SRCDIR = pathlib.Path(__file__).resolve().parents[2]
CORPUS = pathlib.Path(os.environ.get("LEIR_CORPUS") or TOP_SRCDIR.parent / "shared" / "corpus")


@pytest.fixture(scope="session")
def leirc() -> str:
    """The path of the ``leirc`` under test (``$LEIRC``, else on ``PATH``)."""
    path = os.environ.get("LEIRC") or shutil.which("leirc")
    if not path:
        pytest.skip("no leirc: set LEIRC")
    return path


@pytest.fixture(scope="session")
def top_srcdir() -> pathlib.Path:
    """The source tree's root."""
    return TOP_SRCDIR


@pytest.fixture(scope="session")
def corpus() -> pathlib.Path:
    """The paper's corpus (``$LEIR_CORPUS``, else ``../shared/corpus``); tests that need it skip."""
    if not (CORPUS / "programs").is_dir():
        pytest.skip("no corpus at ../shared/corpus")
    return CORPUS


@pytest.fixture(scope="session")
def libleir() -> None:
    """libleir loaded (``$LEIR_LIBDIR/libleir.so.0``, else the system's).

    Skips only when the library file is absent (``$LEIR_LIBDIR`` names a
    folder without it, or the loader finds none); a library that is there
    but does not load fails the test.
    """
    import leir
    from leir import _lib

    libdir = os.environ.get("LEIR_LIBDIR")
    if libdir and not os.path.exists(os.path.join(libdir, _lib.SONAME)):
        pytest.skip(f"no {_lib.SONAME} in LEIR_LIBDIR={libdir}")
    if not libdir:
        import ctypes.util

        if not ctypes.util.find_library("leir"):
            pytest.skip("no libleir installed and LEIR_LIBDIR not set")
    leir._lib.lib()  # raises (fails the test) if it is there but does not load

