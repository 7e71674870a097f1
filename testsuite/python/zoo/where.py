"""where: torch.where on a comparison. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.where(x > 0, x, y * 0.5)


def get_inputs():
    return [torch.randn(8, 16), torch.randn(8, 16)]


def get_init_inputs():
    return []
