"""Matmul_AvgPool_GELU_Scale_Max: Gemm, avg pool 1d, GELU, scale, max. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)

    def forward(self, x):
        x = F.avg_pool1d(self.fc(x).unsqueeze(1), kernel_size=4).squeeze(1)
        return torch.max(F.gelu(x) * 2.0, dim=1).values


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
