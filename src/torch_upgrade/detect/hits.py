"""What a checker gives back for one file: rules matched at nodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.syntax.analysis import Reference


@dataclass
class Hit:
    """A rule matched at a node; becomes a Finding once positioned."""

    rule: Rule
    node: cst.CSTNode
    statement: cst.CSTNode
    ref: Optional[Reference] = None
    fix: Optional[Fix] = None
    message: Optional[str] = None
    confidence: str = "certain"  # that the code is what the rule is about (see syntax.provenance)
    # at most info: nothing breaks or warns here (an import in ``try: ... except ImportError:`` whose
    # uses change; legacy keywords given None, which take no deprecated path)
    quiet: bool = False
    # the release that makes the finding apply, where the checker knows it better than the rule's own
    # (TU980: the release from which the guard is decided, from the data that decides it)
    release: Optional[str] = None
    # whose release ``release`` is, and what happened there, where the checker knows them better than the rule
    # (TU981 on torchvision's version compared as a float: torchvision 0.10 changed the comparison's answer)
    library: Optional[str] = None
    kind: Optional[str] = None
    # a behaviour change that breaks this code: what the checker shows it does fails from the rule's release
    # on (TU803: a load of a file the code shows holds a pickled object, which weights_only=True refuses)
    breaks: bool = False
    # the release what an advice message writes needs, where later than the rule's ``requires`` (context.Advice)
    advice_requires: Optional[str] = None
    # the release the message's advice needs in place of the rule's ``requires``, where the checker advises
    # another replacement (TU051: torch.frombuffer, 1.10, for a storage's from_buffer, beside untyped_storage's 2.0)
    advice_instead: Optional[str] = None
    # the first release the code runs on where checks around it keep it from older ones (``Matcher._runs_on``):
    # its fix needs only what runs from there on
    runs_from: Optional[Version] = None
    # the form flagged is only deprecated where the rule's other forms are removed (TU108's stft(...,
    # return_complex=False), which warns on the target, beside the call without the keyword, which raises): a warning
    deprecated_only: bool = False

