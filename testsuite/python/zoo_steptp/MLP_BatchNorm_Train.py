import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear -> BatchNorm1d -> ReLU -> Linear, in an nn.Sequential (training mode)."""

    def __init__(self, in_features, hidden, out_features, dtype=torch.float16):
        super(Model, self).__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden, dtype=dtype),
            nn.BatchNorm1d(hidden, dtype=dtype),
            nn.ReLU(),
            nn.Linear(hidden, out_features, dtype=dtype),
        )

    def forward(self, x):
        return self.net(x)


def get_default_input_shapes():
    return [[24, 12]]


def get_default_model_params_shapes():
    return [12, 16, 6]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
