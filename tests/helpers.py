"""Shared test helpers: run the engine on code in a temporary directory."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Optional

import pytest
from packaging.version import InvalidVersion, Version

from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.engine.scan import scan
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import NEWEST, OLDEST, Window


def settings(low: Optional[str] = None, high: Optional[str] = None, **kw) -> Settings:
    return Settings(window=Window.of(low or OLDEST, high or NEWEST, "test"), **kw)


def scan_code(tmp_path: Path, code: str, name: str = "example.py", low=None, high=None, **kw):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code, encoding="utf-8")
    result = scan([tmp_path], settings(low, high, root=str(tmp_path), **kw))
    return result, path


def runner():
    """A click test runner as click >= 8.2 makes one: ``stdout`` and ``stderr`` apart, ``output`` both. Click 8.1,
    the newest on Python 3.9, mixes them into ``stdout`` unless told, and then its ``output`` is stdout alone."""
    from click.testing import CliRunner, Result

    try:
        CliRunner(mix_stderr=False)
    except TypeError:  # click >= 8.2
        return CliRunner()

    class _Result(Result):
        @property
        def output(self) -> str:
            return self.stdout + self.stderr

    class _Runner(CliRunner):
        def invoke(self, *args, **kw):  # type: ignore[override]
            result = super().invoke(*args, **kw)
            result.__class__ = _Result
            return result

    return _Runner(mix_stderr=False)


def cli(*args, **kw):
    """Run the CLI in-process with stdout and stderr kept apart."""
    from torch_upgrade.cli import main

    return runner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kw)


def window(low: Optional[str] = None, high: Optional[str] = None) -> dict:
    """The version window of ``settings(low, high)`` as public-API keywords (no detection from pins)."""
    return {"from_version": low or OLDEST, "to_version": high or NEWEST}


def installed_torch() -> Optional[Version]:
    """The installed torch's release (read from its metadata: torch is not imported), None without one."""
    try:
        return Version(Version(importlib.metadata.version("torch")).base_version)
    except (importlib.metadata.PackageNotFoundError, InvalidVersion):
        return None


def runs_the_old_form(rule_id: str) -> pytest.MarkDecorator:
    """For a test that runs a rule's old code on the installed torch (to compare the rewrite with it): skipped
    on a torch where that code no longer runs as it did - from the rule's ``removed`` release (or, for a
    behaviour change, its ``changed`` one), by the rule data. CI's torch (2.13) runs every such test; on
    2.14 and later the rewritten code itself still runs (tests/test_rewrites_run.py)."""
    rule = next(r for r in load_rules() if r.id == rule_id)
    gone = rule.removed or rule.changed
    installed = installed_torch()
    assert gone is not None, f"{rule_id} states no release that removed or changed its old form"
    return pytest.mark.skipif(installed is not None and installed >= gone,
                              reason=f"runs the old form of {rule_id}, which torch {gone} removed or changed "
                                     f"(installed: {installed}): run it on an older torch")


ADJACENT_USES = "def loss(m, p: dict, x):\n    return functional_call(m, p, (x,)), vmap(m), grad(m)\n"
ADJACENT = {  # imports two fixes give one module, on adjacent lines -> what --fix writes
    "from functorch import vmap, grad\nfrom torch.nn.utils.stateless import functional_call\n":
        "from torch.func import vmap, grad, functional_call\n",
    "from torch.nn.utils.stateless import functional_call\nfrom functorch import vmap, grad\n":
        "from torch.func import functional_call, vmap, grad\n",
    "from functorch import vmap\nfrom functorch import grad\nfrom torch.nn.utils.stateless import functional_call\n":
        "from torch.func import vmap, grad, functional_call\n",
    "if X:\n    from functorch import vmap, grad\n    from torch.nn.utils.stateless import functional_call\n":
        "if X:\n    from torch.func import vmap, grad, functional_call\n",
    # TUL202's style rewrite: `import torchvision.X as X` lines become one `from torchvision import` line
    "import torchvision.datasets as datasets\nimport torchvision.models as models\n"
    "import torchvision.transforms as transforms\nnet = models.resnet18()\n":
        "from torchvision import datasets, models, transforms\nnet = models.resnet18()\n",
    "from torchvision import datasets\nimport torchvision.models as models\nnet = models.resnet18()\n":
        "from torchvision import datasets, models\nnet = models.resnet18()\n",
    # a comment of the lower line's own, code between: each stays where it is
    "import torchvision.datasets as datasets\nimport torchvision.models as models  # nets\n":
        "from torchvision import datasets\nfrom torchvision import models  # nets\n",
    "if X:\n    from torchvision import datasets\n    # nets\n    import torchvision.models as models\n":
        "if X:\n    from torchvision import datasets\n    # nets\n    from torchvision import models\n",
    "from functorch import vmap, grad\nREADY = True\nfrom torch.nn.utils.stateless import functional_call\n":
        "from torch.func import vmap, grad\nREADY = True\nfrom torch.func import functional_call\n",
}
