"""Conv3d_Softmax_MaxPool_MaxPool: Conv3d, softmax over channels, two maxpools. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3, padding=1)
        self.p1 = nn.MaxPool3d(2)
        self.p2 = nn.MaxPool3d(2)

    def forward(self, x):
        return self.p2(self.p1(torch.softmax(self.conv(x), dim=1)))


def get_inputs():
    return [torch.randn(2, 2, 8, 8, 8)]


def get_init_inputs():
    return []
