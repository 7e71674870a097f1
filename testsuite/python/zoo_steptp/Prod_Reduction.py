import torch
import torch.nn as nn


class Model(nn.Module):
    """Product over a short dimension (inputs near 1, so that it stays finite)."""

    def __init__(self, dim, dtype=torch.float16):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        return torch.prod(x, dim=self.dim)


def get_default_input_shapes():
    return [[8, 6]]


def get_default_model_params_shapes():
    return [1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [1.0 + 0.1 * torch.randn(*shape, dtype=dtype) for shape in shapes]
