"""``torch.profiler.profile(use_cuda=flag)``: drop ``use_cuda`` where it no longer does anything.

torch 1.8–1.10 built the recorded activities from ``activities`` (default: every activity the build
supports, ``supported_activities()``) and then added CUDA (``use_cuda=True``) or took it out
(``use_cuda=False``). The ``_KinetoProfile`` refactor kept that computation only for a deprecation
warning and an emptiness check: the profiler is built from the caller's ``activities`` (None: the
supported set), so ``use_cuda`` changes nothing it records (torch 2.13's source, and 2.x sources
before it; ``IGNORED_FROM`` is the release from which this is certain). There, dropping the argument
is exact; an explicit list is not (``[CPU]`` stops recording CUDA on a CUDA machine, ``[CPU, CUDA]``
adds CUDA on a CPU-only one). Where the project also supports older torch, no rewrite keeps what both
record: advice. With ``activities`` given, ``use_cuda=False`` could leave the check an empty set (an
``AssertionError`` in the old call), so only ``use_cuda=True`` is dropped there; a ``use_cuda`` that is
not a literal is advice too.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import parse_version
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

IGNORED_FROM = "2.0"

_WHAT = ("torch.profiler.profile's use_cuda is deprecated: torch 1.8-1.10 added CUDA to the recorded activities "
         "(use_cuda=True) or took it out (use_cuda=False), while later releases (certainly from torch " + IGNORED_FROM
         + ") only warn and record the activities they are given (by default every one the machine supports)")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if "use_cuda" not in keywords or len(keywords) != len(call.args):
        return None
    use_cuda = A.literal(keywords["use_cuda"])
    given = "activities" in keywords
    if not ctx.window.supports_from_start(parse_version(IGNORED_FROM)):
        raise Advice(_WHAT + f", so no rewrite records the same on both. To record what torch >= {IGNORED_FROM} "
                     "records, drop use_cuda; to record what torch 1.8-1.10 recorded, pass activities= "
                     + ("with ProfilerActivity.CUDA added (use_cuda=True) or removed (use_cuda=False)" if given else
                        "[ProfilerActivity.CPU, ProfilerActivity.CUDA] for use_cuda=True, "
                        "[ProfilerActivity.CPU] for use_cuda=False"))
    if not (use_cuda is None or isinstance(use_cuda, bool)):
        raise Advice(_WHAT + f": on torch >= {IGNORED_FROM} drop use_cuda (what it holds changes nothing recorded)")
    if given and use_cuda is not True:
        raise Advice(_WHAT + ", and with activities given, use_cuda=False raised AssertionError when activities "
                     "held only ProfilerActivity.CUDA: drop use_cuda where they hold another activity")
    args: list[A.Argument] = []
    for arg in call.args:
        assert arg.keyword is not None  # every argument is a keyword (checked above)
        if arg.keyword.value != "use_cuda":
            args.append((arg.keyword.value, arg.value))
    return A.replace(call, A.call(call.func, args))
