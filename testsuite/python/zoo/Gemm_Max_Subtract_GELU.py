"""Gemm_Max_Subtract_GELU: Gemm, max over dim 1, subtract the mean, GELU. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)

    def forward(self, x):
        y = torch.max(self.fc(x), dim=1, keepdim=True).values
        return F.gelu(y - y.mean(dim=1, keepdim=True))


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
