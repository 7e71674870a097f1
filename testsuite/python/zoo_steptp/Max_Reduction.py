import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs Max reduction over a specific dimension.
    """
    def __init__(self, dim: int, dtype=torch.float16):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=self.dim)[0]


def get_default_input_shapes():
    return [[6, 16, 12]]


def get_default_model_params_shapes():
    return [1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
