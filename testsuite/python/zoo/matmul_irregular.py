"""matmul_irregular: Matmul with irregular shapes. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(24, 40), torch.randn(40, 12)]


def get_init_inputs():
    return []
