"""torchvision's legacy ``pretrained=`` weights: ``rules/torchvision/legacy_weights.toml``.

Since torchvision 0.13 a model builder takes ``weights=<Enum>.<member>``; ``pretrained=True`` still works
through a decorator that loads one fixed member, often not the enum's ``DEFAULT`` (``resnet50``:
``IMAGENET1K_V1``, where ``DEFAULT`` is ``IMAGENET1K_V2``). The table, generated from torchvision's
sources by ``rules/torchvision/make_legacy_weights.py``, says for each builder (under each public path)
which member ``pretrained=True`` and ``pretrained_backbone=True`` load, and what ``model_urls[key]`` was.
The TUV001-TUV004 rules read it through :func:`load_weights`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional

from torch_upgrade.catalog import prebuilt
from torch_upgrade.catalog.ruledata import read_toml, rules_dir
from torch_upgrade.core import toml as tomllib

WEIGHTS_FILE = "torchvision/legacy_weights.toml"  # in the rules directory (a ruledata.DATA_FILES name)
# where ``torch.hub.load("pytorch/vision", NAME)`` finds NAME (hubconf.py imports these builders)
HUB_MODULES = ("torchvision.models", "torchvision.models.segmentation", "torchvision.models.optical_flow")


class WeightsTableError(ValueError):
    """The table is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Member:
    """One weight: ``<module>.<enum>.<member>`` (``member`` None where there is none to name)."""

    enum: str
    module: str
    member: Optional[str]
    default: Optional[str] = None  # the enum's DEFAULT member

    @property
    def qualname(self) -> str:
        """The enum's import path (``torchvision.models.ResNet50_Weights``)."""
        return f"{self.module}.{self.enum}"

    @property
    def code(self) -> str:
        """``ResNet50_Weights.IMAGENET1K_V1`` (as ``get_weight`` and a builder's ``weights=`` string take it)."""
        return f"{self.enum}.{self.member}"

    @property
    def not_default(self) -> bool:
        """Whether ``weights="DEFAULT"`` loads other weights than this one."""
        return self.default is not None and self.member != self.default


@dataclass(frozen=True)
class Legacy:
    """What one legacy parameter (``pretrained``, ``pretrained_backbone``) loads when true."""

    new: str  # the parameter that replaces it: "weights", "weights_backbone"
    param: str  # "pretrained", "pretrained_backbone"
    plain: Optional[Member]  # what a true value loads (with quantize= false, for a quantized builder)
    quantize: Optional[Member] = None  # what it loads with a true quantize= (quantized builders)
    string: Optional[str] = None  # a string value that loads another member (keypointrcnn: "legacy")
    string_member: Optional[Member] = None
    raises: bool = False  # no legacy weights: a true value raises ValueError
    by: Optional[str] = None  # the enum is chosen by this argument's value (resnet_fpn_backbone)
    choices: Mapping[str, Member] = field(default_factory=dict)


@dataclass(frozen=True)
class Builder:
    name: str  # where it is defined: torchvision.models.resnet.resnet50
    paths: tuple[str, ...]
    source: str  # the decorator's file:line in the release the table was generated from
    parameters: tuple[str, ...]  # named parameters in order (what positional arguments bind to)
    legacy: tuple[Legacy, ...]  # weights first, then weights_backbone
    # the first torchvision release whose builder reads its legacy arguments so, where later than 0.13
    # (quantization's shufflenet_v2_x1_5 had no legacy decorator in 0.13; swin_t came in 0.14)
    since: Optional[str] = None

    def legacy_for(self, name: str) -> Optional[Legacy]:
        """The legacy parameter named ``name`` (``pretrained``), or None."""
        return next((item for item in self.legacy if item.param == name), None)


@dataclass(frozen=True)
class URLDict:
    """A ``model_urls`` / ``quant_model_urls`` dict of a model module (0.13-0.14)."""

    name: str  # torchvision.models.resnet.model_urls
    source: str
    kept: bool  # still there (deprecated) in the release the table was generated from
    keys: Mapping[str, Optional[Member]]  # None: the key's value was None (no weights)


@dataclass(frozen=True)
class WeightsTable:
    torchvision: str  # the release the builders were read from
    builders: Mapping[str, Builder]  # by every public path
    model_urls: Mapping[str, URLDict]  # by qualified name

    def builder(self, path: Optional[str]) -> Optional[Builder]:
        return self.builders.get(path) if path is not None else None

    def hub(self, name: str) -> Optional[Builder]:
        """The builder ``torch.hub.load("pytorch/vision", name)`` calls (hubconf.py's names)."""
        for module in HUB_MODULES:
            found = self.builders.get(f"{module}.{name}")
            if found is not None:
                return found
        return None

    def all(self) -> list[Builder]:
        """Each builder once, in the table's order."""
        return list({id(b): b for b in self.builders.values()}.values())


