"""conv2d_functional: F.conv2d with a parameter weight. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3, 3, 3) * 0.2)

    def forward(self, x):
        return F.conv2d(x, self.w, stride=1, padding=1)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
