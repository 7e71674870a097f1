import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale, dtype=torch.float16):
        super().__init__()
        self.scale = torch.tensor(scale, dtype=dtype)

    def forward(self, a, b):
        return torch.bmm(a, b) * self.scale


def get_default_input_shapes():
    return [[3, 8, 12], [3, 12, 10]]


def get_default_model_params_shapes():
    return [0.5]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
