"""Shared by the trainers' tests: the trainer module behind each ``experiments/train_*.py`` script, and
exact equality of the nested states their checkpoints hold."""

import importlib
import sys

import numpy as np

TRAINERS = {"train_ayzd": "dice_envs.agents.zombie_dice.training", "train_pig": "dice_envs.agents.pig.training",
            "train_liars_dice": "dice_envs.agents.liars_dice.full_width",
            "train_liars_dice_play": "dice_envs.agents.liars_dice.play_training"}


def load_script(name: str = "train_ayzd"):
    """The trainer module behind ``experiments/<name>.py`` (the script is a few lines calling it)."""
    module = importlib.import_module(TRAINERS[name])
    sys.modules[name] = module
    return module


def assert_same(a, b, where="") -> None:
    """Exact equality of nested containers of tensors and arrays."""
    import torch  # here: the tests that only load a trainer skip without torch

    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]")
    elif isinstance(a, torch.Tensor):
        assert torch.equal(a, b), where
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b), where
    else:
        assert a == b, where
