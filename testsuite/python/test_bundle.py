"""Where the package finds libleir.so.0 and leirc when a wheel bundles them (issue 60).

The wheel itself is checked by ``make check-wheel`` (testsuite/wheel/check-wheel.sh);
these tests pin the lookup order of ``leir._lib`` and the ``leirc`` entry point
(``leir._cli``) on a package folder made up in tmp_path.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from leir import _cli, _lib


@pytest.fixture
def package_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """_lib.PACKAGE_DIR pointed at an empty folder (a package without binaries)."""
    monkeypatch.setattr(_lib, "PACKAGE_DIR", str(tmp_path))
    return tmp_path


def test_source_tree_bundles_nothing() -> None:
    assert _lib.PACKAGE_DIR == os.path.dirname(os.path.abspath(_lib.__file__))
    assert _lib.bundled_library() is None
    assert _lib.leirc_path() is None


def test_library_order(package_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEIR_LIBDIR", raising=False)
    assert _lib.library_path() == "libleir.so.0"  # the system's loader
    (package_dir / "libleir.so.0").write_bytes(b"")
    assert _lib.bundled_library() == str(package_dir / "libleir.so.0")
    assert _lib.library_path() == str(package_dir / "libleir.so.0")  # before the system's
    monkeypatch.setenv("LEIR_LIBDIR", "/some/build/.libs")
    assert _lib.library_path() == "/some/build/.libs/libleir.so.0"  # LEIR_LIBDIR first


def test_leirc_path_needs_an_executable(package_dir: pathlib.Path) -> None:
    (package_dir / "bin").mkdir()
    exe = package_dir / "bin" / "leirc"
    exe.write_text("#!/bin/sh\n")
    assert _lib.leirc_path() is None  # not executable
    exe.chmod(0o755)
    assert _lib.leirc_path() == str(exe)


def test_entry_point_without_leirc(package_dir: pathlib.Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli.leirc(["--version"]) == 127
    assert capsys.readouterr().err == (
        f"leirc: this leir package ({package_dir}) has no bundled leirc "
        "(only the wheel of `make wheel` has one)\n")


def test_entry_point_execs_leirc(tmp_path: pathlib.Path) -> None:
    # a stand-in leirc that shows its arguments and exits with status 3
    pkg = tmp_path / "pkg"
    (pkg / "bin").mkdir(parents=True)
    exe = pkg / "bin" / "leirc"
    exe.write_text('#!/bin/sh\necho "$0" "$@"\nexit 3\n')
    exe.chmod(0o755)
    code = ("import sys\n"
            "from leir import _cli, _lib\n"
            f"_lib.PACKAGE_DIR = {str(pkg)!r}\n"
            "print('before', flush=True)\n"
            "sys.exit(_cli.leirc())\n")
    r = subprocess.run([sys.executable, "-c", code, "-O", "tile", "a b.leir"],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (3, f"before\n{exe} -O tile a b.leir\n", "")
