import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape, dtype=torch.float16):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape, dtype=dtype)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.ln(x))


def get_default_input_shapes():
    return [[6, 10, 32]]


def get_default_model_params_shapes():
    return [[32]]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
