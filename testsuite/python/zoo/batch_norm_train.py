"""batch_norm_train: Batch norm with batch statistics (training mode). (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(6) + 0.5)
        self.b = nn.Parameter(torch.randn(6))

    def forward(self, x):
        return F.batch_norm(x, None, None, self.w, self.b, training=True)


def get_inputs():
    return [torch.randn(4, 6, 8, 8)]


def get_init_inputs():
    return []
