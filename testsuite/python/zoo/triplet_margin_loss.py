"""triplet_margin_loss: Triplet margin loss. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.TripletMarginLoss(margin=1.0)

    def forward(self, a, p, n):
        return self.loss(a, p, n)


def get_inputs():
    return [torch.randn(16, 32), torch.randn(16, 32), torch.randn(16, 32)]


def get_init_inputs():
    return []
