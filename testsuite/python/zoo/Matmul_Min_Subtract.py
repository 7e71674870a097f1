"""Matmul_Min_Subtract: corpus level2 Matmul_Min_Subtract. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 5)
        self.constant = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        x = self.linear(x)
        x = torch.min(x, self.constant)
        return x - self.constant


def get_inputs():
    return [torch.randn(128, 10)]


def get_init_inputs():
    return []
