"""matrix_scalar: Matrix-scalar multiplication (a 0-d tensor). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, s):
        return a * s


def get_inputs():
    return [torch.randn(32, 48), torch.tensor(3.5)]


def get_init_inputs():
    return []
