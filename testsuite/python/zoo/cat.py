"""cat: cat along dim 1 and dim 0. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        y = torch.cat([a, b], dim=1)
        return torch.cat((y, y), dim=0)


def get_inputs():
    return [torch.randn(4, 6), torch.randn(4, 3)]


def get_init_inputs():
    return []
