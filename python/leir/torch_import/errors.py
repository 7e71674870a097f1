"""The one exception type of the importer, and where a node came from in the user's source."""

from __future__ import annotations

import inspect
import re
import traceback
from types import TracebackType


class TorchImportError(Exception):
    """A module leirc cannot import: the message names the operator or construct, the FX
    node and the module's source file:line where known."""


def module_source_file(module: object) -> str | None:
    try:
        return inspect.getsourcefile(type(module))
    except (TypeError, OSError):
        return None


def location_in_stack(stack_trace: str | None, source: str | None) -> str | None:
    """``file:line`` of the last frame of ``stack_trace`` (FX's text) in ``source``, else of
    the last frame at all."""
    if not stack_trace:
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+)', stack_trace)
    if not frames:
        return None
    chosen = frames[-1]
    if source:
        mine = [f for f in frames if f[0] == source]
        if mine:
            chosen = mine[-1]
    return f"{chosen[0]}:{chosen[1]}"


def location_in_traceback(tb: TracebackType | None, source: str | None) -> str | None:
    """``file:line`` of the innermost frame of ``tb`` that lies in ``source``."""
    if source is None:
        return None
    found = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == source:
            found = f"{frame.filename}:{frame.lineno}"
    return found
