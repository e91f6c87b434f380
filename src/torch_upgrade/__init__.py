"""torch-upgrade: the upgrade advisor for PyTorch codebases."""

from torch_upgrade.core.meta import VERSION as __version__

__all__ = ["__version__"]
