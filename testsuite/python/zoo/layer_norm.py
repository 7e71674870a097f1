"""layer_norm: LayerNorm over the last two dims. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm((8, 10))

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(4, 6, 8, 10)]


def get_init_inputs():
    return []
