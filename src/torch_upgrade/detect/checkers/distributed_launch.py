"""What ties a script to ``python -m torch.distributed.launch`` (deprecated in 1.9 for ``torchrun``).

Besides the module itself (matched by name in the rule data), two code-level signals:

- the launcher run as a command from Python: ``[..., "-m", "torch.distributed.launch", ...]``
  in a list or tuple, or a command string containing ``-m torch.distributed.launch``
  passed to a call (``subprocess.run``, ``os.system``); comments and docstrings are not code;
- a script that takes its local rank only from ``--local_rank`` / ``--local-rank``
  (``parser.add_argument("--local_rank", ...)``): ``torch.distributed.launch`` passes that
  argument (``--local-rank`` since 2.0), ``torchrun`` does not (it sets ``LOCAL_RANK`` in the
  environment). A file that mentions ``LOCAL_RANK`` (it reads the environment too) or whose
  argument's default reads the environment is compatible already and is not reported; the
  finding is ``likely`` (the script may be started by another launcher that passes the flag).
  Where the file never reads the argument itself but hands the parsed namespace on whole
  (``main(args)``) and another file of the project names ``LOCAL_RANK`` (MAE's scripts: the flag
  declared, the rank read from the environment in ``util/misc.py``), what takes the rank is out of
  sight and the project reads the variable torchrun sets: a ``possible`` finding only.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference, children
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.provenance import LIKELY, POSSIBLE

WORDS = ("torch.distributed.launch", ("local_rank", "add_argument"), ("local-rank", "add_argument"))
MODULE = "torch.distributed.launch"
FLAGS = ("--local_rank", "--local-rank")
_PARSERS = ("parse_args", "parse_known_args", "parse_intermixed_args")
READ, HANDED = "read", "handed"  # how the file may read the argument (``_may_be_read``)
ARGUMENT_MESSAGE = ("this script takes its local rank only from the --local_rank argument that torch.distributed.launch "
                    "(deprecated since torch 1.9) passes; torchrun does not pass it but sets LOCAL_RANK: read "
                    "int(os.environ['LOCAL_RANK']) (e.g. as the argument's default)")
HANDED_MESSAGE = ("this script declares the --local_rank argument that torch.distributed.launch (deprecated since "
                  "torch 1.9) passes and hands the parsed arguments on whole; another file of the project reads LOCAL_RANK, "
                  "which torchrun sets instead of passing the argument: if the code the arguments go to takes the "
                  "local rank from args.local_rank, read int(os.environ['LOCAL_RANK']) there")
COMMAND_MESSAGE = ("runs python -m torch.distributed.launch, deprecated since torch 1.9: use torchrun "
                   "(python -m torch.distributed.run), which sets LOCAL_RANK instead of passing --local_rank")


def _text(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value
    return None


def _mentions_local_rank_env(analysis: Analysis) -> bool:
    return any("LOCAL_RANK" in (_text(node) or "") for node in analysis.nodes(cst.SimpleString))


def _reads_environment(node: cst.CSTNode, refs: dict[int, Reference]) -> bool:
    stack = [node]
    while stack:
        item = stack.pop()
        ref = refs.get(id(item))
        if ref is not None and (ref.qualname or "").startswith(("os.environ", "os.getenv")):
            return True
        stack.extend(children(item))
    return False


def _argument_sites(analysis: Analysis, refs: dict[int, Reference]) -> list[tuple[Reference, cst.Call, str]]:
    out = []
    for ref in analysis.references:
        call, node = ref.call, ref.node
        if call is None or not isinstance(node, cst.Attribute) or node.attr.value != "add_argument":
            continue
        names = [_text(a.value) for a in call.args if a.keyword is None]
        if not any(name in FLAGS for name in names) or ref.guarded:
            continue
        default = next((a for a in call.args if a.keyword is not None and a.keyword.value == "default"), None)
        if default is not None and _reads_environment(default.value, refs):
            continue
        dest = _dest(call)
        how = _may_be_read(analysis, dest) if dest is not None else None
        if how is None:
            continue  # accepted and never read: the rank comes from elsewhere, or is not needed
        out.append((ref, call, how))
    return out


def _dest(call: cst.Call) -> Optional[str]:
    """The attribute an ``add_argument("--local_rank", ...)`` stores into (``dest=`` or the flag's)."""
    dest = next((_text(a.value) for a in call.args if a.keyword is not None and a.keyword.value == "dest"), None)
    return dest if dest is not None else "local_rank"


def _may_be_read(analysis: Analysis, dest: str) -> Optional[str]:
    """How the file may read the argument: READ, an attribute of that name (``args.local_rank``) or the name
    as a string (``getattr(args, "local_rank")``, ``vars(args)["local_rank"]``); HANDED, the parsed namespace
    handed whole to a call (``main(args)``, ``vars(args)``: what reads it there is not seen here); None, a
    script that only accepts the flag (the launcher would fail on an unknown one) and takes no rank from it."""
    if any(node.attr.value == dest for node in analysis.nodes(cst.Attribute) if isinstance(node, cst.Attribute)):
        return READ
    if any(_text(node) == dest for node in analysis.nodes(cst.SimpleString)):
        return READ
    return HANDED if _handed_on(analysis) else None


def _handed_on(analysis: Analysis) -> bool:
    """Whether the parsed namespace may be handed whole to code this file does not show."""
    parsed: set[str] = set()
    for node in analysis.nodes(cst.Call):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in _PARSERS):
            continue
        statement = analysis.parent(node)
        if isinstance(statement, cst.Return):  # def parse(): ... return parser.parse_args(); args = parse()
            statements = _assigned_from(analysis, statement)
            if statements is None:
                return True
        elif isinstance(statement, cst.Assign):
            statements = [statement]
        else:
            return True  # main(parser.parse_args()), self.args = ...: not followed
        for target in (t for s in statements for t in s.targets):
            names = target.target.elements if isinstance(target.target, (cst.Tuple, cst.List)) else [target.target]
            for name in names:
                value = name.value if isinstance(name, cst.Element) else name
                if not isinstance(value, cst.Name):
                    return True
                parsed.add(value.value)
    for node in analysis.nodes(cst.Call):  # the namespace passed on (train(args), vars(args))
        if isinstance(node, cst.Call) and any(isinstance(a.value, cst.Name) and a.value.value in parsed
                                              for a in node.args):
            return True
    return any(isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value in parsed
               for node in analysis.nodes(cst.Return))


