"""Matmul_GroupNorm_LeakyReLU_Sum: corpus level2 Matmul_GroupNorm_LeakyReLU_Sum. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 256)
        self.gn = nn.GroupNorm(8, 256)

    def forward(self, x):
        x = self.gn(self.fc(x))
        x = F.leaky_relu(x, negative_slope=0.01)
        return x + x


def get_inputs():
    return [torch.randn(128, 512)]


def get_init_inputs():
    return []
