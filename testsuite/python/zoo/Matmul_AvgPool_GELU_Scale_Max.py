"""Matmul_AvgPool_GELU_Scale_Max: corpus level2 Matmul_AvgPool_GELU_Scale_Max. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = nn.Linear(512, 256)
        self.avg_pool = nn.AvgPool1d(kernel_size=4)
        self.scale_factor = 2.0

    def forward(self, x):
        x = self.matmul(x).unsqueeze(1)
        x = self.avg_pool(x).squeeze(1)
        x = F.gelu(x) * self.scale_factor
        return torch.max(x, dim=1)[0]


def get_inputs():
    return [torch.randn(128, 512)]


def get_init_inputs():
    return []
