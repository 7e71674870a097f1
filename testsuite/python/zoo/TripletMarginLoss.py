"""TripletMarginLoss: corpus level1 TripletMarginLoss. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_fn = torch.nn.TripletMarginLoss(margin=1.0)

    def forward(self, anchor, positive, negative):
        return self.loss_fn(anchor, positive, negative)


def get_inputs():
    return [torch.randn(128, 1024), torch.randn(128, 1024), torch.randn(128, 1024)]


def get_init_inputs():
    return []
