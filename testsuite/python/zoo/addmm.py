"""addmm: torch.addmm. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 12))
        self.bias = nn.Parameter(torch.randn(12))

    def forward(self, x):
        return torch.addmm(self.bias, x, self.w)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
