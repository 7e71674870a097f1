import torch
import torch.nn as nn


class Model(nn.Module):
    """BatchNorm2d with non-trivial running statistics, evaluated in eval mode: this
    file's get_model() asks for it, so the importer keeps it."""

    def __init__(self, num_features, dtype=torch.float16):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features, dtype=dtype)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.linspace(-1, 1, num_features, dtype=dtype))
            self.bn.running_var.copy_(torch.linspace(0.5, 2, num_features, dtype=dtype))

    def forward(self, x):
        return self.bn(x) * 2.0


def get_default_input_shapes():
    return [[2, 4, 5, 5]]


def get_default_model_params_shapes():
    return [4]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype).eval()


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
