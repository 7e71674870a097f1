"""stack: stack along a new dim 1. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.stack([a, b], dim=1)


def get_inputs():
    return [torch.randn(4, 6), torch.randn(4, 6)]


def get_init_inputs():
    return []
