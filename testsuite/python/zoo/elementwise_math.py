"""elementwise_math: exp, log, sqrt, abs, neg, rsqrt on positive data. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.abs(x) + 0.5
        return torch.exp(-y) + torch.log(y) * torch.sqrt(y) - torch.rsqrt(y)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
