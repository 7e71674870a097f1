import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel, dtype=torch.float16):
        super().__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, padding=1, dtype=dtype)
        self.pool = nn.AvgPool1d(pool_kernel)

    def forward(self, x):
        return self.pool(self.conv1d(x))


def get_default_input_shapes():
    return [[3, 4, 20]]


def get_default_model_params_shapes():
    return [4, 6, 3, 2]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
