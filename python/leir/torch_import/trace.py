"""Tracing with torch.fx and shape propagation (ShapeProp) on the example inputs."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp

from .errors import TorchImportError, location_in_traceback, module_source_file


def trace(module: torch.nn.Module, example_inputs: tuple[Any, ...]) -> torch.fx.GraphModule:
    """``module`` as an FX graph whose nodes carry ``meta['tensor_meta']`` and a stack trace.

    Standard ``torch.nn`` modules stay leaves (``call_module`` nodes), as in the Step-TP
    translator."""
    cls = type(module).__name__
    source = module_source_file(module)
    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    try:
        graph = tracer.trace(module)
    except torch.fx.proxy.TraceError as exc:
        where = location_in_traceback(exc.__traceback__, source)
        at = f" at {where}" if where else ""
        raise TorchImportError(
            f"cannot trace {cls}: data-dependent control flow{at} "
            f"(torch.fx: {exc})") from None
    except Exception as exc:  # noqa: BLE001 - any failure of user code during tracing
        where = location_in_traceback(exc.__traceback__, source)
        at = f" at {where}" if where else ""
        raise TorchImportError(
            f"cannot trace {cls}{at}: {type(exc).__name__}: {exc}") from None
    gm = torch.fx.GraphModule(tracer.root, graph, cls)
    try:
        with torch.no_grad():
            ShapeProp(gm).propagate(*example_inputs)
    except Exception as exc:  # noqa: BLE001
        where = location_in_traceback(exc.__traceback__, source)
        at = f" at {where}" if where else ""
        raise TorchImportError(
            f"cannot run {cls} on the example inputs{at}: {type(exc).__name__}: {exc}") from None
    return gm
