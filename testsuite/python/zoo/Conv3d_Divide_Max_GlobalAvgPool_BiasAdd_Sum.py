"""Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum: Conv3d, divide, max pool, global avg pool, bias add, sum. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3)
        self.pool = nn.MaxPool3d(2)
        self.gap = nn.AdaptiveAvgPool3d(1)
        self.bias = nn.Parameter(torch.randn(4, 1, 1, 1))

    def forward(self, x):
        x = self.pool(self.conv(x) / 2.0)
        x = self.gap(x) + self.bias
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
