import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, reverse cumulative sum over the features, scaled by a 0-d tensor.
    """
    def __init__(self, in_features, out_features, scale, dtype=torch.float16):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=dtype)
        self.scale = torch.tensor(scale, dtype=dtype)

    def forward(self, x):
        x = self.linear(x)
        x = x.flip(1).cumsum(1).flip(1)
        return x * self.scale


def get_default_input_shapes():
    return [[8, 20]]


def get_default_model_params_shapes():
    return [20, 16, 0.125]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
