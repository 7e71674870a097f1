"""triu: triu with diagonal 1, tril. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.triu(x, diagonal=1) + torch.tril(x)


def get_inputs():
    return [torch.randn(12, 12)]


def get_init_inputs():
    return []
