"""The lowering table: one handler per PyTorch operator, each appending loop nests in the
idiom of the Step-TP translator's output (SPEC §7, the corpus's programs)."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

from .emit import (Ex, Loops, add, binop, call, div, idx_sum, lit, mul, neg, paren, sub)
from .errors import TorchImportError
from .lower import FOLDABLE, Lowerer
from .values import Value, norm_dim, norm_dims

Handler = Callable[..., Any]
Operand = Value | float | int | bool


class Pieces:
    """A tuple-valued result (split/chunk, max/min with a dim) read through getitem."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items


class Slice:
    """One piece of a split: ``source`` from ``offset`` along ``dim``, ``size`` long."""

    def __init__(self, source: Value, dim: int, offset: int, size: int) -> None:
        self.source, self.dim, self.offset, self.size = source, dim, offset, size


def _read(op: Operand, idx: list[str], shape: tuple[int, ...]) -> Ex:
    if isinstance(op, Value):
        return op.bcast(idx, shape)
    if isinstance(op, (int, float, bool)):
        return lit(op)
    raise TypeError(op)


def _stmt(out: Value, items: list[str], rhs: Ex) -> str:
    return f"{out.ref(items).text}={rhs.text}"


def elementwise(cx: Lowerer, fn: Callable[..., Ex], *operands: Operand,
                out: Value | None = None) -> Value:
    """One nest over the result's shape: ``out = fn(operands…)`` with broadcasting."""
    out = out or cx.out()
    lp = Loops(out.shape)
    reads = [_read(o, lp.idx, out.shape) for o in operands]
    cx.emit(lp.nest(_stmt(out, lp.idx, fn(*reads))))
    return out


def copy_to(cx: Lowerer, out: Value, src: Value) -> Value:
    return elementwise(cx, lambda a: a, src, out=out)


def _tensor(cx: Lowerer, x: Any) -> Value:
    if not isinstance(x, Value):
        raise cx.unsupported("a non-tensor operand")
    return x


# -- elementwise ---------------------------------------------------------------------------
def tanh_nests(cx: Lowerer, x: Operand, out: Value) -> Value:
    """tanh as the translator spells it: D=exp(A)-exp(-A); E=exp(A)+exp(-A); C=D/E."""
    shape = out.shape
    num, den = cx.temp(shape, out.dtype), cx.temp(shape, out.dtype)
    elementwise(cx, lambda a: sub(call("exp", a), call("exp", neg(a))), x, out=num)
    elementwise(cx, lambda a: add(call("exp", a), call("exp", neg(a))), x, out=den)
    return elementwise(cx, div, num, den, out=out)


def sigmoid_ex(a: Ex) -> Ex:
    return div(1, paren(add(1, call("exp", neg(a)))))


def silu_ex(a: Ex) -> Ex:
    return div(a, paren(add(1, call("exp", neg(a)))))


def softsign_ex(a: Ex) -> Ex:
    return div(a, paren(add(1, call("abs", a))))


def gelu(cx: Lowerer, x: Value, approximate: str = "none") -> Value:
    if approximate == "none":
        return elementwise(cx, lambda a: mul(mul(a, 0.5), paren(add(1, call(
            "erf", div(a, call("sqrt", 2)))))), x)
    if approximate != "tanh":
        raise cx.unsupported(f"approximate='{approximate}'")
    out = cx.out()
    inner = cx.temp(out.shape, out.dtype)
    elementwise(cx, lambda a: mul(call("sqrt", 0.6366197723675814), paren(
        add(a, mul(0.044715, binop("**", a, 3))))), x, out=inner)
    th = cx.temp(out.shape, out.dtype)
    tanh_nests(cx, inner, th)
    return elementwise(cx, lambda a, t: mul(mul(0.5, a), paren(add(1, t))), x, th, out=out)


def mish(cx: Lowerer, x: Value) -> Value:
    out = cx.out()
    sp = cx.temp(out.shape, out.dtype)
    elementwise(cx, lambda a: call("log", add(1, call("exp", a))), x, out=sp)
    th = cx.temp(out.shape, out.dtype)
    tanh_nests(cx, sp, th)
    return elementwise(cx, mul, x, th, out=out)


def clamp(cx: Lowerer, x: Value, lo: float | None = None, hi: float | None = None) -> Value:
    def fn(a: Ex) -> Ex:
        if lo is not None:
            a = call("max", a, lo)
        if hi is not None:
            a = call("min", a, hi)
        return a
    if isinstance(lo, Value) or isinstance(hi, Value):
        raise cx.unsupported("tensor bounds")
    return elementwise(cx, fn, x)


def _unary(fn: Callable[[Ex], Ex]) -> Handler:
    return lambda cx, x, *a, **k: elementwise(cx, fn, _tensor(cx, x))


def _binary(op: str, swap: bool = False) -> Handler:
    def h(cx: Lowerer, a: Any, b: Any, *rest: Any, alpha: Any = 1, **kw: Any) -> Any:
        if swap:
            a, b = b, a
        if alpha != 1:
            b = b * alpha if not isinstance(b, Value) else None
            if b is None:
                raise cx.unsupported("alpha != 1")
        if not isinstance(a, Value) and not isinstance(b, Value):
            return _fold_binary(op, a, b)
        return elementwise(cx, lambda x, y: binop(op, x, y), a, b)
    return h


def _fold_binary(op: str, a: Any, b: Any) -> Any:
    return {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
            "**": operator.pow}[op](a, b)


def _compare(op: str) -> Handler:
    return lambda cx, a, b, **kw: elementwise(cx, lambda x, y: binop(op, x, y), a, b)


def div_handler(cx: Lowerer, a: Any, b: Any, rounding_mode: str | None = None, **kw: Any) -> Any:
    if rounding_mode is not None:
        raise cx.unsupported(f"rounding_mode='{rounding_mode}'")
    return _binary("/")(cx, a, b)


def pow_handler(cx: Lowerer, a: Any, b: Any) -> Any:
    if not isinstance(a, Value) and not isinstance(b, Value):
        return a ** b
    return elementwise(cx, lambda x, y: binop("**", x, y), a, b)


def where(cx: Lowerer, cond: Any, a: Any, b: Any) -> Value:
    return elementwise(cx, lambda c, x, y: call("if_then_else", c, x, y), cond, a, b)


def masked_fill(cx: Lowerer, x: Value, mask: Value, value: Any) -> Value:
    if isinstance(value, Value):
        return elementwise(cx, lambda a, m, v: call("if_then_else", m, v, a), x, mask, value)
    return elementwise(cx, lambda a, m: call("if_then_else", m, lit(float(value)), a), x, mask)


def tri(cx: Lowerer, x: Value, diagonal: int = 0, lower: bool = True) -> Value:
    out = cx.out()
    lp = Loops(out.shape)
    i, j = lp.idx[-2], lp.idx[-1]
    row = i if diagonal == 0 else idx_sum([(i, 1)], diagonal)
    cond = Ex(f"{row}>={j}" if lower else f"{row}<={j}")
    rhs = call("if_then_else", cond, x.ref(lp.idx), 0)
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    return out


# -- reductions ----------------------------------------------------------------------------
_COMBINE: dict[str, Callable[[Ex, Ex], Ex]] = {
    "sum": lambda acc, a: add(acc, a),
    "prod": lambda acc, a: mul(acc, a),
    "max": lambda acc, a: call("max", acc, a),
    "min": lambda acc, a: call("min", acc, a),
    "lse": lambda acc, a: add(acc, call("exp", a)),
    "sq": lambda acc, a: add(acc, binop("**", paren(a) if a.prec < 9 else a, 2)),
}


def reduce_into(cx: Lowerer, x: Value, dims: list[int], keepdim: bool, kind: str,
                acc: Value | None = None, term: Callable[[list[str]], Ex] | None = None
                ) -> tuple[Value, Loops]:
    """``acc[kept] = combine(acc, x[...])`` over the loops of ``x``'s shape (``B`` on the
    first kept dimension); reduced dimensions are dropped, or ``0`` items with keepdim."""
    kept = [d for d in range(x.rank) if d not in dims]
    lp = Loops(x.shape, kept[0] if kept else 0)
    items = []
    shape = []
    for d in range(x.rank):
        if d in dims:
            if keepdim:
                items.append("0")
                shape.append(1)
        else:
            items.append(lp.idx[d])
            shape.append(x.shape[d])
    if acc is None:
        acc = cx.temp(shape, x.dtype)
    read = term(lp.idx) if term else x.ref(lp.idx)
    cx.emit(lp.nest(_stmt(acc, items, _COMBINE[kind](acc.ref(items), read))))
    return acc, lp


def reduction(cx: Lowerer, x: Value, dim: Any, keepdim: bool, kind: str,
              post: Callable[[Ex], Ex] | None = None, out: Value | None = None) -> Value:
    out = out or cx.out()
    dims = norm_dims(dim, x.rank)
    if post is None and (not keepdim or len(dims) == 0):
        acc, _ = reduce_into(cx, x, dims, False, kind, acc=out)
        return acc
    acc, _ = reduce_into(cx, x, dims, keepdim, kind)
    return elementwise(cx, post or (lambda a: a), acc, out=out)


