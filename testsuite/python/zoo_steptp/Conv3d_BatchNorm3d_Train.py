import torch
import torch.nn as nn


class Model(nn.Module):
    """3D convolution followed by batch normalization (training mode) and a sigmoid."""

    def __init__(self, in_channels, out_channels, kernel_size, dtype=torch.float16):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, dtype=dtype)
        self.bn = nn.BatchNorm3d(out_channels, dtype=dtype)

    def forward(self, x):
        return torch.sigmoid(self.bn(self.conv(x)))


def get_default_input_shapes():
    return [[2, 2, 5, 6, 6]]


def get_default_model_params_shapes():
    return [2, 4, 3]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
