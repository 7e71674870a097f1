import torch
import torch.nn as nn


class Model(nn.Module):
    """Reverse cumulative sum along the first (batch) dimension of a 3-D tensor."""

    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_default_input_shapes():
    return [[10, 4, 6]]


def get_default_model_params_shapes():
    return [0]


def get_model(*params, dtype=torch.float16):
    return Model(*params)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
