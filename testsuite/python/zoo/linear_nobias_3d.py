"""linear_nobias_3d: nn.Linear without bias on a 3-D input. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 8, bias=False)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(4, 6, 32)]


def get_init_inputs():
    return []
