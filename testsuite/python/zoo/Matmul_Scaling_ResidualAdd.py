"""Matmul_Scaling_ResidualAdd: Gemm, scaling, residual add of a second input. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.scale = nn.Parameter(torch.randn(24))

    def forward(self, x, r):
        return self.fc(x) * self.scale + r


def get_inputs():
    return [torch.randn(16, 32), torch.randn(16, 24)]


def get_init_inputs():
    return []
