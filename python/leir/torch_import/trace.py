"""Tracing with torch.fx and shape propagation (ShapeProp) on the example inputs."""

from __future__ import annotations

import contextlib
import dis
import os
import inspect
from typing import Any

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp

from .errors import TorchImportError, location_in_traceback, module_source_file


class _Proxy(torch.fx.Proxy):
    """A Proxy whose unpacking (``a, b = proxy``, ``B, T, C = x.size()``) works on Python
    3.11, where torch 1.13's own check reads the wrong instruction."""

    def __iter__(self):  # type: ignore[override]
        frame = inspect.currentframe()
        caller = frame.f_back if frame else None
        if caller is not None:
            for inst in dis.get_instructions(caller.f_code):
                if inst.offset == caller.f_lasti:
                    if inst.opname == "UNPACK_SEQUENCE":
                        return (self[i] for i in range(inst.argval))  # type: ignore[index]
                    break
        return self.tracer.iter(self)

    def size(self, dim: int | None = None) -> Any:
        """Sizes are the example inputs' (shapes are static in LEIR)."""
        value = self.node.meta.get("leir_value")
        if isinstance(value, torch.Tensor):
            return value.size() if dim is None else value.size(dim)
        return self.tracer.create_proxy("call_method", "size", (self,) if dim is None
                                        else (self, dim), {})

    def dim(self) -> Any:
        value = self.node.meta.get("leir_value")
        if isinstance(value, torch.Tensor):
            return value.dim()
        return self.tracer.create_proxy("call_method", "dim", (self,), {})

    def __getattr__(self, k: str) -> Any:
        if k in ("shape", "ndim"):
            value = self.node.meta.get("leir_value")
            if isinstance(value, torch.Tensor):
                return getattr(value, k)
        return super().__getattr__(k)


class _Tracer(torch.fx.Tracer):
    """The standard tracer (``torch.nn`` modules are leaves) with stack traces recorded,
    which also runs every node on the example inputs as it records it, so that sizes
    (``x.size()``, ``x.shape``) are constants, as the Step-TP translator has them."""

    def __init__(self, example_inputs: tuple[Any, ...]) -> None:
        super().__init__()
        self.record_stack_traces = True
        self.example_inputs = list(example_inputs)
        self.placeholders = 0
        self.evaluating = False

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: Any) -> Any:
        if self.evaluating:
            return attr_val
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def call_module(self, m: torch.nn.Module, forward: Any, args: Any, kwargs: Any) -> Any:
        if self.evaluating:
            return forward(*args, **kwargs)
        return super().call_module(m, forward, args, kwargs)

    def proxy(self, node: torch.fx.Node) -> torch.fx.Proxy:
        return _Proxy(node, self)

    def create_proxy(self, kind: str, target: Any, args: Any, kwargs: Any, *rest: Any,
                     **kw: Any) -> Any:
        proxy = super().create_proxy(kind, target, args, kwargs, *rest, **kw)
        try:
            proxy.node.meta["leir_value"] = self._evaluate(kind, target, args, kwargs)
        except Exception:  # noqa: BLE001 - ShapeProp reports real failures later
            proxy.node.meta["leir_value"] = None
        return proxy

    def _evaluate(self, kind: str, target: Any, args: Any, kwargs: Any) -> Any:
        def real(a: Any) -> Any:
            if isinstance(a, torch.fx.Proxy):
                value = a.node.meta.get("leir_value")
                if value is None:
                    raise ValueError("unknown")
                return value
            if isinstance(a, (list, tuple)):
                return type(a)(real(x) for x in a)
            if isinstance(a, dict):
                return {k: real(v) for k, v in a.items()}
            return a
        if kind == "placeholder":
            value = self.example_inputs[self.placeholders]
            self.placeholders += 1
            return value
        args, kwargs = real(args), real(kwargs)
        self.evaluating = True
        try:
            return self._run(kind, target, args, kwargs)
        finally:
            self.evaluating = False

    def _run(self, kind: str, target: Any, args: Any, kwargs: Any) -> Any:
        with torch.no_grad():
            if kind == "call_function":
                return target(*args, **kwargs)
            if kind == "call_method":
                return getattr(args[0], target)(*args[1:], **kwargs)
            if kind == "call_module":
                return self.root.get_submodule(target)(*args, **kwargs)
            if kind == "get_attr":
                obj: Any = self.root
                for part in target.split("."):
                    obj = getattr(obj, part)
                return obj
        return None


def trace(module: torch.nn.Module, example_inputs: tuple[Any, ...]) -> torch.fx.GraphModule:
    """``module`` as an FX graph whose nodes carry ``meta['tensor_meta']`` and a stack trace.

    Standard ``torch.nn`` modules stay leaves (``call_module`` nodes), as in the Step-TP
    translator."""
    cls = type(module).__name__
    source = module_source_file(module)
    tracer = _Tracer(example_inputs)
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
    for node in graph.nodes:
        node.meta.pop("leir_value", None)
    gm = torch.fx.GraphModule(tracer.root, graph, cls)
    try:
        with torch.no_grad(), open(os.devnull, "w") as null, \
                contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
            ShapeProp(gm).propagate(*example_inputs)
    except Exception as exc:  # noqa: BLE001
        where = location_in_traceback(exc.__traceback__, source)
        at = f" at {where}" if where else ""
        raise TorchImportError(
            f"cannot run {cls} on the example inputs{at}: {type(exc).__name__}: {exc}") from None
    return gm
