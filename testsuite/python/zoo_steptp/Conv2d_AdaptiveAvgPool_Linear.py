import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, channels, num_classes, dtype=torch.float16):
        super().__init__()
        self.features = nn.Conv2d(in_channels, channels, 3, padding=1, dtype=dtype)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Linear(channels, num_classes, dtype=dtype)

    def forward(self, x):
        x = torch.relu(self.features(x))
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def get_default_input_shapes():
    return [[2, 3, 8, 8]]


def get_default_model_params_shapes():
    return [3, 8, 5]


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(*shapes, dtype=torch.float16):
    return [torch.randn(*shape, dtype=dtype) for shape in shapes]
