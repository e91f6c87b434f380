"""1.6: ``torch.save`` writes the zipfile format, which torch < 1.6 cannot load.

Flags ``torch.save`` calls that do not choose a format; the rule only fires
when the project runs on torch < 1.6 today (a behaviour rule), i.e. when
files written after the upgrade may still be read by the old version.
"""

from __future__ import annotations

from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword

WORDS = (("torch", "save"),)


def check(analysis, rule, window):
    return [hit(rule, ref, analysis, window) for ref in calls(analysis, ("torch.save",))
            if not keyword(ref.call, "_use_new_zipfile_serialization") and not has_star_kwargs(ref.call)]
