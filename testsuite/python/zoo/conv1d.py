"""conv1d: Conv1d, stride 2. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 6, 3, stride=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 3, 32)]


def get_init_inputs():
    return []
