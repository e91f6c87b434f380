"""What a fix does to the parsed tree: node replacements and import moves.

These point into one parsed module and live only while a file is analysed;
``pipeline.unit.portable`` drops them from results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import libcst as cst


@dataclass
class Replace:
    """Replace one node (by identity) with another (a statement with several), or remove it."""

    node: cst.CSTNode
    new: Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]


@dataclass
class MoveImport:
    """Move ``alias`` out of the ``from ... import`` statement into ``from module import name``."""

    statement: cst.ImportFrom
    alias: cst.ImportAlias
    module: str
    name: str


Edit = Union[Replace, MoveImport]
