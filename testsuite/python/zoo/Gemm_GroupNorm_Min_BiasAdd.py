"""Gemm_GroupNorm_Min_BiasAdd: corpus level2 Gemm_GroupNorm_Min_BiasAdd, with the translator's unsqueeze/cat. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gemm = nn.Linear(512, 256)
        self.group_norm = nn.GroupNorm(8, 256)
        self.bias = nn.Parameter(torch.randn(1, 1, 1, 2))

    def forward(self, x):
        x = self.gemm(x).unsqueeze(2).unsqueeze(3)
        x = self.group_norm(torch.cat([x, x], dim=3))
        x = torch.min(x, dim=1, keepdim=True)[0]
        return x + self.bias


def get_inputs():
    return [torch.randn(128, 512)]


def get_init_inputs():
    return []
