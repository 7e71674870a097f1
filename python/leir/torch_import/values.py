"""Tensor values of the lowering: a LEIR name, a shape and a dtype code."""

from __future__ import annotations

from dataclasses import dataclass

from .emit import Ex


@dataclass(frozen=True)
class Value:
    """A tensor of the program: input, parameter, intermediate or output."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def ref(self, items: list[str] | tuple[str, ...] = ()) -> Ex:
        """The reference ``Name^{dt,g}_{items}`` (no subscript for a scalar)."""
        head = f"{self.name}^{{{self.dtype},g}}"
        if not self.shape:
            return Ex(head)
        if len(items) != len(self.shape):
            raise AssertionError(f"{self.name}: {len(items)} items for shape {self.shape}")
        return Ex(head + "_{" + ",".join(items) + "}")

    def bcast(self, out_idx: list[str], out_shape: tuple[int, ...]) -> Ex:
        """This tensor read at the element ``out_idx`` of a broadcast result of ``out_shape``:
        dimensions aligned on the right, a size-1 dimension indexed by ``0``."""
        lead = len(out_shape) - len(self.shape)
        items = []
        for j, size in enumerate(self.shape):
            if size == 1 and out_shape[lead + j] != 1:
                items.append("0")
            else:
                items.append(out_idx[lead + j])
        return self.ref(items)


def norm_dim(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def norm_dims(dims: object, rank: int) -> list[int]:
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(norm_dim(int(d), rank) for d in dims)  # type: ignore[union-attr]
