"""pad_constant: F.pad, constant mode, asymmetric. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.pad(x, (1, 2, 0, 1), value=0.5)


def get_inputs():
    return [torch.randn(4, 6, 8)]


def get_init_inputs():
    return []
