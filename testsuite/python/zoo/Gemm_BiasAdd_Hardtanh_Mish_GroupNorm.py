"""Gemm_BiasAdd_Hardtanh_Mish_GroupNorm: Gemm, bias add, hardtanh, mish, GroupNorm. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.bias = nn.Parameter(torch.randn(24))
        self.gn = nn.GroupNorm(4, 24)

    def forward(self, x):
        return self.gn(F.mish(F.hardtanh(self.fc(x) + self.bias)))


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
