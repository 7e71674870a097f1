"""Gemm_Divide_Sum_Scaling: corpus level2 Gemm_Divide_Sum_Scaling. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(20, 10))
        self.scaling_factor = 1.5

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = x / 2
        x = torch.sum(x, dim=1, keepdim=True)
        return x * self.scaling_factor


def get_inputs():
    return [torch.randn(128, 10)]


def get_init_inputs():
    return []
