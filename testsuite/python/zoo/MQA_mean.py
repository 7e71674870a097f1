"""MQA_mean: Multi-query (1 key/value head) causal attention, mean over the last dim. (leirc model zoo, KernelBench style)."""

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
        self.register_buffer('mask', torch.tril(torch.ones(8, 8)).view(1, 1, 1, 8, 8))

    def forward(self, x):
        B, T, C = x.size()
        q = self.q(x).view(B, T, 1, 4, 4).permute(0, 2, 3, 1, 4)
        k = self.k(x).view(B, T, 1, 1, 4).permute(0, 2, 3, 1, 4)
        v = self.v(x).view(B, T, 1, 1, 4).permute(0, 2, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :, :T, :T] == 0, float('-inf'))
        y = (F.softmax(att, dim=-1) @ v).permute(0, 3, 1, 2, 4).reshape(B, T, C)
        y = torch.mean(y, dim=-1)
        return y


def get_inputs():
    return [torch.randn(2, 8, 16)]


def get_init_inputs():
    return []
