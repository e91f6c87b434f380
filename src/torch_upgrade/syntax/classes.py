"""Which qualified names are instances' classes: torch class ``cls`` or one of its public subclasses.

Shared by the provenance model (``syntax.provenance``: is this receiver an instance of ``cls``?) and the
first pass (``detect.firstpass``: which words must a file have for that ever to be so). Imports nothing
heavy: the first pass runs before LibCST is loaded.
"""

from __future__ import annotations

# torch classes whose public subclasses are all the capitalized names of a namespace (nn.Linear is an
# nn.Module): the class, its namespace's prefix, and the names under it that are not subclasses
FAMILIES: dict[str, tuple[str, frozenset[str]]] = {
    "torch.nn.Module": ("torch.nn.", frozenset({
        "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.UninitializedParameter",
        "torch.nn.UninitializedBuffer", "torch.nn.Buffer"})),
    "torch.optim.Optimizer": ("torch.optim.", frozenset()),
    "torch.distributions.Distribution": ("torch.distributions.", frozenset({"torch.distributions.constraints"})),
}
_NOT_SUBCLASSES = ("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.")


def is_class(qualname: str, cls: str) -> bool:
    """Whether ``qualname`` names torch class ``cls`` or one of its public subclasses."""
    if qualname == cls:
        return True
    family = FAMILIES.get(cls)
    if family is None:
        return False
    prefix, excluded = family
    last = qualname.rsplit(".", 1)[-1]
    return qualname.startswith(prefix) and last[:1].isupper() and qualname not in excluded \
        and not qualname.startswith(_NOT_SUBCLASSES)


def class_words(cls: str) -> tuple[str, ...]:
    """The components every qualified name ``is_class(name, cls)`` accepts has: all of ``cls``'s, or, for
    a family, its namespace's (``torch``, ``nn`` for ``torch.nn.Module``: ``nn.Linear`` is one too)."""
    family = FAMILIES.get(cls)
    dotted = family[0].rstrip(".") if family is not None else cls
    return tuple(dict.fromkeys(dotted.split(".")))


# torch's profilers, and the classes of the events they record (``Provenance._events``; the first pass gives a
# member of an event class the words of a profiler too, ``detect.firstpass``)
PROFILERS = ("torch.autograd.profiler.profile", "torch.profiler.profile")
EVENT_CLASSES = frozenset({"torch.autograd.profiler_util.FunctionEvent", "torch.autograd.profiler.FunctionEvent",
                           "torch.autograd.profiler_legacy.FunctionEvent",
                           "torch.autograd.profiler_util.FormattedTimesMixin"})
