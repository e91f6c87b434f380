"""TU036: ``isinstance(s, _LRScheduler)`` -> ``isinstance(s, LRScheduler)``, against what the old check said.

The rewrite does not keep what the old check computes on torch >= 2.0 (False for torch's own schedulers):
it restores what it computed before 2.0, when ``_LRScheduler`` was their base. So the reference is that
meaning: True for every scheduler torch ships (2.13's) but ReduceLROnPlateau, True for a class deriving from
``_LRScheduler``, False for anything else. ReduceLROnPlateau is the known difference: torch 2.2 made it an
``LRScheduler`` too, so the new check says True where the old one, on any torch, said False (the rule's
safety note says so; a check that lists ReduceLROnPlateau beside it agrees both ways).
"""

from __future__ import annotations

import inspect

import pytest

from differential import assert_matches_reference, torch

CHECK = "out = isinstance(s, torch.optim.lr_scheduler._LRScheduler)\n"
BOTH = "out = isinstance(s, (torch.optim.lr_scheduler._LRScheduler, torch.optim.lr_scheduler.ReduceLROnPlateau))\n"


def _schedulers() -> list[tuple[str, object]]:
    """One instance of every scheduler class torch 2.13 ships, of a class deriving from ``_LRScheduler``, and
    of things that are no schedulers."""
    from torch.optim import lr_scheduler as L

    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    made = {
        "LambdaLR": lambda: L.LambdaLR(opt, lambda e: 1.0), "MultiplicativeLR": lambda: L.MultiplicativeLR(
            opt, lambda e: 1.0), "StepLR": lambda: L.StepLR(opt, 1), "MultiStepLR": lambda: L.MultiStepLR(opt, [1]),
        "ConstantLR": lambda: L.ConstantLR(opt), "LinearLR": lambda: L.LinearLR(opt),
        "ExponentialLR": lambda: L.ExponentialLR(opt, 0.9), "PolynomialLR": lambda: L.PolynomialLR(opt),
        "CosineAnnealingLR": lambda: L.CosineAnnealingLR(opt, 10), "ReduceLROnPlateau": lambda: L.ReduceLROnPlateau(
            opt), "CyclicLR": lambda: L.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False),
        "CosineAnnealingWarmRestarts": lambda: L.CosineAnnealingWarmRestarts(opt, 2),
        "OneCycleLR": lambda: L.OneCycleLR(opt, max_lr=1.0, total_steps=10),
        "SequentialLR": lambda: L.SequentialLR(opt, [L.ConstantLR(opt), L.StepLR(opt, 1)], milestones=[1]),
        "ChainedScheduler": lambda: L.ChainedScheduler([L.ConstantLR(opt), L.StepLR(opt, 1)]),
    }
    shipped = {name for name, cls in vars(L).items() if inspect.isclass(cls) and issubclass(cls, L.LRScheduler)
               and name not in ("LRScheduler", "_LRScheduler")}
    assert shipped <= set(made), sorted(shipped - set(made))  # a scheduler a later torch adds is made here too

    class Warmup(L._LRScheduler):
        def get_lr(self):
            return [group["lr"] for group in self.optimizer.param_groups]

    return [(name, make()) for name, make in sorted(made.items())] + [
        ("a subclass of _LRScheduler", Warmup(opt)), ("an optimizer", opt), ("None", None)]


def _before_2_0(s: object, plateau_listed: bool = False) -> bool:
    """What the old check computed on torch < 2.0: every torch scheduler but ReduceLROnPlateau derived from
    _LRScheduler (and a class deriving from it); ReduceLROnPlateau only where the check listed it too."""
    from torch.optim import lr_scheduler as L

    if isinstance(s, L.ReduceLROnPlateau):
        return plateau_listed
    return isinstance(s, L.LRScheduler)  # on 2.13, the classes that derived from _LRScheduler before 2.0


@pytest.mark.differential("TU036")
@pytest.mark.parametrize("code, listed", [(CHECK, False), (BOTH, True)], ids=["alone", "with ReduceLROnPlateau"])
def test_the_check_says_what_it_said_before_2_0(code, listed):
    for name, scheduler in _schedulers():
        if name == "ReduceLROnPlateau" and not listed:
            continue  # the known difference: test_reduce_on_plateau_is_the_known_difference
        assert_matches_reference(code, lambda s: _before_2_0(s, listed), rules="TU036", low="1.13", s=scheduler)


def test_reduce_on_plateau_is_the_known_difference():
    from torch.optim import lr_scheduler as L

    plateau = dict(_schedulers())["ReduceLROnPlateau"]
    assert not isinstance(plateau, L._LRScheduler) and isinstance(plateau, L.LRScheduler)
