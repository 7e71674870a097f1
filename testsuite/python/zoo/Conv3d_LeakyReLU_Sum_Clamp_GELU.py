"""Conv3d_LeakyReLU_Sum_Clamp_GELU: Conv3d, leaky ReLU, sum with a tensor, clamp, GELU. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3)
        self.t = nn.Parameter(torch.randn(4, 1, 1, 1))

    def forward(self, x):
        x = F.leaky_relu(self.conv(x), 0.2) + self.t
        return F.gelu(torch.clamp(x, -1.0, 1.0))


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
