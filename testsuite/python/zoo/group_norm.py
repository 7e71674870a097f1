"""group_norm: GroupNorm, 4 groups of 2 channels. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(4, 8)
        self.gn.weight.data.uniform_(0.5, 1.5)
        self.gn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [torch.randn(4, 8, 6, 6)]


def get_init_inputs():
    return []
