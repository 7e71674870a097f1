"""Conv3d_Scaling_Tanh_Multiply_Sigmoid: Conv3d, scaling, tanh, multiply, sigmoid. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3)
        self.s = nn.Parameter(torch.randn(4, 1, 1, 1))
        self.b = nn.Parameter(torch.randn(4, 1, 1, 1))

    def forward(self, x):
        return torch.sigmoid(torch.tanh(self.conv(x) * self.s) * self.b)


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