def _dim_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, bool]:
    dim = args[0] if args else kwargs.get("dim", kwargs.get("axis"))
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    return dim, bool(keepdim)


def _count(x: Value, dim: Any) -> int:
    return math.prod(x.shape[d] for d in norm_dims(dim, x.rank))


def sum_h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
    dim, keep = _dim_args(args, kw)
    return reduction(cx, x, dim, keep, "sum")


def mean_h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
    dim, keep = _dim_args(args, kw)
    n = _count(x, dim)
    return reduction(cx, x, dim, keep, "sum", post=lambda a: div(a, n))


def prod_h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
    dim, keep = _dim_args(args, kw)
    return reduction(cx, x, dim, keep, "prod")


def amax_h(kind: str) -> Handler:
    def h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
        dim, keep = _dim_args(args, kw)
        return reduction(cx, x, dim if dim != () else None, keep, kind)
    return h


def maxmin_h(kind: str) -> Handler:
    """torch.max/min: of a tensor (a value), along a dim (values, indices), or of two tensors."""
    def h(cx: Lowerer, x: Any, *args: Any, **kw: Any) -> Any:
        if args and isinstance(args[0], Value) or isinstance(kw.get("other"), Value):
            other = args[0] if args else kw["other"]
            return elementwise(cx, lambda a, b: call(kind, a, b), x, other)
        dim, keep = _dim_args(args, kw)
        if dim is None:
            return reduction(cx, x, None, False, kind)
        cx.names.fresh()  # the indices' name: the translator draws it, then never writes it
        acc, _ = reduce_into(cx, x, norm_dims(dim, x.rank), keep, kind)
        return Pieces([acc, None])
    return h


def logsumexp_h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
    dim, keep = _dim_args(args, kw)
    out = cx.out()
    acc, _ = reduce_into(cx, x, norm_dims(dim, x.rank), keep, "lse")
    return elementwise(cx, lambda a: call("log", a), acc, out=out)


def var_h(std: bool) -> Handler:
    def h(cx: Lowerer, x: Value, *args: Any, unbiased: Any = None, correction: Any = None,
          **kw: Any) -> Value:
        if args and isinstance(args[0], bool):
            unbiased, args = args[0], args[1:]
        dim, keep = _dim_args(args, kw)
        dims = norm_dims(dim, x.rank)
        n = _count(x, dims)
        corr = 1 if unbiased in (None, True) else 0
        if correction is not None:
            corr = int(correction)
        out = cx.out()
        s, _ = reduce_into(cx, x, dims, True, "sum")
        mean = elementwise(cx, lambda a: div(a, n), s, out=cx.temp(s.shape, s.dtype))
        sq, _ = reduce_into(cx, x, dims, keep, "sq",
                            term=lambda idx: sub(x.ref(idx), mean.bcast(idx, x.shape)))
        post = (lambda a: call("sqrt", div(a, n - corr))) if std else (lambda a: div(a, n - corr))
        return elementwise(cx, post, sq, out=out)
    return h


def norm_h(cx: Lowerer, x: Value, p: Any = "fro", dim: Any = None, keepdim: bool = False,
           **kw: Any) -> Value:
    if p not in ("fro", 2, 2.0):
        raise cx.unsupported(f"p={p!r}")
    out = cx.out()
    acc, _ = reduce_into(cx, x, norm_dims(dim, x.rank), keepdim, "sq")
    return elementwise(cx, lambda a: call("sqrt", a), acc, out=out)


def softmax_h(log: bool) -> Handler:
    def h(cx: Lowerer, x: Value, dim: Any = None, *rest: Any, **kw: Any) -> Value:
        if dim is None:
            dim = kw.get("dim")
        if dim is None:
            raise cx.unsupported("an implicit dim")
        return softmax(cx, x, norm_dim(int(dim), x.rank), log)
    return h


def softmax(cx: Lowerer, x: Value, d: int, log: bool, out: Value | None = None) -> Value:
    """D=max(D,A); E=E+exp(A-D); C=exp(A-D)/E (log: C=A-D-log(E)), same headers."""
    out = out or cx.out()
    b_at = 1 if d == 0 and x.rank > 1 else 0
    red_shape = [s for i, s in enumerate(x.shape) if i != d]
    mx, sm = cx.temp(red_shape, out.dtype), cx.temp(red_shape, out.dtype)
    lp = Loops(x.shape, b_at)
    red = [i for k, i in enumerate(lp.idx) if k != d]
    a = x.ref(lp.idx)
    cx.emit(lp.nest(_stmt(mx, red, call("max", mx.ref(red), a))))
    cx.emit(lp.nest(_stmt(sm, red, add(sm.ref(red), call("exp", sub(a, mx.ref(red)))))))
    if log:
        rhs = sub(sub(a, mx.ref(red)), call("log", sm.ref(red)))
    else:
        rhs = div(call("exp", sub(a, mx.ref(red))), sm.ref(red))
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    return out


def cumsum_h(prod: bool) -> Handler:
    def h(cx: Lowerer, x: Value, dim: Any = None, **kw: Any) -> Value:
        dim = kw.get("dim") if dim is None else dim
        d = norm_dim(int(dim), x.rank)
        out = cx.out()
        lp = Loops(out.shape)
        k = lp.add(x.shape[d])
        items = list(lp.idx)
        items[d] = k
        ident = 1 if prod else 0
        term = call("if_then_else", Ex(f"{k}<={lp.idx[d]}"), x.ref(items), ident)
        rhs = mul(out.ref(lp.idx), term) if prod else add(out.ref(lp.idx), term)
        cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
        return out
    return h


# -- linear algebra ------------------------------------------------------------------------
def matmul(cx: Lowerer, a: Value, b: Value, out: Value | None = None) -> Value:
    """``D=D+A*C`` with the contracted loop innermost (batch dims broadcast)."""
    out = out or cx.out()
    if a.rank == 0 or b.rank == 0:
        raise cx.unsupported("a 0-d operand")
    lp = Loops(out.shape)
    k = lp.add(a.shape[-1])
    nb = out.rank - (a.rank >= 2) - (b.rank >= 2)
    batch = lp.idx[:nb]

    def items(v: Value, tail: list[str]) -> list[str]:
        vb = v.rank - len(tail)
        lead = nb - vb
        head = ["0" if v.shape[j] == 1 and out.shape[lead + j] != 1 else batch[lead + j]
                for j in range(vb)]
        return head + tail

    a_items = items(a, [lp.idx[nb], k] if a.rank >= 2 else [k])
    b_items = items(b, [k, lp.idx[-1]] if b.rank >= 2 else [k])
    rhs = add(out.ref(lp.idx), mul(a.ref(a_items), b.ref(b_items)))
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    return out


def linear(cx: Lowerer, x: Value, w: Value, bias: Value | None) -> Value:
    """``C=C+A*W`` over the in-features, then ``C=C+bias`` in a second nest."""
    out = cx.out()
    lp = Loops(out.shape)
    k = lp.add(x.shape[-1])
    xi = lp.idx[:-1] + [k]
    rhs = add(out.ref(lp.idx), mul(x.ref(xi), w.ref([lp.idx[-1], k])))
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    if bias is not None:
        lp2 = Loops(out.shape)
        cx.emit(lp2.nest(_stmt(out, lp2.idx, add(out.ref(lp2.idx), bias.ref([lp2.idx[-1]])))))
    return out


def addmm_h(cx: Lowerer, bias: Value, a: Value, b: Value, beta: Any = 1, alpha: Any = 1) -> Value:
    if beta != 1 or alpha != 1:
        raise cx.unsupported("alpha/beta != 1")
    out = matmul(cx, a, b)
    lp = Loops(out.shape)
    cx.emit(lp.nest(_stmt(out, lp.idx, add(out.ref(lp.idx), bias.bcast(lp.idx, out.shape)))))
    return out


def einsum_h(cx: Lowerer, eq: str, *ops: Any) -> Value:
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    eq = eq.replace(" ", "")
    if "..." in eq or "->" not in eq:
        raise cx.unsupported(f"equation '{eq}'")
    lhs, res = eq.split("->")
    specs = lhs.split(",")
    out = cx.out()
    lp = Loops(out.shape)
    where_idx = dict(zip(res, lp.idx))
    sizes = {}
    for spec, v in zip(specs, ops):
        for ch, s in zip(spec, v.shape):
            sizes[ch] = s
    for ch in dict.fromkeys("".join(specs)):
        if ch not in where_idx:
            where_idx[ch] = lp.add(sizes[ch])
    term: Ex | None = None
    for spec, v in zip(specs, ops):
        r = v.ref([where_idx[ch] for ch in spec])
        term = r if term is None else mul(term, r)
    assert term is not None
    cx.emit(lp.nest(_stmt(out, lp.idx, add(out.ref(lp.idx), term))))
    return out


# -- convolution and pooling -----------------------------------------------------------------
def _tuple(v: Any, n: int) -> tuple[int, ...]:
    if isinstance(v, int):
        return (v,) * n
    return tuple(int(a) for a in v)


