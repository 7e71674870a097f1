"""transpose_permute: transpose and permute. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.transpose(1, 2).permute(0, 3, 2, 1).contiguous()


def get_inputs():
    return [torch.randn(2, 3, 4, 5)]


def get_init_inputs():
    return []
