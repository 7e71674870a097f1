"""Matmul_MaxPool_Sum_Scale: Gemm, max pool 1d, sum, scale. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)

    def forward(self, x):
        x = F.max_pool1d(self.fc(x).unsqueeze(1), kernel_size=2).squeeze(1)
        return torch.sum(x, dim=1) * 0.5


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
