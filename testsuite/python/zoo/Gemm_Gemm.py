"""Gemm_Gemm: Two Gemms. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 24)
        self.fc2 = nn.Linear(24, 8)

    def forward(self, x):
        return self.fc2(self.fc1(x))


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
