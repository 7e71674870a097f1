import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, residual_scale, dtype=torch.float16):
        super().__init__()
        self.proj = nn.Linear(features, features, dtype=dtype)
        self.residual_scale = torch.tensor(residual_scale, dtype=dtype)

    def forward(self, x):
        return x + self.proj(x) * self.residual_scale


def get_default_input_shapes():
    return [[8, 16]]


def get_default_model_params_shapes():
    return [16, 0.3]


def get_model(features, residual_scale, dtype=torch.float16):
    return Model(features, residual_scale, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
