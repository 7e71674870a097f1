"""batch_norm: BatchNorm2d, eval mode (running statistics). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(6)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)
        self.bn.weight.data.uniform_(0.5, 1.5)
        self.bn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(4, 6, 8, 8)]


def get_init_inputs():
    return []
