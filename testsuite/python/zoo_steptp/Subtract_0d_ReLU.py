import torch
import torch.nn as nn


class Model(nn.Module):
    """x - subtract_value, then ReLU."""

    def __init__(self, subtract_value, dtype=torch.float16):
        super().__init__()
        self.subtract_value = torch.tensor(subtract_value, dtype=dtype)

    def forward(self, x):
        return torch.relu(x - self.subtract_value)


def get_default_input_shapes():
    return [[8, 40]]


def get_default_model_params_shapes():
    return [0.25]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
