import torch
import torch.nn as nn


class Model(nn.Module):
    """Single-head attention: softmax(Q K^T * scale) V, the scale a 0-d tensor."""

    def __init__(self, head_dim, dtype=torch.float16):
        super().__init__()
        self.scale = torch.tensor(head_dim ** -0.5, dtype=dtype)

    def forward(self, q, k, v):
        attn = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        attn = torch.softmax(attn, dim=-1)
        return torch.matmul(attn, v)


def get_default_input_shapes():
    batch, seq, head_dim = 2, 8, 16
    return [[batch, seq, head_dim]] * 3


def get_default_model_params_shapes():
    return [16]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
