"""mse_loss: MSE loss. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return F.mse_loss(a, b)


def get_inputs():
    return [torch.randn(16, 32), torch.randn(16, 32)]


def get_init_inputs():
    return []
