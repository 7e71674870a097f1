import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size,
                 dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, dtype=dtype)
        self.pool = nn.MaxPool2d(kernel_size=pool_kernel_size)

    def forward(self, x):
        x = self.conv(x)
        x = self.pool(x)
        return F.hardswish(x)


def get_default_input_shapes():
    return [[2, 3, 12, 12]]


def get_default_model_params_shapes():
    return [3, 5, 3, 2]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
