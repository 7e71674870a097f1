"""flatten_view: view and flatten. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x.view(x.size(0), -1)
        return torch.flatten(y.view(4, 3, 6, 24), 1)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
