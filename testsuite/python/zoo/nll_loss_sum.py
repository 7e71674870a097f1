"""nll_loss_sum: NLL loss (sum) on log-probabilities. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.nll_loss(torch.log_softmax(x, dim=1), t, reduction='sum')


def get_inputs():
    return [torch.randn(32, 10), torch.randint(0, 10, (32,))]


def get_init_inputs():
    return []
