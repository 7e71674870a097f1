import torch
import torch.nn as nn


class Model(nn.Module):
    """A 0-d float tensor attribute made from an int, and a plain int factor."""

    def __init__(self, factor, offset, dtype=torch.float16):
        super().__init__()
        self.factor = factor
        self.offset = torch.tensor(offset, dtype=dtype)

    def forward(self, x):
        return torch.relu(x * self.factor - self.offset)


def get_default_input_shapes():
    return [[7, 11]]


def get_default_model_params_shapes():
    return [3, 1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
