"""Matmul_Mean_Softmax: corpus level2 Matmul_Mean_Softmax. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(100, 50)

    def forward(self, x):
        x = self.linear(x)
        x = torch.mean(x, dim=1, keepdim=True)
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(128, 100)]


def get_init_inputs():
    return []
