"""Matmul_BatchNorm_BiasAdd_Divide_Swish: Gemm, BatchNorm (eval), bias add, divide, swish. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)
        self.bn = nn.BatchNorm1d(24)
        self.bias = nn.Parameter(torch.randn(1))

    def forward(self, x):
        x = (self.bn(self.fc(x)) + self.bias) / 1.5
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
