import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a matrix multiplication and multiplies the result by a scalar.
    """
    def __init__(self, in_features, out_features, multiplier, dtype=torch.float16):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, dtype=dtype)
        self.multiplier = torch.tensor(multiplier, dtype=dtype)

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.multiplier
        return x


def get_default_input_shapes():
    return [[16, 32]]


def get_default_model_params_shapes():
    return [32, 24, 2.5]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
