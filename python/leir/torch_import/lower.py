"""The graph walk: names every tensor in the translator's order, then lowers node by node
through the table of ops.py, appending loop nests."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx

from .emit import dtype_code
from .errors import TorchImportError, location_in_stack, module_source_file
from .names import TensorNames, tensor_name_key
from .values import Value

# Python-level functions folded at import time when none of their arguments is a tensor.
FOLDABLE: set[Callable[..., Any]] = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.neg, operator.getitem, math.sqrt, math.exp,
    math.log, int, float, abs, max, min, getattr,
}


@dataclass
class Declared:
    """A program argument and the tensor that feeds it."""

    value: Value
    tensor: torch.Tensor
    role: str  # input, param or output


@dataclass
class Lowering:
    """The result: nests and the declared tensors in header order."""

    nests: list[str] = field(default_factory=list)
    inputs: list[Declared] = field(default_factory=list)
    params: list[Declared] = field(default_factory=list)
    outputs: list[Value] = field(default_factory=list)
    output_nodes: list[torch.fx.Node] = field(default_factory=list)
    # forward's arguments in order: (name, LEIR name; None for one that is no tensor)
    arguments: list[tuple[str, str | None]] = field(default_factory=list)
    returns: str = "tensor"  # what forward returns: "tensor", "tuple" or "list"


class Lowerer:
    """Lowers one traced GraphModule (nodes carrying ShapeProp's ``tensor_meta``)."""

    def __init__(self, gm: torch.fx.GraphModule, root: torch.nn.Module,
                 inputs: tuple[Any, ...], dtype: torch.dtype | None) -> None:
        self.gm = gm
        self.root = root
        self.example_inputs = inputs
        self.dtype = dtype
        self.source = module_source_file(root)
        self.names = TensorNames()
        self.result = Lowering()
        self.values: dict[torch.fx.Node, Any] = {}
        self.reserved: dict[torch.fx.Node, str] = {}
        self.param_names: dict[str, str] = {}  # qualified attribute name -> LEIR name
        self.param_used: dict[str, Declared] = {}
        self.node: torch.fx.Node | None = None

    # -- naming ------------------------------------------------------------------------
    def _reserve_names(self) -> None:
        graph = self.gm.graph
        out_node = next(n for n in graph.nodes if n.op == "output")
        outs = out_node.args[0]
        self.result.returns = ("tuple" if isinstance(outs, tuple) else
                               "list" if isinstance(outs, list) else "tensor")
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        for node in outs:
            if not isinstance(node, torch.fx.Node):
                raise TorchImportError(
                    "the module's output is not a tensor computed from its inputs")
        self.result.output_nodes = outs
        for node in graph.nodes:
            if node.op == "placeholder":
                self.reserved[node] = self.names.fresh()
        for node in graph.nodes:
            if node.op in ("call_function", "call_method", "call_module") \
                    and node not in outs and self._is_tensor(node):
                self.reserved[node] = self.names.fresh()
        for node in outs:
            if node not in self.reserved or node.op == "placeholder":
                self.reserved[node] = self.names.fresh()
        # Constants (get_attr nodes), then every parameter of the module: a get_attr of a
        # parameter is read through its parameter name (the translator's rule; the
        # constant's name stays unused).
        constants = {}
        for node in graph.nodes:
            if node.op == "get_attr" and str(node.target) not in constants:
                constants[str(node.target)] = self.names.fresh()
        for qualname, _ in self.root.named_parameters():
            self._reserve_param(qualname)
        for qualname, name in constants.items():
            if not isinstance(self._attr(qualname), torch.nn.Parameter):
                self.param_names.setdefault(qualname, name)
            elif qualname not in self.param_names:
                self.param_names[qualname] = name
        for node in graph.nodes:
            if node.op == "call_module":
                mod = self.gm.get_submodule(str(node.target))
                for pname, _ in mod.named_parameters(recurse=False):
                    self._reserve_param(f"{node.target}.{pname}")
                for bname, _ in mod.named_buffers(recurse=False):
                    if bname != "num_batches_tracked":
                        self._reserve_param(f"{node.target}.{bname}")

    def _reserve_param(self, qualname: str) -> None:
        if qualname not in self.param_names:
            self.param_names[qualname] = self.names.fresh()

    @staticmethod
    def _is_tensor(node: torch.fx.Node) -> bool:
        """A tensor or a tuple of tensors (``max`` along a dim, ``split``) gets a name."""
        meta = node.meta.get("tensor_meta")
        if meta is None or hasattr(meta, "shape"):
            return meta is not None
        return isinstance(meta, (list, tuple)) and any(hasattr(m, "shape") for m in meta)

    # -- values --------------------------------------------------------------------------
    def code(self, dtype: torch.dtype) -> str:
        if self.dtype is not None and dtype.is_floating_point:
            dtype = self.dtype
        return dtype_code(dtype)

    def out(self, node: torch.fx.Node | None = None) -> Value:
        """The value a node's result is written to (its reserved name, traced shape)."""
        node = node or self.node
        assert node is not None
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise self.unsupported("a result that is not one tensor")
        name = self.reserved.get(node) or self.names.fresh()
        self.reserved[node] = name
        return Value(name, tuple(int(s) for s in meta.shape), self.code(meta.dtype))

    def temp(self, shape: tuple[int, ...] | list[int], dtype: str) -> Value:
        return Value(self.names.fresh(), tuple(int(s) for s in shape), dtype)

    def param(self, qualname: str, tensor: torch.Tensor | None = None) -> Value:
        """The program parameter for attribute ``qualname`` of the root module."""
        if qualname in self.param_used:
            return self.param_used[qualname].value
        if tensor is None:
            tensor = self._attr(qualname)
        if qualname not in self.param_names:
            self._reserve_param(qualname)
        value = Value(self.param_names[qualname], tuple(tensor.shape), self.code(tensor.dtype))
        decl = Declared(value, tensor.detach(), "param")
        self.param_used[qualname] = decl
        self.result.params.append(decl)
        return value

    def module_param(self, node: torch.fx.Node, attr: str) -> Value | None:
        mod = self.gm.get_submodule(str(node.target))
        tensor = getattr(mod, attr, None)
        if tensor is None:
            return None
        return self.param(f"{node.target}.{attr}", tensor)

    def _attr(self, qualname: str) -> Any:
        obj: Any = self.gm
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj

    def emit(self, nest: str) -> None:
        self.result.nests.append(nest)

    # -- diagnostics -------------------------------------------------------------------
    def where(self, node: torch.fx.Node | None = None) -> str:
        node = node or self.node
        if node is None:
            return ""
        loc = location_in_stack(node.meta.get("stack_trace") or node.stack_trace, self.source)
        return f" (FX node '{node.name}'" + (f", {loc})" if loc else ")")

    def op_name(self, node: torch.fx.Node | None = None) -> str:
        node = node or self.node
        assert node is not None
        if node.op == "call_module":
            return type(self.gm.get_submodule(str(node.target))).__name__
        if node.op == "call_method":
            return f"Tensor.{node.target}"
        target = node.target
        mod = getattr(target, "__module__", None) or ""
        name = getattr(target, "__name__", str(target))
        if mod.startswith("torch.nn.functional"):
            return f"torch.nn.functional.{name}"
        if mod.startswith("torch") or mod == "":
            return f"torch.{name}"
        return f"{mod}.{name}"

    def unsupported(self, what: str | None = None) -> TorchImportError:
        detail = f" with {what}" if what else ""
        return TorchImportError(f"unsupported operator '{self.op_name()}'{detail}{self.where()}")

    # -- the walk ----------------------------------------------------------------------
    def resolve(self, arg: Any) -> Any:
        if isinstance(arg, torch.fx.Node):
            return self.values[arg]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.resolve(a) for a in arg)
        if isinstance(arg, dict):
            return {k: self.resolve(v) for k, v in arg.items()}
        return arg

    def run(self) -> Lowering:
        from .ops import lower_node  # the table imports this module's names

        self._reserve_names()
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(self.example_inputs):
            raise TorchImportError(
                f"{type(self.root).__name__}.forward takes {len(placeholders)} inputs, "
                f"{len(self.example_inputs)} given")
        for node, tensor in zip(placeholders, self.example_inputs):
            if not isinstance(tensor, torch.Tensor):
                self.values[node] = tensor
                self.result.arguments.append((str(node.target), None))
                continue
            value = Value(self.reserved[node], tuple(tensor.shape), self.code(tensor.dtype))
            self.result.arguments.append((str(node.target), value.name))
            self.values[node] = value
            self.result.inputs.append(Declared(value, tensor, "input"))
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "placeholder":
                continue
            if node.op == "output":
                break
            if node.op == "get_attr":
                attr = self._attr(str(node.target))
                self.values[node] = (self.param(str(node.target), attr)
                                     if isinstance(attr, torch.Tensor) else attr)
                continue
            args = self.resolve(node.args)
            kwargs = self.resolve(node.kwargs)
            self.values[node] = lower_node(self, node, args, kwargs)
        for node in self.result.output_nodes:
            self.node = node
            value = self.values[node]
            if not isinstance(value, Value):
                raise TorchImportError(f"output '{node.name}' is not a tensor")
            name = self.reserved[node]
            if value.name != name:
                from .ops import copy_to
                target = Value(name, value.shape, value.dtype)
                copy_to(self, target, value)
                value = target
            self.result.outputs.append(value)
        self.result.params.sort(key=lambda d: tensor_name_key(d.value.name))
        return self.result
