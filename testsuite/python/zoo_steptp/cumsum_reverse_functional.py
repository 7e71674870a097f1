import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, dtype=torch.float16):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        # reverse cumulative sum, every step a torch function
        flipped = torch.flip(x, dims=[self.dim])
        return torch.flip(torch.cumsum(flipped, self.dim), [self.dim])


def get_default_input_shapes():
    return [[4, 24, 6]]


def get_default_model_params_shapes():
    return [-2]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.rand(*shape, dtype=dtype) for shape in shapes]
