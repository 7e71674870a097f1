import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, dtype=torch.float16):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              dtype=dtype)
        self.batch_norm = nn.BatchNorm2d(out_channels, dtype=dtype)

    def forward(self, x):
        return torch.tanh(self.batch_norm(self.conv(x)))


def get_default_input_shapes():
    return [[3, 2, 11, 11]]


def get_default_model_params_shapes():
    return [2, 5, 3, 2]


def get_model(*params, dtype=torch.float16):
    model = Model(*params, dtype=dtype)
    return model


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
