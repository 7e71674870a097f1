"""linear: nn.Linear. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 24)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return []
