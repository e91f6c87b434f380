"""Python 2 compatibility shims through torch._six: torch is imported for nothing else."""
import math
import torch


def is_int(n):
    return isinstance(n, torch._six.int_classes)


def infinity():
    return torch._six.inf
