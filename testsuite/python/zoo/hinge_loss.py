"""hinge_loss: Hinge loss: mean(clamp(1 - p*t, min=0)). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p, t):
        return torch.mean(torch.clamp(1 - p * t, min=0))


def get_inputs():
    return [torch.randn(32, 1), torch.randn(32, 1).sign()]


def get_init_inputs():
    return []
