import torch
import torch.nn as nn


# No get_model(): the importer builds Model(*get_default_model_params_shapes(), dtype=...).
class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.float16):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, dtype=dtype)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def get_default_input_shapes():
    return [[6, 14]]


def get_default_model_params_shapes():
    return [14, 10]


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
