import torch
import torch.nn as nn


class Model(nn.Module):
    """GroupNorm, then Swish (x * sigmoid(x))."""

    def __init__(self, num_groups, num_channels, dtype=torch.float16):
        super().__init__()
        self.group_norm = nn.GroupNorm(num_groups, num_channels, dtype=dtype)

    def forward(self, x):
        x = self.group_norm(x)
        return x * torch.sigmoid(x)


def get_default_input_shapes():
    return [[4, 8, 6, 6]]


def get_default_model_params_shapes():
    return [2, 8]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
