"""Conv3d_Max_LogSumExp_ReLU: Conv3d, max pool, logsumexp over channels, ReLU. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3, padding=1)
        self.pool = nn.MaxPool3d(2)

    def forward(self, x):
        return torch.relu(torch.logsumexp(self.pool(self.conv(x)), dim=1, keepdim=True))


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
