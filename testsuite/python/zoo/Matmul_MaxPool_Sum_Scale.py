"""Matmul_MaxPool_Sum_Scale: corpus level2 Matmul_MaxPool_Sum_Scale. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = nn.Linear(10, 5)
        self.max_pool = nn.MaxPool1d(kernel_size=2)
        self.scale_factor = 0.5

    def forward(self, x):
        x = self.matmul(x).unsqueeze(1)
        x = self.max_pool(x).squeeze(1)
        return torch.sum(x, dim=1) * self.scale_factor


def get_inputs():
    return [torch.randn(128, 10)]


def get_init_inputs():
    return []
