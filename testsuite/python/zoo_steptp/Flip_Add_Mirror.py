import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.float16):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, dtype=dtype)

    def forward(self, x):
        y = self.fc(x)
        return y + y.flip(-1)


def get_default_input_shapes():
    return [[10, 16]]


def get_default_model_params_shapes():
    return [16, 12]


def get_model(in_features, out_features, dtype=torch.float16):
    return Model(in_features, out_features, dtype=dtype)


def get_real_inputs(x_shape, dtype=torch.float16):
    return [torch.randn(x_shape, dtype=dtype)]
