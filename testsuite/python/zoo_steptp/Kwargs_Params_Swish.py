import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, beta, dtype=torch.float16):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=dtype)
        self.beta = torch.tensor(beta, dtype=dtype)

    def forward(self, x):
        x = self.linear(x)
        return x * torch.sigmoid(self.beta * x)


def get_default_input_shapes():
    return ([10, 12],)


def get_default_model_params_shapes():
    return (12, 20, 1.5)


def get_model(*params, **kwargs):
    dtype = kwargs.get("dtype", torch.float16)
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, **kwargs):
    dtype = kwargs.get("dtype", torch.float16)
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
