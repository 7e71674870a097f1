"""tril_masked_fill: Causal mask: masked_fill with a tril buffer. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('mask', torch.tril(torch.ones(8, 8)))

    def forward(self, x):
        return x.masked_fill(self.mask == 0, float('-inf')).softmax(dim=-1)


def get_inputs():
    return [torch.randn(2, 8, 8)]


def get_init_inputs():
    return []
