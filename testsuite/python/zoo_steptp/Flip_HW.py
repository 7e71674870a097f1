import torch
import torch.nn as nn


class Model(nn.Module):
    """Flip an image batch vertically and horizontally."""

    def __init__(self, dtype=torch.float16):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.flip(x, dims=(2, 3))


def get_default_input_shapes():
    return [[2, 3, 7, 9]]


def get_default_model_params_shapes():
    return []


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
