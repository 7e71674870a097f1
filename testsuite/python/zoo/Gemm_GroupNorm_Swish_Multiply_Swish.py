"""Gemm_GroupNorm_Swish_Multiply_Swish: Gemm, GroupNorm, swish, multiply, swish. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.gn = nn.GroupNorm(4, 24)
        self.w = nn.Parameter(torch.randn(24))

    def forward(self, x):
        y = self.gn(self.fc(x))
        y = y * torch.sigmoid(y) * self.w
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
