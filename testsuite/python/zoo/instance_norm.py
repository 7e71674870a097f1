"""instance_norm: InstanceNorm2d (no affine). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(6)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(4, 6, 8, 8)]


def get_init_inputs():
    return []
