"""Conv2d_AvgPool_Sigmoid_Sum: corpus level2 Conv2d_AvgPool_Sigmoid_Sum. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, bias=False)
        self.avg_pool = nn.AvgPool2d(2)

    def forward(self, x):
        x = self.conv(x)
        x = self.avg_pool(x)
        x = torch.sigmoid(x)
        return torch.sum(x, dim=[1, 2, 3])


def get_inputs():
    return [torch.randn(128, 3, 32, 32)]


def get_init_inputs():
    return []
