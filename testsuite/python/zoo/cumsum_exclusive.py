"""cumsum_exclusive: corpus level1 cumsum_exclusive: exclusive cumulative sum. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 1

    def forward(self, x):
        exclusive_cumsum = torch.cat((torch.zeros_like(x.select(self.dim, 0).unsqueeze(self.dim)), x), dim=self.dim)[:-1]
        return torch.cumsum(exclusive_cumsum, dim=self.dim)


def get_inputs():
    return [torch.randn(128, 1000)]


def get_init_inputs():
    return []
