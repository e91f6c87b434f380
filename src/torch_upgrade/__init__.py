"""torch-upgrade: the upgrade advisor for PyTorch codebases."""

__version__ = "0.1.0"
