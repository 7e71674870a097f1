"""Conv2d_Scaling_Min: Conv2d, scaling, min over channels. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return torch.min(self.conv(x) * 2.0, dim=1, keepdim=True)[0]


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
