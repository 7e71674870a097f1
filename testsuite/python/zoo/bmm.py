"""bmm: Batched matrix multiplication. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(4, 16, 24), torch.randn(4, 24, 8)]


def get_init_inputs():
    return []
