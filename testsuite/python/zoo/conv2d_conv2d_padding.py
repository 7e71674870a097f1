"""conv2d_conv2d_padding: Two padded Conv2d. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 6, 3, padding=1)
        self.c2 = nn.Conv2d(6, 4, 3, padding=1)

    def forward(self, x):
        return self.c2(self.c1(x))


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
