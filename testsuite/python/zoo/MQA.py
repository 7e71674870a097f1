"""MQA: Multi-query attention: one key/value head broadcast over the query heads. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 4)
        self.v = nn.Linear(16, 4)

    def forward(self, x):
        B, T, C = x.size()
        q = self.q(x).view(B, T, 4, 4).transpose(1, 2)
        k = self.k(x).view(B, 1, T, 4)
        v = self.v(x).view(B, 1, T, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) * 0.5, dim=-1)
        return (att @ v).transpose(1, 2).reshape(B, T, C)


def get_inputs():
    return [torch.randn(2, 8, 16)]


def get_init_inputs():
    return []
