import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.float16):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False, dtype=dtype)

    def forward(self, x):
        x = self.linear(x)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        return torch.relu(x)


def get_default_input_shapes():
    return [[12, 16]]


def get_default_model_params_shapes():
    return [16, 24]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
