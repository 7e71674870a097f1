"""Gemm_Divide_Sum_Scaling: matmul with a transposed weight, divide, sum, scaling. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(24, 32))
        self.scaling_factor = 1.5

    def forward(self, x):
        x = torch.matmul(x, self.weight.T) / 2
        return torch.sum(x, dim=1, keepdim=True) * self.scaling_factor


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
