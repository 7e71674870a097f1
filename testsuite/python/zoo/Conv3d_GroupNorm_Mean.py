"""Conv3d_GroupNorm_Mean: Conv3d, GroupNorm, mean over all but the batch. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3)
        self.gn = nn.GroupNorm(2, 4)

    def forward(self, x):
        return self.gn(self.conv(x)).mean(dim=[1, 2, 3, 4])


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
