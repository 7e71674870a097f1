"""logsumexp: LogSumExp over dim 1, keepdim. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.logsumexp(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
