"""abs_abs: abs of abs. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.abs(torch.abs(x) - 1.0)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
