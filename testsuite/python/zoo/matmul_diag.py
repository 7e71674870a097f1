"""matmul_diag: diag(a) @ b (Matmul_with_diagonal_mat). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.diag(a) @ b


def get_inputs():
    return [torch.randn(24), torch.randn(24, 16)]


def get_init_inputs():
    return []
