"""hardtanh: HardTanh in [-0.5, 0.5]. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.hardtanh(x, min_val=-0.5, max_val=0.5)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
