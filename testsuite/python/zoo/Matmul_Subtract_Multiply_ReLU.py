"""Matmul_Subtract_Multiply_ReLU: corpus level2 Matmul_Subtract_Multiply_ReLU. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 5)
        self.subtract_value = 2.0
        self.multiply_value = 1.5

    def forward(self, x):
        x = self.linear(x)
        x = x - self.subtract_value
        x = x * self.multiply_value
        return torch.relu(x)


def get_inputs():
    return [torch.randn(128, 10)]


def get_init_inputs():
    return []
