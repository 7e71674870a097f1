"""Conv2d_Activation_BatchNorm: Conv2d, tanh(softplus) activation, BatchNorm (training mode). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        y = self.conv(x)
        y = torch.tanh(F.softplus(y)) * y
        return F.batch_norm(y, None, None, training=True)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
