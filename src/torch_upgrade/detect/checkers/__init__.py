"""Checkers: rules whose detection is more than matching names.

A checker module may define ``check(analysis, rule, window) -> list[Hit]``
(per-file findings), and ``collect(analysis, rule, window) -> dict | None``
plus ``project(facts, rule, window)`` for advice about the whole project,
reported once. A fact names a place as ``{"node": node, ...}`` (the fact itself or
dicts inside it); the engine turns the node into ``position``/``snippet``/``suppressed``,
and ``project`` yields ``(path, that dict, message)``. ``WORDS`` lists the text the prefilter must see in a file: one of its
entries, a word or a tuple of words that must all appear (default: ``torch``). A ``check`` hit
may carry its own fix (``Matcher.match`` decides its safety for the window through ``catalog.policy``);
such a rule declares its ``safety`` without a ``fixer``. ``_flow`` (straight-line
data flow in a function) and ``_sites`` (call qualnames, constructed classes) are
shared helpers.
"""
