"""The ``leirc`` command of a wheel (``make wheel``): runs the bundled compiler.

The wheel installs ``leirc`` as a console entry point, this module's
:func:`leirc`, which replaces the Python process by the ``leirc`` executable
shipped inside the package (``leir/bin/leirc``, :func:`leir._lib.leirc_path`)
with the same arguments, so that its output, exit status and signals are
leirc's own.  A package without a bundled ``leirc`` (the source tree, an
installed Debian package, whose ``leirc`` is on ``PATH`` already) makes it
print why and exit with status 127, as a shell does for a missing command.
"""

from __future__ import annotations

import os
import sys

from . import _lib


def leirc(argv: list[str] | None = None) -> int:
    """Execute the bundled ``leirc`` with ``argv`` (default: this process's
    arguments); returns only when there is none to execute (status 127) or
    it cannot be executed (status 126)."""
    args = sys.argv[1:] if argv is None else argv
    path = _lib.leirc_path()
    if path is None:
        print(f"leirc: this leir package ({_lib.PACKAGE_DIR}) has no bundled leirc "
              "(only the wheel of `make wheel` has one)", file=sys.stderr)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(path, [path, *args])
    except OSError as exc:
        print(f"leirc: cannot execute {path}: {exc.strerror}", file=sys.stderr)
        return 126
    return 126  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(leirc())
