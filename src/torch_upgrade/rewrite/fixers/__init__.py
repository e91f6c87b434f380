"""Python fixers: one small module per rule that needs argument remapping.

Each module exposes ``fix(ref, ctx) -> Fix | None``: ``ref`` is the matched
reference (``ref.call`` is the call when the name is called) and ``ctx`` a
:class:`torch_upgrade.rewrite.context.FixContext`. Returning ``None`` means "flag, but
no mechanical rewrite for this sub-case".
"""
