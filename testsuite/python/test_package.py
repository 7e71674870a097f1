"""The package itself: importable from the build tree, versioned as leirc."""

from __future__ import annotations

import subprocess

import leir


def test_version_is_leircs(leirc: str) -> None:
    out = subprocess.run([leirc, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.split()[:2] == ["leirc", leir.__version__]


def test_help_names_the_package() -> None:
    assert "LEIR" in (leir.__doc__ or "")
