"""Matmul_Swish_Sum_GroupNorm: Matmul, swish, bias add, GroupNorm. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.bias = nn.Parameter(torch.randn(24))
        self.gn = nn.GroupNorm(3, 24)

    def forward(self, x):
        y = self.fc(x)
        y = torch.sigmoid(y) * y + self.bias
        return self.gn(y)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
