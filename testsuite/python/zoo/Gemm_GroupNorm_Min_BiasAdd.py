"""Gemm_GroupNorm_Min_BiasAdd: Gemm, GroupNorm, min over dim 1, bias add. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.gn = nn.GroupNorm(4, 24)
        self.bias = nn.Parameter(torch.randn(1, 1))

    def forward(self, x):
        x = self.gn(self.fc(x))
        return torch.min(x, dim=1, keepdim=True)[0] + self.bias


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
