import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Softplus, then Mish, then ELU."""

    def __init__(self, dtype=torch.float16):
        super(Model, self).__init__()

    def forward(self, x):
        x = F.softplus(x)
        x = F.mish(x)
        return F.elu(x - 1.0)


def get_default_input_shapes():
    return [[10, 18]]


def get_default_model_params_shapes():
    return []


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
