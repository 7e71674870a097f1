"""Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp: corpus level2 Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 5)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sum(x, dim=1, keepdim=True)
        x = torch.max(x, dim=1, keepdim=True)[0]
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        return torch.logsumexp(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(128, 10)]


def get_init_inputs():
    return []
