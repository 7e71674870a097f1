"""min_dim: Min over the last dim (amin). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amin(x, dim=-1)


def get_inputs():
    return [torch.randn(8, 16, 12)]


def get_init_inputs():
    return []
