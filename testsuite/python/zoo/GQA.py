"""GQA: Grouped-query attention: 4 query heads share 2 key/value heads (broadcast matmul). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 8)
        self.v = nn.Linear(16, 8)
        self.o = nn.Linear(16, 16)

    def forward(self, x):
        B, T, C = x.size()
        q = self.q(x).view(B, T, 2, 2, 4).permute(0, 2, 3, 1, 4)
        k = self.k(x).view(B, T, 2, 1, 4).permute(0, 2, 3, 1, 4)
        v = self.v(x).view(B, T, 2, 1, 4).permute(0, 2, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(4), dim=-1)
        y = (att @ v).permute(0, 3, 1, 2, 4).reshape(B, T, C)
        return self.o(y)


def get_inputs():
    return [torch.randn(2, 8, 16)]


def get_init_inputs():
    return []
