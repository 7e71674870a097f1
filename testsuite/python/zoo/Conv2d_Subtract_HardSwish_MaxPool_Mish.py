"""Conv2d_Subtract_HardSwish_MaxPool_Mish: Conv2d, subtract, hardswish, maxpool, mish. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return F.mish(self.pool(F.hardswish(self.conv(x) - 0.5)))


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
