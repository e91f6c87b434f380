"""Line/column positions, computed only for the nodes that produce findings."""

from __future__ import annotations

from typing import Iterable

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, CodeRange]:
    """Positions (1-based lines, 0-based columns) of ``nodes``, keyed by ``id(node)``."""
    wanted = {id(n) for n in nodes}
    if not wanted:
        return {}
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    table = wrapper.resolve(PositionProvider)
    return {id(node): rng for node, rng in table.items() if id(node) in wanted}
