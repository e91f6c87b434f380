"""torch-upgrade: the upgrade advisor for PyTorch codebases.

The public API (see ``torch_upgrade.api``): ``scan``, ``scan_source``, ``fix`` and ``upgrade``, returning a
:class:`Report` that mirrors the JSON report.
"""

from torch_upgrade.api import (
    Error,
    Finding,
    Fix,
    Report,
    TextEdit,
    UsageError,
    VersionWindow,
    fix,
    scan,
    scan_source,
    upgrade,
)
from torch_upgrade.core.meta import VERSION as __version__

__all__ = ["Error", "Finding", "Fix", "Report", "TextEdit", "UsageError", "VersionWindow", "__version__",
           "fix", "scan", "scan_source", "upgrade"]
