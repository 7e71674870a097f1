"""Gemm_Sigmoid_Scaling_ResidualAdd: Gemm, sigmoid, scaling, residual add. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)

    def forward(self, x):
        y = self.fc(x)
        return torch.sigmoid(y) * 2.0 + y


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
