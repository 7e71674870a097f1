"""LEIR text building: expressions with their precedence, tensor references, loop nests."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .names import index_name

# Precedence levels of SPEC §5.2 (higher binds tighter); ATOM for primaries.
OR, AND, CMP, ADD, MUL, UNARY, POW, ATOM = 1, 2, 3, 4, 5, 6, 7, 9

DTYPE_CODES = {
    "torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16",
    "torch.float64": "f64", "torch.int64": "i64", "torch.int32": "i32",
    "torch.int16": "i16", "torch.int8": "i8", "torch.uint8": "u8", "torch.bool": "bool",
}


def dtype_code(dtype: object) -> str:
    """The LEIR dtype code of a torch dtype (``torch.float32`` → ``f32``)."""
    code = DTYPE_CODES.get(str(dtype))
    if code is None:
        raise ValueError(f"unsupported dtype {dtype}")
    return code


@dataclass(frozen=True)
class Ex:
    """An expression's text and the precedence level of its top operator."""

    text: str
    prec: int = ATOM

    def __str__(self) -> str:
        return self.text


def lit(value: float | int | bool) -> Ex:
    """A numeric literal, spelt as Python's repr (``0.5``, ``1e-05``, ``-inf``)."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and math.isinf(value):
        return Ex("inf") if value > 0 else Ex("-inf", UNARY)
    if isinstance(value, float) and math.isnan(value):
        raise ValueError("NaN literal")
    text = repr(value)
    return Ex(text, UNARY if text.startswith("-") else ATOM)


def ex(value: Ex | float | int) -> Ex:
    return value if isinstance(value, Ex) else lit(value)


def paren(e: Ex) -> Ex:
    return Ex(f"({e.text})")


def _wrap(e: Ex, need: bool) -> str:
    return f"({e.text})" if need else e.text


def binop(op: str, a: Ex | float | int, b: Ex | float | int) -> Ex:
    """``a op b`` with the parentheses SPEC §10 requires, and no others."""
    a, b = ex(a), ex(b)
    if op == "**":
        return Ex(f"{_wrap(a, a.prec < ATOM)}**{_wrap(b, b.prec < UNARY)}", POW)
    level = {"+": ADD, "-": ADD, "*": MUL, "/": MUL, "//": MUL, "%": MUL,
             "&": AND, "|": OR}.get(op, CMP)
    return Ex(f"{_wrap(a, a.prec < level)}{op}{_wrap(b, b.prec <= level)}", level)


def add(a, b) -> Ex:
    return binop("+", a, b)


def sub(a, b) -> Ex:
    return binop("-", a, b)


def mul(a, b) -> Ex:
    return binop("*", a, b)


def div(a, b) -> Ex:
    return binop("/", a, b)


def neg(a: Ex) -> Ex:
    return Ex(f"-{_wrap(a, a.prec < UNARY)}", UNARY)


def call(fn: str, *args: Ex | float | int) -> Ex:
    return Ex(f"{fn}({','.join(ex(a).text for a in args)})")


def idx_sum(terms: list[tuple[str, int]], offset: int = 0) -> str:
    """An index item ``c*16+d`` from (index, stride) terms; stride 1 is not written."""
    parts = [name if stride == 1 else f"{name}*{stride}" for name, stride in terms]
    text = "+".join(parts) if parts else "0"
    if offset > 0:
        text = f"{text}+{offset}" if parts else str(offset)
    elif offset < 0:
        text = f"{text}-{-offset}" if parts else str(offset)
    return text


class Loops:
    """The headers of one nest over ``extents``: ``B`` on position ``b_at`` (index ``tx``),
    ``L`` elsewhere with fresh index names a, c, d, … in order; ``extra`` more loops may be
    appended for reduction indices."""

    def __init__(self, extents: list[int] | tuple[int, ...], b_at: int | None = 0) -> None:
        self.headers: list[str] = []
        self.idx: list[str] = []
        self._next = 0
        if not extents:
            self.headers.append("B^{1}_{tx=0}")
            return
        if b_at is None or b_at >= len(extents):
            b_at = 0
        for pos, extent in enumerate(extents):
            if pos == b_at:
                self.headers.append(f"B^{{{extent}}}_{{tx=0}}")
                self.idx.append("tx")
            else:
                self.idx.append(self.add(extent))

    def add(self, extent: int) -> str:
        """Append an ``L`` loop of ``extent`` iterations; returns its index name."""
        name = index_name(self._next)
        self._next += 1
        self.headers.append(f"L^{{{extent}}}_{{{name}=0}}")
        return name

    def nest(self, *statements: str) -> str:
        return "".join(self.headers) + "[" + "".join(f"{s};" for s in statements) + "];"
