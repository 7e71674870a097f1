import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication, applies sigmoid, and sums the result.
    """
    def __init__(self, input_size, hidden_size, dtype=torch.float16):
        super(Model, self).__init__()
        self.linear = nn.Linear(input_size, hidden_size, dtype=dtype)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sigmoid(x)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


def get_default_input_shapes():
    return [[16, 10]]


def get_default_model_params_shapes():
    return [10, 20]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
