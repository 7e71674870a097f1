"""leir: LEIR tensor programs from Python.

The Python side of leirc, the compiler for LEIR (Loop-Equation IR), the
tensor-program notation of the Step-TP work.  From the build tree use it
with ``PYTHONPATH=python``; ``make install`` installs it.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
