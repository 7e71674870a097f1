import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Gemm, scaling, hardtanh, and GELU (tanh approximation).
    """
    def __init__(self, in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max,
                 dtype=torch.float16):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, dtype=dtype)
        self.scaling_factor = scaling_factor
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        self.gelu = nn.GELU(approximate="tanh")

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.scaling_factor
        x = self.hardtanh(x)
        x = self.gelu(x)
        return x


def get_default_input_shapes():
    return [[8, 16]]


def get_default_model_params_shapes():
    return [16, 12, 0.5, -2, 2]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
