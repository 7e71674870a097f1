"""Conv2d_ReLU_HardSwish: Conv2d, ReLU, hardswish written out. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return x * torch.clamp((x + 3) / 6, 0, 1)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
