"""PyTorch front end: ``from_torch(module, example_inputs)`` → a LEIR program and its data.

The module is traced with torch.fx (standard ``torch.nn`` modules stay leaves), shapes
come from ShapeProp on the example inputs, and each node becomes loop nests in the idiom of
the Step-TP translator (the corpus's programs): one ``B`` loop named ``tx`` on the first
output dimension, reductions with implicit initialisation, padding through
``if_then_else`` into an intermediate, tensors named A, C, D, … in the order inputs,
intermediates, outputs, parameters, temporaries.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

from .data import Imported
from .errors import TorchImportError
from .kernelbench import load_model_file

__all__ = ["from_torch", "load_model_file", "Imported", "TorchImportError", "DTYPES"]

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def from_torch(module: Any, example_inputs: Sequence[Any] | Any, *, name: str | None = None,
               dtype: str | None = None) -> Imported:
    """Import ``module`` called on ``example_inputs`` (a tensor or a sequence of them).

    ``dtype`` (``f32``, ``f16``, ``bf16``) converts the module's floating-point parameters
    and inputs before importing.  Raises TorchImportError for an operator that cannot be
    lowered (named with its FX node and the source file:line) or a module torch.fx cannot
    trace."""
    import torch

    from .data import to_numpy
    from .lower import Lowerer
    from .trace import trace

    if isinstance(example_inputs, torch.Tensor) or not isinstance(example_inputs, (list, tuple)):
        example_inputs = (example_inputs,)
    inputs = tuple(example_inputs)
    tdt = None
    run_module, run_inputs = module, inputs
    if dtype is not None:
        if dtype not in DTYPES:
            raise TorchImportError(f"unsupported dtype '{dtype}' (f32, f16 or bf16)")
        tdt = getattr(torch, DTYPES[dtype])
        # Traced and shape-propagated as given (CPU PyTorch lacks many half kernels);
        # every floating-point tensor of the program gets the requested type.
        run_module = copy.deepcopy(module).to(tdt)
        run_inputs = tuple(t.to(tdt) if isinstance(t, torch.Tensor) and t.is_floating_point()
                           else t for t in inputs)
    # Tracing runs the module: a training-mode BatchNorm would update its running
    # statistics; the caller's module is left as it was given.
    buffers = [(b, b.detach().clone()) for b in module.buffers()]
    try:
        gm = trace(module, inputs)
        lowering = Lowerer(gm, module, inputs, tdt).run()
    finally:
        with torch.no_grad():
            for b, saved in buffers:
                b.copy_(saved)
    header = []
    arrays: dict[str, Any] = {}
    roles: dict[str, str] = {}
    dtypes: dict[str, str] = {}
    for decl in lowering.inputs + lowering.params:
        v = decl.value
        kind = "in" if decl.role == "input" else "param"
        header.append(f"%{kind} {v.name} : {v.dtype}[{','.join(map(str, v.shape))}]")
        arrays[v.name] = to_numpy(decl.tensor, v.dtype)
        roles[v.name] = decl.role
        dtypes[v.name] = v.dtype
    results = _run_torch(run_module, run_inputs)
    outputs: dict[str, Any] = {}
    for v, res in zip(lowering.outputs, results):
        header.append(f"%out {v.name} : {v.dtype}[{','.join(map(str, v.shape))}]")
        outputs[v.name] = to_numpy(res, v.dtype)
        roles[v.name] = "output"
        dtypes[v.name] = v.dtype
    text = "\n".join(header) + "\n" + "".join(lowering.nests) + "\n"
    ops = [_op_label(n) for n in gm.graph.nodes
           if n.op in ("call_function", "call_method", "call_module")]
    return Imported(name or type(module).__name__, text, arrays, outputs, roles, dtypes, ops,
                    list(lowering.arguments), lowering.returns)


def _run_torch(module: Any, inputs: tuple[Any, ...]) -> list[Any]:
    """PyTorch's own result (on a copy: a training-mode BatchNorm updates its statistics).
    Where CPU PyTorch lacks a half-precision kernel, the result is computed in float32 and
    rounded."""
    import torch

    with torch.no_grad():
        try:
            res = copy.deepcopy(module)(*inputs)
        except RuntimeError:
            wide = tuple(t.float() if isinstance(t, torch.Tensor) and t.is_floating_point()
                         else t for t in inputs)
            dt = next((t.dtype for t in inputs if isinstance(t, torch.Tensor)
                       and t.is_floating_point()), torch.float32)
            res = copy.deepcopy(module).float()(*wide)
            res = res.to(dt) if isinstance(res, torch.Tensor) else type(res)(r.to(dt) for r in res)
    return [res] if isinstance(res, torch.Tensor) else list(res)


def _op_label(node: Any) -> str:
    if node.op == "call_module":
        return type(node.graph.owning_module.get_submodule(node.target)).__name__
    return str(getattr(node.target, "__name__", node.target))
