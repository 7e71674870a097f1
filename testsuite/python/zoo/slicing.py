"""slicing: basic indexing with slices and ints. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x[:, 1:5, ::2] + x[:, 0:4, 1::2]


def get_inputs():
    return [torch.randn(4, 8, 10)]


def get_init_inputs():
    return []
