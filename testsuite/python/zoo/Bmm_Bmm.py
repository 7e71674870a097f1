"""Bmm_Bmm: Two batched matmuls. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        return torch.bmm(torch.bmm(a, b), c)


def get_inputs():
    return [torch.randn(2, 8, 12), torch.randn(2, 12, 6), torch.randn(2, 6, 4)]


def get_init_inputs():
    return []
