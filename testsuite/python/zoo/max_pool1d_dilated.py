"""max_pool1d_dilated: MaxPool1d, kernel 4, stride 2, padding 2, dilation 3. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(4, stride=2, padding=2, dilation=3)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(4, 6, 32)]


def get_init_inputs():
    return []