def _assigned_from(analysis: Analysis, returned: cst.Return) -> Optional[list[cst.Assign]]:
    """The assignments of the calls of the module-level function whose ``return`` this is (gptoss'
    ``def _parse_args(): ... return parser.parse_args()`` / ``args = _parse_args()``); None where the
    function is not such a function or a call of it is not such an assignment (the result not followed)."""
    function = analysis.enclosing(returned, cst.FunctionDef)
    if not isinstance(function, cst.FunctionDef) or analysis.parent(function) is not analysis.module:
        return None
    name = function.name.value
    found: list[cst.Assign] = []
    for node in analysis.nodes(cst.Name):
        if not isinstance(node, cst.Name) or node.value != name or node is function.name:
            continue
        call = analysis.parent(node)
        statement = analysis.parent(call) if isinstance(call, cst.Call) and call.func is node else None
        if not isinstance(statement, cst.Assign) or statement.value is not call:
            return None
        found.append(statement)
    return found


def _command(node: cst.CSTNode) -> bool:
    """``["-m", "torch.distributed.launch"]`` elements in a list or tuple."""
    if not isinstance(node, (cst.List, cst.Tuple)):
        return False
    texts = [_text(e.value) if isinstance(e, cst.Element) else None for e in node.elements]
    return any(a == "-m" and b == MODULE for a, b in zip(texts, texts[1:]))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    refs = {id(r.node): r for r in analysis.references if r.qualname is not None}
    out: list[Hit] = []
    arguments = _argument_sites(analysis, refs)
    if arguments and not _mentions_local_rank_env(analysis):
        project = analysis.project
        for ref, added, how in arguments:
            # the namespace goes whole to code out of sight, and the project reads LOCAL_RANK there (MAE)
            elsewhere = how == HANDED and isinstance(project, FileIndex) and project.named_anywhere(("LOCAL_RANK",))
            message, confidence = (HANDED_MESSAGE, POSSIBLE) if elsewhere else (ARGUMENT_MESSAGE, LIKELY)
            out.append(Hit(rule, added, ref.statement, ref=ref, message=message, confidence=confidence))
    for ref in analysis.references:  # a command string given to a call
        call = ref.call
        if call is None or ref.qualname is None:
            continue
        for arg in call.args:
            text = _text(arg.value)
            if text is not None and f"-m {MODULE}" in text and not ref.guarded:
                out.append(Hit(rule, arg.value, ref.statement, ref=ref, message=COMMAND_MESSAGE))
    by_statement: dict[int, Reference] = {}
    for ref in analysis.references:
        by_statement.setdefault(id(ref.statement), ref)
    for node in analysis.nodes(cst.List, cst.Tuple):  # a command as a list of arguments, wherever it is built
        if _command(node):
            statement = analysis.enclosing(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) \
                or analysis.module
            # the statement's guard (a version-gated fallback for old torch) is its references'
            owner = by_statement.get(id(statement))
            if owner is None or not owner.guarded:
                out.append(Hit(rule, node, statement, ref=owner, message=COMMAND_MESSAGE))
    return out
