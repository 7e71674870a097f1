import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A model that computes Cross Entropy Loss for multi-class classification tasks.
    """
    def __init__(self, dtype=torch.float16):
        super(Model, self).__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.cross_entropy(predictions, targets)


def get_default_input_shapes():
    batch_size, num_classes = 16, 10
    return [[batch_size, num_classes], [batch_size]]


def get_default_model_params_shapes():
    return []


def get_model(*params, dtype=torch.float16):
    return Model(*params, dtype=dtype)


def get_real_inputs(pred_shape, target_shape, dtype=torch.float16):
    num_classes = pred_shape[-1]
    return [torch.randn(*pred_shape, dtype=dtype), torch.randint(0, num_classes, target_shape)]
