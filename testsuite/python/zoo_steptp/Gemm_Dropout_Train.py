import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Matmul, dropout (p = 0: a no-op, even in training mode), mean, softmax.
    """
    def __init__(self, in_features, out_features, dropout_p, dtype=torch.float16):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features, dtype=dtype)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.softmax(x, dim=0)
        return x


def get_default_input_shapes():
    return [[12, 10]]


def get_default_model_params_shapes():
    return [10, 8, 0.0]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
