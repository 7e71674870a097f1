"""conv3d_conv3d_padding: Two padded Conv3d. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv3d(2, 3, 3, padding=1)
        self.c2 = nn.Conv3d(3, 2, 3, padding=1)

    def forward(self, x):
        return self.c2(self.c1(x))


def get_inputs():
    return [torch.randn(2, 2, 6, 6, 6)]


def get_init_inputs():
    return []
