import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha, beta, dtype=torch.float16):
        super().__init__()
        # two plain 0-d tensors, neither a Parameter nor a buffer
        self.alpha = torch.tensor(alpha, dtype=dtype)
        self.beta = torch.tensor(beta, dtype=dtype)

    def forward(self, x):
        return torch.tanh(x * self.alpha + self.beta)


def get_default_input_shapes():
    return [(12, 20)]


def get_default_model_params_shapes():
    return [0.75, -0.1]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*s, dtype=dtype) for s in shapes]
