"""MHA_Gemm_GeLU_sum: Multi-head attention (nn-free), output Gemm, GELU, sum. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(B, T, 2, 8).transpose(1, 2)
        k = k.view(B, T, 2, 8).transpose(1, 2)
        v = v.view(B, T, 2, 8).transpose(1, 2)
        att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) * 0.25, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(B, T, C)
        return torch.sum(F.gelu(self.proj(y)), dim=-1)


def get_inputs():
    return [torch.randn(2, 8, 16)]


def get_init_inputs():
    return []
