"""conv2d_dilated_padded: Conv2d, asymmetric kernel, dilated and padded. (leirc model zoo, KernelBench style)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, (3, 5), padding=(2, 1), dilation=(2, 1), bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 3, 12, 12)]


def get_init_inputs():
    return []