def pad_nest(cx: Lowerer, x: Value, pads: tuple[int, ...], fill: float) -> Value:
    """``E=if_then_else(1<=c<33&1<=d<33,A_{tx,a,c-1,d-1},fill)`` over the padded shape."""
    n = len(pads)
    shape = list(x.shape[:-n]) + [s + 2 * p for s, p in zip(x.shape[-n:], pads)]
    padded = cx.temp(shape, x.dtype)
    lp = Loops(shape)
    conds, items = [], list(lp.idx[:-n])
    for i, p in zip(lp.idx[-n:], pads):
        items.append(idx_sum([(i, 1)], -p))
    for i, p, s in zip(lp.idx[-n:], pads, x.shape[-n:]):
        if p:
            conds.append(f"{p}<={i}<{s + p}")
    rhs = call("if_then_else", Ex("&".join(conds)), x.ref(items), lit(fill))
    cx.emit(lp.nest(_stmt(padded, lp.idx, rhs)))
    return padded


def conv(cx: Lowerer, x: Value, w: Value, bias: Value | None, stride: Any, padding: Any,
         dilation: Any, groups: int, nd: int) -> Value:
    out = cx.out()
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    ksize = w.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif all(s == 1 for s in stride) and all((d * (k - 1)) % 2 == 0
                                                 for d, k in zip(dilation, ksize)):
            padding = tuple(d * (k - 1) // 2 for d, k in zip(dilation, ksize))
        else:
            raise cx.unsupported(f"padding='{padding}'")
    pads = _tuple(padding, nd)
    src = pad_nest(cx, x, pads, 0) if any(pads) else x
    lp = Loops(out.shape)
    cin_g = w.shape[1]
    cout_g = out.shape[1] // groups
    f = lp.add(cin_g)
    kidx = [lp.add(k) for k in ksize]
    a = lp.idx[1]
    if groups == 1:
        chan = f
    elif cin_g == 1 and cout_g == 1:
        chan = a
    elif cout_g == 1:
        chan = f"{a}*{cin_g}+{f}"
    else:
        chan = f"{a}//{cout_g}*{cin_g}+{f}"
    spatial = [idx_sum([(o, s), (k, d)]) for o, k, s, d in
               zip(lp.idx[2:], kidx, stride, dilation)]
    xr = src.ref([lp.idx[0], chan] + spatial)
    wr = w.ref([a, f] + kidx)
    prod = mul(xr, wr) if src is not x else mul(wr, xr)
    cx.emit(lp.nest(_stmt(out, lp.idx, add(out.ref(lp.idx), prod))))
    if bias is not None:
        lp2 = Loops(out.shape)
        cx.emit(lp2.nest(_stmt(out, lp2.idx, add(out.ref(lp2.idx), bias.ref([lp2.idx[1]])))))
    return out


def pool(cx: Lowerer, x: Value, kind: str, nd: int, kernel: Any, stride: Any = None,
         padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
         count_include_pad: bool = True, divisor_override: Any = None,
         return_indices: bool = False) -> Value:
    if ceil_mode or return_indices or divisor_override is not None:
        raise cx.unsupported("ceil_mode, return_indices or divisor_override")
    out = cx.out()
    kernel = _tuple(kernel, nd)
    stride = _tuple(stride if stride not in (None, []) else kernel, nd)
    pads, dil = _tuple(padding, nd), _tuple(dilation, nd)
    if kind == "avg" and any(pads) and not count_include_pad:
        raise cx.unsupported("count_include_pad=False")
    fill = -math.inf if kind == "max" else 0
    acc = cx.temp(out.shape, out.dtype) if kind == "avg" else None
    src = pad_nest(cx, x, pads, fill) if any(pads) else x
    if kind == "max":
        lp = Loops(out.shape)
        kidx = [lp.add(k) for k in kernel]
        items = lp.idx[:-nd] + [f"{o}*{s}+{k}*{d}" for o, k, s, d in
                                zip(lp.idx[-nd:], kidx, stride, dil)]
        cx.emit(lp.nest(_stmt(out, lp.idx, call("max", out.ref(lp.idx), src.ref(items)))))
        return out
    assert acc is not None
    lp = Loops(out.shape)
    kidx = [lp.add(k) for k in kernel]
    items = lp.idx[:-nd] + [idx_sum([(o, s), (k, d)]) for o, k, s, d in
                            zip(lp.idx[-nd:], kidx, stride, dil)]
    cx.emit(lp.nest(_stmt(acc, lp.idx, add(acc.ref(lp.idx), src.ref(items)))))
    lp2 = Loops(out.shape)
    factors = []
    for o, k, s, p, size in zip(lp2.idx[-nd:], kernel, stride, pads, x.shape[-nd:]):
        factors.append(f"(min({k - 1 - p},{size - 1 + p}-{o}*{s})+{1 + p})")
    divisor = Ex(factors[0]) if nd == 1 else Ex(f"({'*'.join(factors)})")
    cx.emit(lp2.nest(_stmt(out, lp2.idx, div(acc.ref(lp2.idx), divisor))))
    return out


def adaptive_pool(cx: Lowerer, x: Value, kind: str, nd: int, output_size: Any) -> Value:
    osize = _tuple(output_size, nd)
    osize = tuple(x.shape[-nd + i] if o is None else o for i, o in enumerate(osize))
    insize = x.shape[-nd:]
    if all(o == 1 for o in osize) and kind == "avg":
        out = cx.out()
        lead = x.rank - nd
        acc, _ = reduce_into(cx, x, list(range(lead, x.rank)), True, "sum")
        n = math.prod(insize)
        return elementwise(cx, lambda a: div(a, n), acc, out=out)
    if any(i % o for i, o in zip(insize, osize)):
        raise cx.unsupported(f"output_size {osize} not dividing the input {insize}")
    k = tuple(i // o for i, o in zip(insize, osize))
    return pool(cx, x, kind, nd, k, k)


# -- normalisation -------------------------------------------------------------------------
def normalize(cx: Lowerer, x: Value, red: list[int], eps: float, out: Value,
              affine: Callable[[list[str]], tuple[Ex, Ex]] | None, b_at: int = 0,
              groups: tuple[int, int] | None = None) -> Value:
    """mean-sum, mean, var-sum, var, ``(A-G)/sqrt(I+eps)``, affine (SPEC §7), over the
    dimensions ``red`` of ``x``; ``groups`` = (dim, per-group size) for group norm."""
    dt = out.dtype
    if groups is None:
        shape = list(x.shape)
        kept = [d for d in range(x.rank) if d not in red]
    else:
        gdim, per = groups
        shape = list(x.shape[:gdim]) + [x.shape[gdim] // per, per] + list(x.shape[gdim + 1:])
        red = [d + 1 for d in red if d >= gdim] + ([gdim + 1] if gdim in red else [])
        red = sorted(set(red) | {gdim + 1})
        kept = [d for d in range(len(shape)) if d not in red]
    n = math.prod(shape[d] for d in red)
    stat_shape = [shape[d] for d in kept]

    def xitems(idx: list[str]) -> list[str]:
        if groups is None:
            return idx
        gdim, per = groups
        return idx[:gdim] + [f"{idx[gdim]}*{per}+{idx[gdim + 1]}"] + idx[gdim + 2:]

    def loops() -> Loops:
        return Loops(shape, kept[0] if groups is None and b_at == 0 else b_at)

    s1, mean, s2, var = (cx.temp(stat_shape, dt) for _ in range(4))
    lp = loops()
    k = [lp.idx[d] for d in kept]
    a = x.ref(xitems(lp.idx))
    cx.emit(lp.nest(_stmt(s1, k, add(s1.ref(k), a))))
    sl = Loops(stat_shape)
    cx.emit(sl.nest(_stmt(mean, sl.idx, div(s1.ref(sl.idx), n))))
    lp = loops()
    k = [lp.idx[d] for d in kept]
    a = x.ref(xitems(lp.idx))
    cx.emit(lp.nest(_stmt(s2, k, add(s2.ref(k), binop("**", paren(sub(a, mean.ref(k))), 2)))))
    sl = Loops(stat_shape)
    cx.emit(sl.nest(_stmt(var, sl.idx, div(s2.ref(sl.idx), n))))
    return finish_norm(cx, x, shape, xitems, kept, mean, var, eps, out, affine, b_at)


def finish_norm(cx: Lowerer, x: Value, shape: list[int], xitems: Callable[[list[str]], list[str]],
                kept: list[int], mean: Value, var: Value, eps: float, out: Value,
                affine: Callable[[list[str]], tuple[Ex, Ex]] | None, b_at: int = 0) -> Value:
    lp = Loops(shape, b_at)
    k = [lp.idx[d] for d in kept]
    xi = xitems(lp.idx)
    normed = div(paren(sub(x.ref(xi), mean.ref(k))), call("sqrt", add(var.ref(k), lit(eps))))
    if affine is None:
        cx.emit(lp.nest(_stmt(out, xi, normed)))
        return out
    tmp = Value(cx.names.fresh(), x.shape, out.dtype)
    cx.emit(lp.nest(_stmt(tmp, xi, normed)))
    lp = Loops(shape, b_at)
    xi = xitems(lp.idx)
    wt, bs = affine(lp.idx)
    rhs = add(mul(wt, tmp.ref(xi)), bs) if bs is not None else mul(wt, tmp.ref(xi))
    cx.emit(lp.nest(_stmt(out, xi, rhs)))
    return out


def layer_norm(cx: Lowerer, x: Value, nshape: Any, w: Value | None, b: Value | None,
               eps: float) -> Value:
    nshape = _tuple(nshape, 1) if isinstance(nshape, int) else tuple(nshape)
    k = len(nshape)
    red = list(range(x.rank - k, x.rank))
    aff = None
    if w is not None:
        def aff(idx: list[str]) -> tuple[Ex, Ex]:
            tail = idx[-k:]
            return w.ref(tail), (b.ref(tail) if b is not None else None)  # type: ignore
    return normalize(cx, x, red, eps, cx.out(), aff)


def channel_affine(w: Value | None, b: Value | None, dim: int = 1
                   ) -> Callable[[list[str]], tuple[Ex, Ex]] | None:
    if w is None:
        return None
    return lambda idx: (w.ref([idx[dim]]), b.ref([idx[dim]]) if b is not None else None)


def batch_norm(cx: Lowerer, x: Value, mean: Value | None, var: Value | None, w: Value | None,
               b: Value | None, training: bool, eps: float) -> Value:
    out = cx.out()
    last = x.rank - 1
    if training or mean is None or var is None:
        red = [d for d in range(x.rank) if d != 1]
        shape = list(x.shape)
        n = math.prod(shape[d] for d in red)
        s1, m, s2, v = (cx.temp([x.shape[1]], out.dtype) for _ in range(4))
        lp = Loops(shape, 1)
        a = x.ref(lp.idx)
        cx.emit(lp.nest(_stmt(s1, ["tx"], add(s1.ref(["tx"]), a))))
        cx.emit(Loops([x.shape[1]]).nest(_stmt(m, ["tx"], div(s1.ref(["tx"]), n))))
        lp = Loops(shape, 1)
        a = x.ref(lp.idx)
        cx.emit(lp.nest(_stmt(s2, ["tx"], add(s2.ref(["tx"]), binop(
            "**", paren(sub(a, m.ref(["tx"]))), 2)))))
        cx.emit(Loops([x.shape[1]]).nest(_stmt(v, ["tx"], div(s2.ref(["tx"]), n))))
        mean, var = m, v
    return finish_norm(cx, x, list(x.shape), lambda i: i, [1], mean, var, eps, out,
                       channel_affine(w, b), last)


def group_norm(cx: Lowerer, x: Value, groups: int, w: Value | None, b: Value | None,
               eps: float) -> Value:
    per = x.shape[1] // groups
    red = list(range(1, x.rank))
    aff = None
    if w is not None:
        def aff(idx: list[str]) -> tuple[Ex, Ex]:
            ch = f"{idx[1]}*{per}+{idx[2]}"
            return w.ref([ch]), (b.ref([ch]) if b is not None else None)  # type: ignore
    return normalize(cx, x, red, eps, cx.out(), aff, groups=(1, per))


def instance_norm(cx: Lowerer, x: Value, w: Value | None, b: Value | None, eps: float) -> Value:
    return normalize(cx, x, list(range(2, x.rank)), eps, cx.out(), channel_affine(w, b))


# -- data movement -------------------------------------------------------------------------
def reshape(cx: Lowerer, x: Value, out: Value | None = None) -> Value:
    """A copy with index arithmetic: per group of dimensions with equal products, loops over
    the finer side and one combined item (``a*32+c``) on the coarser side."""
    out = out or cx.out()
    ins, outs = list(x.shape), list(out.shape)
    if math.prod(ins) != math.prod(outs):
        raise cx.unsupported("a size-changing reshape")
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(ins) or j < len(outs):
        gi, gj, pi, pj = [], [], 1, 1
        while True:
            if i < len(ins) and (pi < pj or (pi == pj and not gi)):
                gi.append(i); pi *= ins[i]; i += 1  # noqa: E702
            elif j < len(outs) and (pj < pi or (pi == pj and not gj)):
                gj.append(j); pj *= outs[j]; j += 1  # noqa: E702
            else:
                break
            if pi == pj and gi and gj:
                break
        groups.append((gi, gj))
    loop_dims: list[int] = []
    for gi, gj in groups:
        if len(gj) > len(gi) or (gj and len(gi) != 1 and len(gj) >= len(gi)):
            loop_dims += [outs[d] for d in gj]
        else:
            loop_dims += [ins[d] for d in gi]
    lp = Loops(loop_dims)
    pos = 0
    in_items: list[str] = []
    out_items: list[str] = []
    for gi, gj in groups:
        fine_out = len(gj) > len(gi) or (gj and len(gi) != 1 and len(gj) >= len(gi))
        dims = gj if fine_out else gi
        shape = outs if fine_out else ins
        idx = lp.idx[pos:pos + len(dims)]
        pos += len(dims)
        strides = [math.prod(shape[e] for e in dims[k + 1:]) for k in range(len(dims))]
        combined = idx_sum(list(zip(idx, strides)))
        other, oshape = (gi, ins) if fine_out else (gj, outs)
        if len(other) == 1:
            other_items = [combined if len(idx) > 1 else (idx[0] if idx else "0")]
        else:
            other_items = []
            for k, d in enumerate(other):
                st = math.prod(oshape[e] for e in other[k + 1:])
                item = f"({combined})//{st}" if st > 1 else f"({combined})"
                if k > 0:
                    item = f"{item}%{oshape[d]}"
                other_items.append(item if len(other) > 0 else "0")
        if fine_out:
            out_items += idx
            in_items += other_items
        else:
            in_items += idx
            out_items += other_items
    cx.emit(lp.nest(_stmt(out, out_items, x.ref(in_items))))
    return out


def permute(cx: Lowerer, x: Value, perm: list[int]) -> Value:
    """Loops over the input's shape, the output's items permuted (``D_{a,tx}=A_{tx,a}``)."""
    out = cx.out()
    perm = [norm_dim(p, x.rank) for p in perm]
    lp = Loops(x.shape)
    cx.emit(lp.nest(_stmt(out, [lp.idx[p] for p in perm], x.ref(lp.idx))))
    return out


def flip(cx: Lowerer, x: Value, dims: Any) -> Value:
    """torch.flip: one copy nest reading index ``n-1-i`` on each flipped dimension
    (``C_{tx,a}=A_{tx,5-a}``); a reverse cumulative sum is flip, cumsum, flip."""
    if isinstance(dims, int):
        dims = [dims]
    flipped = set(norm_dims(list(dims), x.rank))
    out = cx.out()
    lp = Loops(x.shape)
    items = [f"{x.shape[d] - 1}-{i}" if d in flipped and x.shape[d] > 1 else i
             for d, i in enumerate(lp.idx)]
    cx.emit(lp.nest(_stmt(out, lp.idx, x.ref(items))))
    return out


def transpose_h(cx: Lowerer, x: Value, d0: int = 0, d1: int = 1) -> Value:
    perm = list(range(x.rank))
    if x.rank < 2:
        return x
    d0, d1 = norm_dim(d0, x.rank), norm_dim(d1, x.rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute(cx, x, perm)


def cat(cx: Lowerer, tensors: list[Value], dim: int = 0, stack: bool = False) -> Value:
    out = cx.out()
    d = norm_dim(dim, out.rank)
    offset = 0
    for t in tensors:
        lp = Loops(t.shape)
        items = list(lp.idx)
        if stack:
            items.insert(d, str(offset))
            offset += 1
        else:
            items[d] = idx_sum([(items[d], 1)], offset)
            offset += t.shape[d]
        cx.emit(lp.nest(_stmt(out, items, t.ref(lp.idx))))
    return out


def split_h(cx: Lowerer, x: Value, size: Any, dim: int = 0, chunks: bool = False) -> Pieces:
    d = norm_dim(dim, x.rank)
    n = x.shape[d]
    if chunks:
        each = -(-n // int(size))
        sizes = [min(each, n - k) for k in range(0, n, each)]
    elif isinstance(size, int):
        sizes = [min(size, n - k) for k in range(0, n, size)]
    else:
        sizes = list(size)
    pieces, off = [], 0
    for s in sizes:
        pieces.append(Slice(x, d, off, s))
        off += s
    return Pieces(pieces)


def getitem(cx: Lowerer, obj: Any, key: Any) -> Any:
    if isinstance(obj, Pieces):
        piece = obj.items[key]
        if piece is None:
            raise cx.unsupported("the indices of max/min")
        out = cx.out()
        if isinstance(piece, Slice):
            lp = Loops(out.shape)
            items = list(lp.idx)
            items[piece.dim] = idx_sum([(items[piece.dim], 1)], piece.offset)
            cx.emit(lp.nest(_stmt(out, lp.idx, piece.source.ref(items))))
            return out
        return copy_to(cx, out, piece)
    if not isinstance(obj, Value):
        return obj[key]
    return index_tensor(cx, obj, key)


def index_tensor(cx: Lowerer, x: Value, key: Any) -> Value:
    """Basic indexing (ints, slices, None, Ellipsis) as a copy."""
    out = cx.out()
    key = list(key) if isinstance(key, tuple) else [key]
    if any(isinstance(k, Value) for k in key):
        raise cx.unsupported("tensor indices")
    nexpl = sum(1 for k in key if k is not None and k is not Ellipsis)
    if Ellipsis in key:
        e = key.index(Ellipsis)
        key = key[:e] + [slice(None)] * (x.rank - nexpl) + key[e + 1:]
    key += [slice(None)] * (x.rank - sum(1 for k in key if k is not None))
    lp = Loops(out.shape)
    items: list[str] = []
    o = 0
    dim = 0
    for k in key:
        if k is None:
            o += 1
            continue
        size = x.shape[dim]
        if isinstance(k, int):
            items.append(str(k + size if k < 0 else k))
        else:
            start, _, step = k.indices(size)
            items.append(idx_sum([(lp.idx[o], step)], start))
            o += 1
        dim += 1
    cx.emit(lp.nest(_stmt(out, lp.idx, x.ref(items))))
    return out


def expand_h(cx: Lowerer, x: Value, *sizes: Any) -> Value:
    return copy_to(cx, cx.out(), x)


def fill_like(value: float) -> Handler:
    """zeros_like/ones_like/full_like: ``C=0`` over the shape (the corpus's ``E=0``)."""
    def h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
        v = args[0] if args else kw.get("fill_value", value)
        out = cx.out()
        lp = Loops(out.shape)
        cx.emit(lp.nest(_stmt(out, lp.idx, lit(v))))
        return out
    return h


def diag_h(cx: Lowerer, x: Value, diagonal: int = 0) -> Value:
    """diag of a vector: ``D_{tx,a}=if_then_else(a==tx,A_{a},0)``; of a matrix: a copy."""
    out = cx.out()
    if diagonal != 0:
        raise cx.unsupported("diagonal != 0")
    lp = Loops(out.shape)
    if x.rank == 1:
        i, j = lp.idx
        rhs = call("if_then_else", Ex(f"{j}=={i}"), x.ref([j]), 0)
    else:
        rhs = x.ref([lp.idx[0], lp.idx[0]])
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    return out


def pad_h(cx: Lowerer, x: Value, pad: Any, mode: str = "constant", value: Any = None) -> Value:
    """F.pad, constant mode: ``if_then_else(1<=c<33,A_{…,c-1},value)`` over the result."""
    if mode != "constant" or any(int(p) < 0 for p in pad):
        raise cx.unsupported(f"mode='{mode}' or negative padding")
    out = cx.out()
    before = [0] * x.rank
    for k in range(len(pad) // 2):
        before[x.rank - 1 - k] = int(pad[2 * k])
    lp = Loops(out.shape)
    conds, items = [], []
    for i, b, s in zip(lp.idx, before, x.shape):
        items.append(idx_sum([(i, 1)], -b))
        if b or out.shape[len(items) - 1] != s:
            conds.append(f"{b}<={i}<{s + b}")
    fill = lit(0 if value is None else value)
    rhs = call("if_then_else", Ex("&".join(conds)), x.ref(items), fill) if conds else x.ref(items)
    cx.emit(lp.nest(_stmt(out, lp.idx, rhs)))
    return out


def argmax_h(kind: str) -> Handler:
    """argmax/argmin along a dim: the extreme value, then the least index reaching it,
    ``C=min(C,if_then_else(A==D,a,N))`` with the index as a value (SPEC §5.1)."""
    def h(cx: Lowerer, x: Value, dim: Any = None, keepdim: bool = False) -> Value:
        if dim is None:
            raise cx.unsupported("no dim")
        out = cx.out()
        d = norm_dim(int(dim), x.rank)
        best, _ = reduce_into(cx, x, [d], keepdim, kind)
        kept = [k for k in range(x.rank) if k != d]
        lp = Loops(x.shape, kept[0] if kept else 0)
        items = [("0" if keepdim else None) if k == d else lp.idx[k] for k in range(x.rank)]
        items = [i for i in items if i is not None]
        hit = call("if_then_else", binop("==", x.ref(lp.idx), best.ref(items)), Ex(lp.idx[d]),
                   x.shape[d])
        cx.emit(lp.nest(_stmt(out, items, call("min", out.ref(items), hit))))
        return out
    return h


def select_h(cx: Lowerer, x: Value, dim: int, index: int) -> Value:
    d = norm_dim(dim, x.rank)
    key: list[Any] = [slice(None)] * x.rank
    key[d] = index
    return index_tensor(cx, x, tuple(key))


def alias(cx: Lowerer, x: Any, *args: Any, **kw: Any) -> Any:
    return x


def to_h(cx: Lowerer, x: Value, *args: Any, **kw: Any) -> Value:
    out = cx.out()
    if out.dtype == x.dtype:
        return x
    return copy_to(cx, out, x)


# -- losses --------------------------------------------------------------------------------
def _loss(cx: Lowerer, term: Callable[[Ex, Ex], Ex], a: Value, b: Value, reduction: str) -> Value:
    out = cx.out()
    if reduction == "none":
        return elementwise(cx, term, a, b, out=out)
    n = math.prod(a.shape)
    acc = cx.temp((), out.dtype)
    lp = Loops(a.shape)
    cx.emit(lp.nest(_stmt(acc, [], add(acc.ref(), term(a.ref(lp.idx), b.bcast(lp.idx, a.shape))))))
    if reduction == "sum":
        return copy_to(cx, out, acc)
    return elementwise(cx, lambda s: div(s, n), acc, out=out)


def _red(kw: dict[str, Any], args: tuple[Any, ...], pos: int = 0) -> str:
    return str(kw.get("reduction", args[pos] if len(args) > pos else "mean"))


def mse_h(cx: Lowerer, a: Value, b: Value, *args: Any, **kw: Any) -> Value:
    return _loss(cx, lambda x, y: binop("**", paren(sub(x, y)), 2), a, b, _red(kw, args, 2))


def l1_h(cx: Lowerer, a: Value, b: Value, *args: Any, **kw: Any) -> Value:
    return _loss(cx, lambda x, y: call("abs", sub(x, y)), a, b, _red(kw, args, 2))


def huber_h(cx: Lowerer, a: Value, b: Value, *args: Any, delta: float = 1.0,
            beta: float | None = None,
            smooth: bool = False, **kw: Any) -> Value:
    red = _red(kw, args, 2)
    if smooth:
        d = 1.0 if beta is None else float(beta)

        def term(x: Ex, y: Ex) -> Ex:
            e = call("abs", sub(x, y))
            return call("if_then_else", binop("<", e, d), div(mul(0.5, binop(
                "**", paren(sub(x, y)), 2)), d), sub(e, 0.5 * d))
    else:
        d = float(delta)

        def term(x: Ex, y: Ex) -> Ex:
            e = call("abs", sub(x, y))
            return call("if_then_else", binop("<", e, d), mul(0.5, binop(
                "**", paren(sub(x, y)), 2)), mul(d, paren(sub(e, 0.5 * d))))
    return _loss(cx, term, a, b, red)


def _scalar_or_rows(cx: Lowerer, out: Value, n: int, row: Callable[[str], Ex],
                    reduction: str) -> Value:
    """``reduction`` over ``n`` rows of ``row(tx)``: mean/sum into a 0-d temporary by a
    cross-thread reduction, then the output; ``none``: one element per row."""
    if reduction == "none":
        lp = Loops([n])
        cx.emit(lp.nest(_stmt(out, lp.idx, row(lp.idx[0]))))
        return out
    acc = cx.temp((), out.dtype)
    lp = Loops([n])
    cx.emit(lp.nest(_stmt(acc, [], add(acc.ref(), row(lp.idx[0])))))
    post = (lambda a: div(a, n)) if reduction == "mean" else (lambda a: a)
    return elementwise(cx, post, acc, out=out)


def nll(cx: Lowerer, logp: Value, target: Value, reduction: str, out: Value,
        ignore_index: int = -100) -> Value:
    if logp.rank != 2 or target.rank != 1:
        raise cx.unsupported("other than (N, C) scores and (N,) class targets")
    n = logp.shape[0]
    return _scalar_or_rows(cx, out, n, lambda i: neg(logp.ref([i, target.ref([i]).text])),
                           reduction)


def cross_entropy_h(cx: Lowerer, x: Value, target: Value, weight: Any = None,
                    size_average: Any = None,
                    ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                    label_smoothing: float = 0.0) -> Value:
    if weight is not None or label_smoothing:
        raise cx.unsupported("weight or label_smoothing")
    out = cx.out()
    logp = cx.temp(x.shape, out.dtype)
    softmax(cx, x, 1, True, out=logp)
    return nll(cx, logp, target, reduction, out)


def nll_h(cx: Lowerer, x: Value, target: Value, weight: Any = None, size_average: Any = None,
          ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Value:
    if weight is not None:
        raise cx.unsupported("weight")
    return nll(cx, x, target, reduction, cx.out())


def cosine_similarity_h(cx: Lowerer, a: Value, b: Value, dim: int = 1, eps: float = 1e-8) -> Value:
    """G=G+A*C; H=H+A**2; I=I+C**2; out=G/max(sqrt(H)*sqrt(I),eps) (the corpus's idiom)."""
    out = cx.out()
    d = norm_dim(dim, a.rank)
    dot, na, nb = (cx.temp(out.shape, out.dtype) for _ in range(3))
    reduce_into(cx, a, [d], False, "sum", acc=dot, term=lambda i: mul(a.ref(i), b.ref(i)))
    reduce_into(cx, a, [d], False, "sq", acc=na)
    reduce_into(cx, b, [d], False, "sq", acc=nb)
    return elementwise(cx, lambda g, h, k: div(g, call("max", mul(call("sqrt", h), call("sqrt", k)),
                                                        lit(float(eps)))), dot, na, nb, out=out)


def triplet_h(cx: Lowerer, a: Value, pos: Value, negv: Value, margin: float = 1.0, p: float = 2,
              eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
              reduction: str = "mean") -> Value:
    if p != 2 or swap or a.rank != 2:
        raise cx.unsupported("p != 2, swap or other than (N, D) inputs")
    out = cx.out()
    dp, dn = cx.temp([a.shape[0]], out.dtype), cx.temp([a.shape[0]], out.dtype)
    for acc, other in ((dp, pos), (dn, negv)):
        reduce_into(cx, a, [1], False, "sq", acc=acc,
                    term=lambda i, o=other: add(sub(a.ref(i), o.ref(i)), lit(float(eps))))
    return _scalar_or_rows(cx, out, a.shape[0], lambda i: call("max", add(sub(
        binop("**", dp.ref([i]), paren(div(1, 2))), binop("**", dn.ref([i]), paren(div(1, 2)))),
        lit(float(margin))), 0), reduction)


def kl_div_h(cx: Lowerer, x: Value, target: Value, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", log_target: bool = False) -> Value:
    """target*(log(target)-x), summed ('sum'), averaged ('mean') or per batch row
    ('batchmean')."""
    if log_target:
        raise cx.unsupported("log_target=True")
    out = cx.out()
    term = lambda xx, t: mul(t, paren(sub(call("log", t), xx)))  # noqa: E731
    if reduction == "none":
        return elementwise(cx, term, x, target, out=out)
    n = {"mean": math.prod(x.shape), "batchmean": x.shape[0], "sum": 1}[reduction]
    acc = cx.temp((), out.dtype)
    lp = Loops(x.shape)
    read = term(x.ref(lp.idx), target.bcast(lp.idx, x.shape))
    cx.emit(lp.nest(_stmt(acc, [], add(acc.ref(), read))))
    return elementwise(cx, (lambda s: div(s, n)) if n != 1 else (lambda s: s), acc, out=out)


# -- dispatch ------------------------------------------------------------------------------
def _m(fn: Callable[..., Any]) -> Handler:
    """A call_module handler: (cx, node, module, x, …)."""
    return fn


def _param(cx: Lowerer, node: torch.fx.Node, attr: str) -> Value | None:
    return cx.module_param(node, attr)


def _conv_module(cx: Lowerer, node: torch.fx.Node, mod: Any, x: Value) -> Value:
    if mod.padding_mode != "zeros":
        raise cx.unsupported(f"padding_mode='{mod.padding_mode}'")
    return conv(cx, x, _param(cx, node, "weight"), _param(cx, node, "bias"), mod.stride,
                mod.padding, mod.dilation, mod.groups, len(mod.kernel_size))


def _bn_module(cx: Lowerer, node: torch.fx.Node, mod: Any, x: Value) -> Value:
    training = mod.training or not mod.track_running_stats
    mean = None if training else _param(cx, node, "running_mean")
    var = None if training else _param(cx, node, "running_var")
    return batch_norm(cx, x, mean, var, _param(cx, node, "weight"), _param(cx, node, "bias"),
                      training, mod.eps)


def _in_module(cx: Lowerer, node: torch.fx.Node, mod: Any, x: Value) -> Value:
    if mod.track_running_stats and not mod.training:
        raise cx.unsupported("track_running_stats=True")
    return instance_norm(cx, x, _param(cx, node, "weight"), _param(cx, node, "bias"), mod.eps)


def dropout_h(cx: Lowerer, x: Value, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Value:
    if training and p > 0:
        raise cx.unsupported("training=True (random)")
    return x


def _dropout_module(cx: Lowerer, node: torch.fx.Node, mod: Any, x: Value) -> Value:
    if mod.training and mod.p > 0:
        raise cx.unsupported("training mode (random)")
    return x


MODULES: dict[type, Handler] = {
    nn.Linear: lambda cx, n, m, x: linear(cx, x, _param(cx, n, "weight"), _param(cx, n, "bias")),
    nn.Conv1d: _conv_module, nn.Conv2d: _conv_module, nn.Conv3d: _conv_module,
    nn.ReLU: lambda cx, n, m, x: elementwise(cx, lambda a: call("max", a, 0), x),
    nn.ReLU6: lambda cx, n, m, x: clamp(cx, x, 0.0, 6.0),
    nn.LeakyReLU: lambda cx, n, m, x: leaky(cx, x, m.negative_slope),
    nn.ELU: lambda cx, n, m, x: elu(cx, x, m.alpha),
    nn.SELU: lambda cx, n, m, x: selu(cx, x),
    nn.GELU: lambda cx, n, m, x: gelu(cx, x, getattr(m, "approximate", "none")),
    nn.Sigmoid: lambda cx, n, m, x: elementwise(cx, sigmoid_ex, x),
    nn.Tanh: lambda cx, n, m, x: tanh_nests(cx, x, cx.out()),
    nn.SiLU: lambda cx, n, m, x: elementwise(cx, silu_ex, x),
    nn.Mish: lambda cx, n, m, x: mish(cx, x),
    nn.Softplus: lambda cx, n, m, x: softplus(cx, x, m.beta),
    nn.Softsign: lambda cx, n, m, x: elementwise(cx, softsign_ex, x),
    nn.Hardtanh: lambda cx, n, m, x: clamp(cx, x, m.min_val, m.max_val),
    nn.Hardswish: lambda cx, n, m, x: elementwise(cx, hardswish_ex, x),
    nn.Hardsigmoid: lambda cx, n, m, x: elementwise(cx, hardsigmoid_ex, x),
    nn.Softmax: lambda cx, n, m, x: softmax(cx, x, norm_dim(m.dim, x.rank), False),
    nn.LogSoftmax: lambda cx, n, m, x: softmax(cx, x, norm_dim(m.dim, x.rank), True),
    nn.LayerNorm: lambda cx, n, m, x: layer_norm(cx, x, m.normalized_shape, _param(cx, n, "weight"),
                                                 _param(cx, n, "bias"), m.eps),
    nn.BatchNorm1d: _bn_module, nn.BatchNorm2d: _bn_module, nn.BatchNorm3d: _bn_module,
    nn.GroupNorm: lambda cx, n, m, x: group_norm(cx, x, m.num_groups, _param(cx, n, "weight"),
                                                 _param(cx, n, "bias"), m.eps),
    nn.InstanceNorm1d: _in_module, nn.InstanceNorm2d: _in_module, nn.InstanceNorm3d: _in_module,
    nn.MaxPool1d: lambda cx, n, m, x: pool(cx, x, "max", 1, m.kernel_size, m.stride, m.padding,
                                           m.dilation, m.ceil_mode,
                                           return_indices=m.return_indices),
    nn.MaxPool2d: lambda cx, n, m, x: pool(cx, x, "max", 2, m.kernel_size, m.stride, m.padding,
                                           m.dilation, m.ceil_mode,
                                           return_indices=m.return_indices),
    nn.MaxPool3d: lambda cx, n, m, x: pool(cx, x, "max", 3, m.kernel_size, m.stride, m.padding,
                                           m.dilation, m.ceil_mode,
                                           return_indices=m.return_indices),
    nn.AvgPool1d: lambda cx, n, m, x: pool(cx, x, "avg", 1, m.kernel_size, m.stride, m.padding, 1,
                                           m.ceil_mode, m.count_include_pad),
    nn.AvgPool2d: lambda cx, n, m, x: pool(cx, x, "avg", 2, m.kernel_size, m.stride, m.padding, 1,
                                           m.ceil_mode, m.count_include_pad, m.divisor_override),
    nn.AvgPool3d: lambda cx, n, m, x: pool(cx, x, "avg", 3, m.kernel_size, m.stride, m.padding, 1,
                                           m.ceil_mode, m.count_include_pad, m.divisor_override),
    nn.AdaptiveAvgPool1d: lambda cx, n, m, x: adaptive_pool(cx, x, "avg", 1, m.output_size),
    nn.AdaptiveAvgPool2d: lambda cx, n, m, x: adaptive_pool(cx, x, "avg", 2, m.output_size),
    nn.AdaptiveAvgPool3d: lambda cx, n, m, x: adaptive_pool(cx, x, "avg", 3, m.output_size),
    nn.AdaptiveMaxPool2d: lambda cx, n, m, x: adaptive_pool(cx, x, "max", 2, m.output_size),
    nn.Flatten: lambda cx, n, m, x: reshape(cx, x),
    nn.Identity: lambda cx, n, m, x: x,
    nn.Dropout: _dropout_module,
    nn.CrossEntropyLoss: lambda cx, n, m, a, b: cross_entropy_h(
        cx, a, b, ignore_index=m.ignore_index, reduction=m.reduction,
        label_smoothing=m.label_smoothing, weight=m.weight),
    nn.NLLLoss: lambda cx, n, m, a, b: nll_h(cx, a, b, weight=m.weight, reduction=m.reduction),
    nn.KLDivLoss: lambda cx, n, m, a, b: kl_div_h(cx, a, b, reduction=m.reduction,
                                                 log_target=m.log_target),
    nn.TripletMarginLoss: lambda cx, n, m, a, p, q: triplet_h(
        cx, a, p, q, m.margin, m.p, m.eps, m.swap, reduction=m.reduction),
    nn.CosineSimilarity: lambda cx, n, m, a, b: cosine_similarity_h(cx, a, b, m.dim, m.eps),
    nn.MSELoss: lambda cx, n, m, a, b: mse_h(cx, a, b, reduction=m.reduction),
    nn.L1Loss: lambda cx, n, m, a, b: l1_h(cx, a, b, reduction=m.reduction),
    nn.HuberLoss: lambda cx, n, m, a, b: huber_h(cx, a, b, reduction=m.reduction, delta=m.delta),
    nn.SmoothL1Loss: lambda cx, n, m, a, b: huber_h(cx, a, b, reduction=m.reduction, beta=m.beta,
                                                   smooth=True),
}


def leaky(cx: Lowerer, x: Value, slope: float = 0.01) -> Value:
    return elementwise(cx, lambda a: call("if_then_else", binop("<", a, 0),
                                          mul(float(slope), a), a), x)


def elu(cx: Lowerer, x: Value, alpha: float = 1.0) -> Value:
    return elementwise(cx, lambda a: call("if_then_else", binop("<", a, 0), mul(
        float(alpha), paren(sub(call("exp", a), 1))), a), x)


def selu(cx: Lowerer, x: Value) -> Value:
    return elementwise(cx, lambda a: mul(1.0507010221481323, paren(add(
        call("max", 0, a), call("min", 0, mul(1.6732631921768188, paren(sub(call("exp", a), 1)))))
    )), x)


def softplus(cx: Lowerer, x: Value, beta: float = 1.0, threshold: float = 20.0) -> Value:
    if beta != 1:
        return elementwise(cx, lambda a: div(call("log", add(1, call("exp", mul(float(beta), a)))),
                                             float(beta)), x)
    return elementwise(cx, lambda a: call("log", add(1, call("exp", a))), x)


def hardswish_ex(a: Ex) -> Ex:
    return div(mul(a, call("max", call("min", add(a, 3), 6), 0)), 6)


def hardsigmoid_ex(a: Ex) -> Ex:
    return div(call("max", call("min", add(a, 3), 6), 0), 6)


def _kw(kw: dict[str, Any], args: tuple[Any, ...], name: str, pos: int, default: Any) -> Any:
    return kw.get(name, args[pos] if len(args) > pos else default)


def _f_conv(nd: int) -> Handler:
    def h(cx: Lowerer, x: Value, w: Value, *a: Any, **k: Any) -> Value:
        return conv(cx, x, w, _kw(k, a, "bias", 0, None), _kw(k, a, "stride", 1, 1),
                    _kw(k, a, "padding", 2, 0), _kw(k, a, "dilation", 3, 1),
                    _kw(k, a, "groups", 4, 1), nd)
    return h


def _f_pool(kind: str, nd: int) -> Handler:
    def h(cx: Lowerer, x: Value, *a: Any, **k: Any) -> Value:
        names = ["kernel_size", "stride", "padding"]
        vals = [_kw(k, a, n, i, None) for i, n in enumerate(names)]
        if kind == "max":
            return pool(cx, x, kind, nd, vals[0], vals[1], vals[2] or 0, _kw(k, a, "dilation", 3, 1),
                        _kw(k, a, "ceil_mode", 4, False), return_indices=k.get("return_indices", False))
        return pool(cx, x, kind, nd, vals[0], vals[1], vals[2] or 0, 1,
                    _kw(k, a, "ceil_mode", 3, False), _kw(k, a, "count_include_pad", 4, True))
    return h


def _f_bn(cx: Lowerer, x: Value, mean: Any, var: Any, weight: Any = None, bias: Any = None,
          training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Value:
    return batch_norm(cx, x, mean, var, weight, bias, training, eps)


def _shape_args(args: tuple[Any, ...]) -> Any:
    return args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args


FUNCTIONS: dict[Any, Handler] = {
    torch.relu: _unary(lambda a: call("max", a, 0)), F.relu: _unary(lambda a: call("max", a, 0)),
    F.relu6: lambda cx, x, *a, **k: clamp(cx, x, 0.0, 6.0),
    torch.sigmoid: _unary(sigmoid_ex), F.sigmoid: _unary(sigmoid_ex),
    torch.tanh: lambda cx, x: tanh_nests(cx, x, cx.out()),
    F.tanh: lambda cx, x: tanh_nests(cx, x, cx.out()),
    F.gelu: lambda cx, x, approximate="none": gelu(cx, x, approximate),
    F.silu: _unary(lambda a: div(a, paren(add(1, call("exp", neg(a)))))),
    F.mish: lambda cx, x, *a, **k: mish(cx, x),
    F.leaky_relu: lambda cx, x, negative_slope=0.01, *a, **k: leaky(cx, x, negative_slope),
    F.elu: lambda cx, x, alpha=1.0, *a, **k: elu(cx, x, alpha),
    F.selu: lambda cx, x, *a, **k: selu(cx, x), torch.selu: lambda cx, x, *a, **k: selu(cx, x),
    F.softplus: lambda cx, x, beta=1, threshold=20: softplus(cx, x, beta, threshold),
    F.softsign: _unary(lambda a: div(a, paren(add(1, call("abs", a))))),
    F.hardtanh: lambda cx, x, min_val=-1.0, max_val=1.0, *a, **k: clamp(cx, x, min_val, max_val),
    F.hardswish: _unary(hardswish_ex), F.hardsigmoid: _unary(hardsigmoid_ex),
    torch.exp: _unary(lambda a: call("exp", a)), torch.log: _unary(lambda a: call("log", a)),
    torch.sqrt: _unary(lambda a: call("sqrt", a)), torch.abs: _unary(lambda a: call("abs", a)),
    torch.rsqrt: _unary(lambda a: div(1, call("sqrt", a))),
    torch.reciprocal: _unary(lambda a: div(1, a)), torch.neg: _unary(neg),
    torch.square: _unary(lambda a: binop("**", a, 2)), torch.erf: _unary(lambda a: call("erf", a)),
    torch.log1p: _unary(lambda a: call("log", add(1, a))),
    torch.expm1: _unary(lambda a: sub(call("exp", a), 1)),
    operator.neg: _unary(neg), operator.abs: _unary(lambda a: call("abs", a)),
    torch.clamp: lambda cx, x, min=None, max=None: clamp(cx, x, min, max),
    torch.clip: lambda cx, x, min=None, max=None: clamp(cx, x, min, max),
    operator.add: _binary("+"), torch.add: _binary("+"), operator.sub: _binary("-"),
    torch.sub: _binary("-"), operator.mul: _binary("*"), torch.mul: _binary("*"),
    operator.truediv: _binary("/"), torch.div: div_handler, torch.true_divide: _binary("/"),
    torch.rsub: _binary("-", swap=True), operator.pow: pow_handler, torch.pow: pow_handler,
    torch.maximum: lambda cx, a, b: elementwise(cx, lambda x, y: call("max", x, y), a, b),
    torch.minimum: lambda cx, a, b: elementwise(cx, lambda x, y: call("min", x, y), a, b),
    operator.eq: _compare("=="), torch.eq: _compare("=="), operator.ne: _compare("!="),
    torch.ne: _compare("!="), operator.lt: _compare("<"), torch.lt: _compare("<"),
    operator.le: _compare("<="), torch.le: _compare("<="), operator.gt: _compare(">"),
    torch.gt: _compare(">"), operator.ge: _compare(">="), torch.ge: _compare(">="),
    torch.where: where, torch.masked_fill: masked_fill,
    torch.tril: lambda cx, x, diagonal=0: tri(cx, x, diagonal, True),
    torch.triu: lambda cx, x, diagonal=0: tri(cx, x, diagonal, False),
    torch.sum: sum_h, torch.mean: mean_h, torch.prod: prod_h, torch.amax: amax_h("max"),
    torch.amin: amax_h("min"), torch.max: maxmin_h("max"), torch.min: maxmin_h("min"),
    torch.logsumexp: logsumexp_h, torch.var: var_h(False), torch.std: var_h(True),
    torch.norm: norm_h, torch.softmax: softmax_h(False), F.softmax: softmax_h(False),
    torch.log_softmax: softmax_h(True), F.log_softmax: softmax_h(True),
    torch.cumsum: cumsum_h(False), torch.cumprod: cumsum_h(True),
    torch.matmul: lambda cx, a, b: matmul(cx, a, b), operator.matmul: lambda cx, a, b: matmul(cx, a, b),
    torch.bmm: lambda cx, a, b: matmul(cx, a, b), torch.mm: lambda cx, a, b: matmul(cx, a, b),
    F.linear: lambda cx, x, w, bias=None: linear(cx, x, w, bias), torch.addmm: addmm_h,
    torch.einsum: einsum_h,
    F.conv1d: _f_conv(1), F.conv2d: _f_conv(2), F.conv3d: _f_conv(3),
    F.max_pool1d: _f_pool("max", 1), F.max_pool2d: _f_pool("max", 2), F.max_pool3d: _f_pool("max", 3),
    F.avg_pool1d: _f_pool("avg", 1), F.avg_pool2d: _f_pool("avg", 2), F.avg_pool3d: _f_pool("avg", 3),
    F.adaptive_avg_pool2d: lambda cx, x, output_size: adaptive_pool(cx, x, "avg", 2, output_size),
    F.layer_norm: lambda cx, x, normalized_shape, weight=None, bias=None, eps=1e-5:
        layer_norm(cx, x, normalized_shape, weight, bias, eps),
    F.group_norm: lambda cx, x, num_groups, weight=None, bias=None, eps=1e-5:
        group_norm(cx, x, num_groups, weight, bias, eps),
    F.batch_norm: _f_bn,
    F.mse_loss: mse_h, F.l1_loss: l1_h, F.cross_entropy: cross_entropy_h, F.nll_loss: nll_h,
    F.cosine_similarity: cosine_similarity_h, torch.cosine_similarity: cosine_similarity_h,
    F.triplet_margin_loss: triplet_h, F.kl_div: kl_div_h,
    F.huber_loss: lambda cx, a, b, reduction="mean", delta=1.0: huber_h(cx, a, b, reduction=reduction,
                                                                       delta=delta),
    F.smooth_l1_loss: lambda cx, a, b, size_average=None, reduce=None, reduction="mean", beta=1.0:
        huber_h(cx, a, b, reduction=reduction, beta=beta, smooth=True),
    F.dropout: dropout_h,
    torch.flatten: lambda cx, x, *a, **k: reshape(cx, x), torch.reshape: lambda cx, x, *a: reshape(cx, x),
    torch.squeeze: lambda cx, x, *a: reshape(cx, x), torch.unsqueeze: lambda cx, x, *a: reshape(cx, x),
    torch.transpose: transpose_h, torch.t: lambda cx, x: transpose_h(cx, x, 0, 1),
    torch.permute: lambda cx, x, dims: permute(cx, x, list(dims)),
    torch.flip: lambda cx, x, dims: flip(cx, x, dims),
    torch.fliplr: lambda cx, x: flip(cx, x, [1]), torch.flipud: lambda cx, x: flip(cx, x, [0]),
    torch.cat: lambda cx, tensors, dim=0: cat(cx, list(tensors), dim),
    torch.concat: lambda cx, tensors, dim=0: cat(cx, list(tensors), dim),
    torch.stack: lambda cx, tensors, dim=0: cat(cx, list(tensors), dim, stack=True),
    torch.split: lambda cx, x, size, dim=0: split_h(cx, x, size, dim),
    torch.chunk: lambda cx, x, chunks, dim=0: split_h(cx, x, chunks, dim, chunks=True),
    operator.getitem: getitem, torch.clone: alias, torch.detach: alias,
    torch.zeros_like: fill_like(0), torch.ones_like: fill_like(1), torch.full_like: fill_like(0),
    torch.select: select_h, F.pad: pad_h, torch.argmax: argmax_h("max"),
    torch.argmin: argmax_h("min"), torch.diag: diag_h, torch.multiply: _binary("*"),
    torch.subtract: _binary("-"), torch.divide: div_handler,
}

METHODS: dict[str, Handler] = {
    "relu": FUNCTIONS[torch.relu], "sigmoid": FUNCTIONS[torch.sigmoid], "tanh": FUNCTIONS[torch.tanh],
    "exp": FUNCTIONS[torch.exp], "log": FUNCTIONS[torch.log], "sqrt": FUNCTIONS[torch.sqrt],
    "abs": FUNCTIONS[torch.abs], "neg": FUNCTIONS[torch.neg], "rsqrt": FUNCTIONS[torch.rsqrt],
    "reciprocal": FUNCTIONS[torch.reciprocal], "square": FUNCTIONS[torch.square],
    "erf": FUNCTIONS[torch.erf], "clamp": FUNCTIONS[torch.clamp], "clip": FUNCTIONS[torch.clamp],
    "add": FUNCTIONS[torch.add], "sub": FUNCTIONS[torch.sub], "mul": FUNCTIONS[torch.mul],
    "div": div_handler, "pow": pow_handler, "masked_fill": masked_fill,
    "sum": sum_h, "mean": mean_h, "prod": prod_h, "amax": amax_h("max"), "amin": amax_h("min"),
    "max": maxmin_h("max"), "min": maxmin_h("min"), "logsumexp": logsumexp_h, "var": var_h(False),
    "std": var_h(True), "norm": norm_h, "softmax": softmax_h(False), "log_softmax": softmax_h(True),
    "cumsum": cumsum_h(False), "cumprod": cumsum_h(True),
    "matmul": FUNCTIONS[torch.matmul], "bmm": FUNCTIONS[torch.bmm], "mm": FUNCTIONS[torch.mm],
    "tril": FUNCTIONS[torch.tril], "triu": FUNCTIONS[torch.triu],
    "view": lambda cx, x, *a: reshape(cx, x), "reshape": lambda cx, x, *a: reshape(cx, x),
    "flatten": lambda cx, x, *a, **k: reshape(cx, x), "squeeze": lambda cx, x, *a: reshape(cx, x),
    "unsqueeze": lambda cx, x, *a: reshape(cx, x), "view_as": lambda cx, x, *a: reshape(cx, x),
    "reshape_as": lambda cx, x, *a: reshape(cx, x),
    "permute": lambda cx, x, *dims: permute(cx, x, list(_shape_args(dims))),
    "transpose": transpose_h, "t": lambda cx, x: transpose_h(cx, x, 0, 1),
    "flip": lambda cx, x, *dims, **kw: flip(cx, x, kw["dims"] if "dims" in kw
                                            else _shape_args(dims)),
    "fliplr": FUNCTIONS[torch.fliplr], "flipud": FUNCTIONS[torch.flipud],
    "split": lambda cx, x, size, dim=0: split_h(cx, x, size, dim),
    "chunk": lambda cx, x, chunks, dim=0: split_h(cx, x, chunks, dim, chunks=True),
    "expand": expand_h, "expand_as": expand_h, "repeat": None,
    "select": select_h, "argmax": argmax_h("max"), "argmin": argmax_h("min"), "contiguous": alias, "clone": alias, "detach": alias, "to": to_h, "float": to_h,
    "half": to_h, "type_as": to_h,
    "eq": FUNCTIONS[torch.eq], "ne": FUNCTIONS[torch.ne], "lt": FUNCTIONS[torch.lt],
    "le": FUNCTIONS[torch.le], "gt": FUNCTIONS[torch.gt], "ge": FUNCTIONS[torch.ge],
}
METHODS = {k: v for k, v in METHODS.items() if v is not None}


def lower_node(cx: Lowerer, node: torch.fx.Node, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
    """Lower one FX node; returns its value (a Value, a Python constant or Pieces)."""
    tensors = any(isinstance(a, (Value, Pieces)) for a in _flat(args) + _flat(kwargs.values()))
    if node.op == "call_module":
        mod = cx.gm.get_submodule(str(node.target))
        handler = MODULES.get(type(mod))
        if handler is None:
            raise cx.unsupported()
        return _call(cx, handler, (node, mod) + tuple(args), kwargs)
    if node.op == "call_method":
        name = str(node.target)
        if name in ("size", "dim") or (not tensors and name not in METHODS):
            obj = args[0]
            if isinstance(obj, Value):
                if name == "dim":
                    return obj.rank
                shape = obj.shape
                return shape if len(args) == 1 else shape[args[1]]
        handler = METHODS.get(name)
        if handler is None:
            raise cx.unsupported()
        return _call(cx, handler, tuple(args), kwargs)
    target = node.target
    if target is getattr and isinstance(args[0], Pieces) and args[1] in ("values", "indices"):
        return getitem(cx, args[0], 0 if args[1] == "values" else 1)
    if target is getattr and isinstance(args[0], Value):
        if args[1] == "shape":
            return args[0].shape
        if args[1] == "T" or args[1] == "mT":
            return transpose_h(cx, args[0], -2, -1) if args[1] == "mT" else \
                permute(cx, args[0], list(range(args[0].rank))[::-1])
        if args[1] == "ndim":
            return args[0].rank
        raise cx.unsupported(f"attribute '{args[1]}'")
    if not tensors and target in FOLDABLE:
        return target(*args, **kwargs)
    handler = FUNCTIONS.get(target)
    if handler is None:
        raise cx.unsupported()
    return _call(cx, handler, tuple(args), kwargs)


def _flat(items: Any) -> list[Any]:
    flat: list[Any] = []
    for a in items:
        if isinstance(a, (list, tuple)):
            flat += _flat(a)
        else:
            flat.append(a)
    return flat


def _call(cx: Lowerer, handler: Handler, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return handler(cx, *args, **kwargs)
    except TorchImportError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AssertionError, AttributeError) as exc:
        raise cx.unsupported(f"these arguments ({type(exc).__name__}: {exc})") from None
