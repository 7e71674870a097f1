import torch
import torch.nn as nn


class Model(nn.Module):
    """A leaky ReLU written with torch.where and a 0-d slope tensor."""

    def __init__(self, negative_slope, dtype=torch.float16):
        super(Model, self).__init__()
        self.negative_slope = torch.tensor(negative_slope, dtype=dtype)

    def forward(self, x):
        return torch.where(x > 0, x, x * self.negative_slope)


def get_default_input_shapes():
    return [[4, 6, 16]]


def get_default_model_params_shapes():
    return [0.1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
