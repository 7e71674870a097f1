import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, dtype=torch.float16):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.mean(dim=self.dim)


def get_default_input_shapes():
    return [[4, 10, 30]]


def get_default_model_params_shapes():
    return [2]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
