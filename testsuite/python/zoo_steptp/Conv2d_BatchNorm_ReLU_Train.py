import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1, dtype=dtype)
        self.bn = nn.BatchNorm2d(out_channels, dtype=dtype)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)   # training mode: the batch's statistics
        return torch.relu(x)


def get_default_input_shapes():
    return [[4, 3, 8, 8]]


def get_default_model_params_shapes():
    return [3, 6, 3]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
