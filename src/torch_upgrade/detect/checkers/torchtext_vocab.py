"""``build_vocab_from_iterator`` changed in torchtext 0.10 (TUT004): same name, another signature and result.

torchtext 0.9's ``build_vocab_from_iterator(iterator, num_lines=None)`` returned the old ``Vocab``
(``.stoi``, ``.itos``, ``.freqs``); 0.10's ``build_vocab_from_iterator(iterator, min_freq=1,
specials=None, special_first=True)`` returns the new one (``get_stoi()``, ``get_itos()``, no default
index). A call is reported where the code shows which API it was written for: ``num_lines=`` or a
second positional argument (0.9's ``num_lines``, 0.10's ``min_freq``), or a file that reads ``.stoi``,
``.itos`` or ``.freqs``. A call that passes ``min_freq=``, ``specials=`` or ``special_first=`` is
written for 0.10 and is never reported.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torchtext", "build_vocab_from_iterator"),)
BUILD = ("torchtext.vocab.build_vocab_from_iterator", "torchtext.vocab.vocab_factory.build_vocab_from_iterator")
NEW_KEYWORDS = ("min_freq", "specials", "special_first")
OLD_ATTRIBUTES = ("stoi", "itos", "freqs")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    old_reads: list[str] = []
    for ref, call in calls(analysis, BUILD, window, rule):
        if any(keyword(call, name) is not None for name in NEW_KEYWORDS) or any(a.star for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None]
        if keyword(call, "num_lines") is not None or len(positional) >= 2:
            out.append(hit(rule, ref, analysis, window, message=(
                "build_vocab_from_iterator's second argument was num_lines in torchtext 0.9 and is min_freq since "
                "0.10 (a number of lines passed there now drops every token seen fewer times): drop it, and read the "
                "new Vocab with get_stoi()/get_itos(), set_default_index(v['<unk>']) for unknown tokens")))
            continue
        if not old_reads:
            old_reads = sorted({r.node.attr.value for r in analysis.references
                                if isinstance(r.node, cst.Attribute) and r.node.attr.value in OLD_ATTRIBUTES
                                and r.call is None}) or ["-"]
        if old_reads != ["-"]:
            shown = ", ".join(f".{name}" for name in old_reads)
            out.append(hit(rule, ref, analysis, window, message=(
                f"build_vocab_from_iterator returns the new torchtext.vocab.Vocab since torchtext 0.10, and this file "
                f"reads {shown} (the old Vocab's): use v.get_stoi() / v.get_itos() (no .freqs: count with "
                "collections.Counter), and v.set_default_index(v['<unk>']) with specials=['<unk>'] (unknown tokens "
                "raise otherwise)")))
    return out
