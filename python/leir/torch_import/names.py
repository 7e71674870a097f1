"""Fresh tensor and index names in the orders the Step-TP translator uses (SPEC §2.3)."""

from __future__ import annotations

TENSOR_FIRST = "ACDEFGHIJKMNOQRSWXYZ"
TENSOR_REST = TENSOR_FIRST.lower()
INDEX_LETTERS = "acdfghijklmnopqrsuw"


def _bijective(n: int, base: int) -> list[int]:
    """The digits (0-based) of ``n + 1`` in bijective base ``base``, most significant first."""
    digits: list[int] = []
    k = n + 1
    while k > 0:
        k -= 1
        digits.append(k % base)
        k //= base
    return digits[::-1]


def tensor_name(n: int) -> str:
    """The ``n``-th tensor name: A, C, …, Z, Aa, Ac, …"""
    digits = _bijective(n, len(TENSOR_FIRST))
    return TENSOR_FIRST[digits[0]] + "".join(TENSOR_REST[d] for d in digits[1:])


def index_name(n: int) -> str:
    """The ``n``-th loop-index name: a, c, d, f, …, w, aa, ac, …"""
    return "".join(INDEX_LETTERS[d] for d in _bijective(n, len(INDEX_LETTERS)))


class TensorNames:
    """The running counter of tensor names (the reference's ``name_start_idx``)."""

    def __init__(self) -> None:
        self.count = 0

    def fresh(self) -> str:
        name = tensor_name(self.count)
        self.count += 1
        return name


def tensor_name_key(name: str) -> tuple[int, list[int]]:
    """Sort key putting tensor names in the order they are drawn."""
    return len(name), [TENSOR_FIRST.index(name[0])] + [TENSOR_REST.index(c) for c in name[1:]]
