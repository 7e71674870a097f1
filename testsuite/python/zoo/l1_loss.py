"""l1_loss: L1 loss, summed. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return F.l1_loss(a, b, reduction='sum')


def get_inputs():
    return [torch.randn(16, 32), torch.randn(16, 32)]


def get_init_inputs():
    return []
