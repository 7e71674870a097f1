"""einsum: einsum batched contraction. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.einsum('bij,bjk->bik', a, b)


def get_inputs():
    return [torch.randn(3, 8, 12), torch.randn(3, 12, 5)]


def get_init_inputs():
    return []
