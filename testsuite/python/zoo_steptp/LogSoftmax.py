import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int = 1, dtype=torch.float16):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        return torch.log_softmax(x, dim=self.dim)


def get_default_input_shapes():
    return [[6, 48]]


def get_default_model_params_shapes():
    return [1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
