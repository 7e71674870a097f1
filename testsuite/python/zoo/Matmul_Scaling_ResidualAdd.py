"""Matmul_Scaling_ResidualAdd: corpus level2 Matmul_Scaling_ResidualAdd. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(256))
        self.fc = nn.Linear(128, 256)

    def forward(self, x, r):
        return self.fc(x) * self.scale + r


def get_inputs():
    return [torch.randn(64, 128), torch.randn(64, 256)]


def get_init_inputs():
    return []
