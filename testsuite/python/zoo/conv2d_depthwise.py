"""conv2d_depthwise: Depthwise Conv2d (groups = channels). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 6, 3, groups=6)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 6, 10, 12)]


def get_init_inputs():
    return []
