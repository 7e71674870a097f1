"""clamp: clamp to [-0.25, 0.75]. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x, min=-0.25, max=0.75)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
