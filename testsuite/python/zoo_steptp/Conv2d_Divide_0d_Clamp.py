import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Conv2d, division by a constant held as a 0-d tensor, clamp to [min_value, max_value].
    """
    def __init__(self, in_channels, out_channels, kernel_size, divisor, min_value, max_value,
                 dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, dtype=dtype)
        self.divisor = torch.tensor(divisor, dtype=dtype)
        self.min_value = min_value
        self.max_value = max_value

    def forward(self, x):
        x = self.conv(x)
        x = x / self.divisor
        x = torch.clamp(x, min=self.min_value, max=self.max_value)
        return x


def get_default_input_shapes():
    return [[2, 3, 10, 10]]


def get_default_model_params_shapes():
    return [3, 8, 3, 2.0, -0.5, 0.5]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(shape, dtype=dtype) for shape in shapes]
