"""avg_pool3d: AvgPool3d 2. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 3, 6, 6, 6)]


def get_init_inputs():
    return []
