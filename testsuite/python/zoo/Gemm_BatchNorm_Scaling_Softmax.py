"""Gemm_BatchNorm_Scaling_Softmax: Gemm, BatchNorm1d (eval), scaling, softmax. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.bn = nn.BatchNorm1d(24)
        self.scale = nn.Parameter(torch.ones(1) * 1.5)

    def forward(self, x):
        return torch.softmax(self.scale * self.bn(self.fc(x)), dim=1)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
