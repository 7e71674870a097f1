import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A model that performs a reverse cumulative sum operation along a specified dimension.

    Parameters:
        dim (int): The dimension along which to perform the reverse cumulative sum.
    """

    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_default_input_shapes():
    return [[16, 64]]


def get_default_model_params_shapes():
    return [1]


def get_model(*params, dtype=torch.float16):
    return Model(*params)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
