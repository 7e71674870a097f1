"""Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp: Conv2d, GroupNorm, tanh, hardswish, residual add, logsumexp. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.gn = nn.GroupNorm(4, 8)

    def forward(self, x):
        y = self.conv(x)
        z = F.hardswish(torch.tanh(self.gn(y)))
        return torch.logsumexp(y + z, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
