"""Matmul_GroupNorm_LeakyReLU_Sum: Gemm, GroupNorm, leaky ReLU, x + x. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.gn = nn.GroupNorm(6, 24)

    def forward(self, x):
        x = F.leaky_relu(self.gn(self.fc(x)), negative_slope=0.01)
        return x + x


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
