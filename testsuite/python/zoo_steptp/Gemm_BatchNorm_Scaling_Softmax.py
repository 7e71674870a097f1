import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Model that performs a matrix multiplication (Gemm), Batch Normalization, scaling, and Softmax.
    """
    def __init__(self, in_features, out_features, bn_eps, bn_momentum, scale_shape,
                 dtype=torch.float16):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, dtype=dtype)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum, dtype=dtype)
        self.scale = nn.Parameter(torch.ones(scale_shape, dtype=dtype) * 1.5)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.gemm(x)
        x = self.bn(x)
        x = self.scale * x
        x = self.softmax(x)
        return x


def get_default_input_shapes():
    return [[32, 24]]


def get_default_model_params_shapes():
    return [24, 16, 1e-5, 0.1, (1,)]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
