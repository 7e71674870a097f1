"""Conv2d_Tanh_Scaling_BiasAdd_Max: Conv2d, tanh, scaling, bias add, max pool. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bias = nn.Parameter(torch.randn(8, 1, 1))
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(torch.tanh(self.conv(x)) * 2.0 + self.bias)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
