"""matmul_transposed_a: Matmul with transposed A. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a.T, b)


def get_inputs():
    return [torch.randn(40, 24), torch.randn(40, 12)]


def get_init_inputs():
    return []
