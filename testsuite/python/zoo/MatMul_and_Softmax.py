"""MatMul_and_Softmax: corpus level2 MatMul_and_Softmax. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.softmax(torch.matmul(a, b), dim=1)


def get_inputs():
    return [torch.randn(64, 128), torch.randn(128, 32)]


def get_init_inputs():
    return []
