"""split_chunk: split and chunk. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        p, q = torch.split(x, [4, 8], dim=1)
        r, s = q.chunk(2, dim=1)
        return p * r + s


def get_inputs():
    return [torch.randn(6, 12)]


def get_init_inputs():
    return []
