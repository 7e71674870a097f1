import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a convolution, applies ReLU, and adds a bias term.
    """
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape, dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, dtype=dtype)
        self.bias = nn.Parameter(torch.randn(bias_shape, dtype=dtype))

    def forward(self, x):
        x = self.conv(x)
        x = torch.relu(x)
        x = x + self.bias
        return x


def get_default_input_shapes():
    return [[2, 3, 10, 10]]


def get_default_model_params_shapes():
    in_channels, out_channels, kernel_size = 3, 6, 3
    bias_shape = (out_channels, 1, 1)
    return [in_channels, out_channels, kernel_size, bias_shape]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
