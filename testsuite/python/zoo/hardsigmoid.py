"""hardsigmoid: HardSigmoid module. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Hardsigmoid()

    def forward(self, x):
        return self.act(x)


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
