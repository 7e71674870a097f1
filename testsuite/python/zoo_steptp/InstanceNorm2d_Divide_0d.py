import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divide_by, dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, dtype=dtype)
        self.instance_norm = nn.InstanceNorm2d(out_channels, dtype=dtype)
        self.divide_by = torch.tensor(divide_by, dtype=dtype)

    def forward(self, x):
        x = self.conv(x)
        x = self.instance_norm(x)
        x = x / self.divide_by
        return x


def get_default_input_shapes():
    return [[2, 3, 9, 9]]


def get_default_model_params_shapes():
    return [3, 4, 3, 2.0]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
