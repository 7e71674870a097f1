"""BMM_InstanceNorm_Sum_ResidualAdd_Multiply: corpus level2 BMM_InstanceNorm_Sum_ResidualAdd_Multiply, with the translator's unsqueeze/cat. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bmm = nn.Linear(64, 256)
        self.instance_norm = nn.InstanceNorm2d(256, affine=True)

    def forward(self, x, y):
        x = self.bmm(x).unsqueeze(2).unsqueeze(3)
        x = self.instance_norm(torch.cat([x, x], dim=3)).squeeze(2)
        return (x + y) * y


def get_inputs():
    return [torch.randn(128, 64), torch.randn(128, 256, 2)]


def get_init_inputs():
    return []
