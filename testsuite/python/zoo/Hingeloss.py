"""Hingeloss: corpus level1 Hingeloss. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


def get_inputs():
    return [torch.randn(128, 1), torch.randint(0, 2, (128, 1)).float() * 2 - 1]


def get_init_inputs():
    return []
