"""avg_pool1d_padded: AvgPool1d, kernel 4, stride 2, padding 1. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool1d(x, 4, 2, 1)


def get_inputs():
    return [torch.randn(4, 6, 32)]


def get_init_inputs():
    return []
