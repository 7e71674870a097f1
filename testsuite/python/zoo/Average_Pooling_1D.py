"""Average_Pooling_1D: corpus level1 Average_Pooling_1D. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=4, stride=2, padding=1)

    def forward(self, x):
        return self.avg_pool(x)


def get_inputs():
    return [torch.randn(16, 32, 128)]


def get_init_inputs():
    return []
