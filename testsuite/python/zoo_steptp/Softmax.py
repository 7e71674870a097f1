import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a Softmax activation.
    """
    def __init__(self, dtype=torch.float16):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


def get_default_input_shapes():
    return [[8, 64]]


def get_default_model_params_shapes():
    return []


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