def _fail(entry: str, problem: str) -> WeightsTableError:
    return WeightsTableError(f"{WEIGHTS_FILE}: {entry}: {problem}")


def _member(raw: Any, entry: str, key: str = "legacy") -> Member:
    if not isinstance(raw, dict) or not isinstance(raw.get("enum"), str) or not isinstance(raw.get("module"), str):
        raise _fail(entry, "a weight needs 'enum' and 'module'")
    member = raw.get(key)
    if member is not None and not isinstance(member, str):
        raise _fail(entry, f"'{key}' must be a member's name")
    return Member(raw["enum"], raw["module"], member, raw.get("default"))


def _legacy(new: str, raw: Any, entry: str) -> Legacy:
    if not isinstance(raw, dict) or not isinstance(raw.get("param"), str):
        raise _fail(entry, f"'{new}' needs 'param'")
    where = f"{entry}.{new}"
    if raw.get("by") is not None:
        choices = raw.get("choices")
        if not isinstance(choices, dict) or not choices:
            raise _fail(where, "'by' needs 'choices'")
        return Legacy(new, raw["param"], None, by=str(raw["by"]),
                      choices={k: _member(v, f"{where}.choices.{k}") for k, v in choices.items()})
    raises = raw.get("raises") is True
    plain = _member(raw, where) if "enum" in raw else None
    if plain is None or (plain.member is None) != raises:
        raise _fail(where, "needs 'enum', 'module' and 'legacy' (or 'raises' without 'legacy')")
    quantize = _member(raw["quantize"], f"{where}.quantize") if "quantize" in raw else None
    string = raw.get("string")
    string_member = None
    if string is not None:
        if not isinstance(raw.get("string_legacy"), str):
            raise _fail(where, "'string' needs 'string_legacy'")
        string_member = Member(plain.enum, plain.module, raw["string_legacy"], plain.default)
    return Legacy(new, raw["param"], plain, quantize, string, string_member, raises)


def parse_weights(text: str) -> WeightsTable:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise WeightsTableError(f"{WEIGHTS_FILE}: invalid TOML: {exc}") from None
    return _weights(data)


def _weights(data: dict) -> WeightsTable:
    if not isinstance(data.get("torchvision"), str) or not isinstance(data.get("builders"), dict):
        raise WeightsTableError(f"{WEIGHTS_FILE}: needs 'torchvision' (its release) and [builders]")
    builders: dict[str, Builder] = {}
    for name, raw in data["builders"].items():
        entry = f"builders.{name}"
        paths, parameters = raw.get("paths"), raw.get("parameters")
        if not isinstance(paths, list) or not paths or not isinstance(parameters, list):
            raise _fail(entry, "needs 'paths' and 'parameters'")
        legacy = tuple(_legacy(new, raw[new], entry) for new in ("weights", "weights_backbone") if new in raw)
        if not legacy:
            raise _fail(entry, "names no legacy parameter")
        since = raw.get("since")
        if since is not None and not isinstance(since, str):
            raise _fail(entry, "'since' must be a release")
        builder = Builder(name, tuple(paths), str(raw.get("source", "")), tuple(parameters), legacy, since)
        for path in paths:
            if path in builders:
                raise _fail(entry, f"{path} is also {builders[path].name}")
            builders[path] = builder
    urls: dict[str, URLDict] = {}
    for name, raw in data.get("model_urls", {}).items():
        entry = f"model_urls.{name}"
        keys = raw.get("keys")
        if not isinstance(keys, dict):
            raise _fail(entry, "needs 'keys'")
        urls[name] = URLDict(name, str(raw.get("source", "")), raw.get("kept") is True,
                             {k: None if v.get("none") else _member(v, f"{entry}.{k}", "member")
                              for k, v in keys.items()})
    return WeightsTable(data["torchvision"], builders, urls)


def default_path() -> Path:
    return rules_dir() / WEIGHTS_FILE


@lru_cache(maxsize=1)
def load_weights() -> WeightsTable:
    """The shipped table (read once per process, by the rules that need it)."""
    try:  # the data of the table built with the wheel, where it has this file's bytes
        data = read_toml(default_path(), prebuilt.table(rules_dir()))
    except (OSError, UnicodeDecodeError) as exc:
        raise WeightsTableError(f"{WEIGHTS_FILE}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise WeightsTableError(f"{WEIGHTS_FILE}: invalid TOML: {exc}") from None
    return _weights(data)
