"""Property-based: for generated programs, fixing succeeds, the result compiles, and a second fix is a no-op.

Programs are assembled from the rules' own invalid examples and from small
templates of old API calls, through aliases, comments, blank lines, odd
whitespace, tab or space indentation, function bodies and CRLF line endings.
"""

from __future__ import annotations

import builtins
import functools
import symtable

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from helpers import settings
from torch_upgrade.pipeline.context import Context
from torch_upgrade.pipeline import unit as filescan
from torch_upgrade.syntax.parse import parse_module
from torch_upgrade.catalog.ruledata import load_rules

EXAMPLES = sorted({e.code for r in load_rules() if r.detect for e in r.invalid})
WINDOWS = ("1.6", "1.9", "2.0", "2.3", "2.4", "2.13")

IMPORTS = (
    "import torch", "import torch as {t}", "from torch.cuda.amp import autocast",
    "from torch.cuda.amp import autocast as ac, GradScaler", "from torch.cuda import amp", "import functorch",
    "from functorch import vmap, grad", "from torch.nn.utils.stateless import functional_call",
    "import numpy as np", "from torch import solve, qr",
)
CALLS = (
    "X, _ = {t}.solve({ws}B,{ws}A{ws})", "Q, R = {t}.qr({ws}A{ws})", "L = {t}.cholesky(A{ws})",
    "e, v = {t}.symeig(A, eigenvectors=True)", "Q, R = {t}.qr({t}.cholesky(A))",
    "with {t}.cuda.amp.autocast({ws}):\n{i}y = model(x)", "scaler = {t}.cuda.amp.GradScaler(init_scale=2.0**16)",
    "with autocast(enabled=False):\n{i}pass", "with ac():\n{i}pass", "s = GradScaler()", "f = vmap(fn)",
    "g = functorch.grad(fn)", "out = functional_call(m, p, (x,))", "ctx = autocast if flag else None",
    "with {t}.backends.cuda.sdp_kernel(enable_math=False):\n{i}pass", "X, _ = solve(B, A)", "Q, R = qr(A)",
    "y = {t}.rfft(x, 2)", "z = np.linalg.solve(a, b)", "@amp.autocast()\ndef h(x):\n{i}return x",
    "w = {t}.irfft(x, 1, signal_sizes=(4,))", "# torch.solve(B, A) in a comment", "s = 'torch.qr(A)'",
)
DECORATIONS = ("", "  # note", "  # torch-upgrade: ignore", "  # noqa: TU201")
SEPARATORS = ("\n", "\n\n", "\n# comment\n", "\n\n\n")


@functools.lru_cache(maxsize=None)
def context(low: str, unsafe: bool) -> Context:
    return Context.build(settings(low, fix=True, unsafe_fixes=unsafe))


def fix(code: str, low: str, unsafe: bool) -> tuple[str, int]:
    ctx = context(low, unsafe)
    module, applied = filescan.fix_module(parse_module(code), code, "generated.py", ctx)
    return module.code, applied


def indent(block: str, unit: str) -> str:
    return "".join(unit + line if line.strip() else line for line in block.splitlines(keepends=True))


@st.composite
def template_programs(draw) -> str:
    alias = draw(st.sampled_from(("torch", "th", "T")))
    unit = draw(st.sampled_from(("    ", "\t", "  ")))
    ws = draw(st.sampled_from(("", " ", "  ")))
    lines = [s.format(t=alias) for s in draw(st.lists(st.sampled_from(IMPORTS), max_size=5, unique=True))]
    if alias != "torch":
        lines.append(f"import torch as {alias}")
    body = []
    for template in draw(st.lists(st.sampled_from(CALLS), min_size=1, max_size=8)):
        statement = template.format(t=alias, ws=ws, i=unit)
        first, *rest = statement.split("\n")
        statement = "\n".join([first + draw(st.sampled_from(DECORATIONS)), *rest])
        if draw(st.booleans()):  # inside a function or a guard
            header = draw(st.sampled_from(("def f():", "if flag:", "class C:", "try:")))
            statement = header + "\n" + indent(statement, unit) + "\n" + unit + "pass"
            if header == "try:":
                statement += "\nexcept ImportError:\n" + unit + "pass"
        body.append(statement)
    return "\n".join(lines) + "\n" + draw(st.sampled_from(SEPARATORS)).join(body) + "\n"


@st.composite
def example_programs(draw) -> str:
    chunks = draw(st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=4))
    unit = draw(st.sampled_from(("    ", "\t")))
    out = []
    for k, chunk in enumerate(chunks):
        if draw(st.booleans()) and '"""' not in chunk and "'''" not in chunk:
            chunk = f"def part{k}():\n" + indent(chunk, unit) + unit + "pass\n"
        out.append(chunk)
    return draw(st.sampled_from(SEPARATORS)).join(out)


def undefined_globals(code: str) -> set[str]:
    """The global names the code reads that nothing binds at module level and that are no builtins: a fix
    that adds one (``torch.autocast`` written where another fix of the same pass dropped ``import torch``)
    makes code that raises NameError."""
    top = symtable.symtable(code, "module", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    read: set[str] = set()
    todo = [top]
    while todo:
        table = todo.pop()
        read |= {s.get_name() for s in table.get_symbols() if s.is_referenced() and (table is top or s.is_global())}
        todo += table.get_children()
    return read - bound - set(dir(builtins))


def check_fix_is_idempotent_and_compiles(code: str, low: str, unsafe: bool, crlf: bool) -> None:
    if crlf:
        code = code.replace("\n", "\r\n")
    compile(code, "original", "exec", dont_inherit=True)
    first, applied = fix(code, low, unsafe)
    compile(first, "fixed", "exec", dont_inherit=True)
    assert undefined_globals(first) <= undefined_globals(code), f"a name the fixed code reads is bound nowhere:\n{first}"
    second, again = fix(first, low, unsafe)
    assert (second, again) == (first, 0), f"second fix changed:\n{first}\n---\n{second}"
    if crlf:
        assert "\n" not in first.replace("\r\n", "")


PROPERTY = hsettings(max_examples=40, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(template_programs(), st.sampled_from(WINDOWS), st.booleans(), st.booleans())
def test_fixing_templates_is_idempotent_and_compiles(code, low, unsafe, crlf):
    check_fix_is_idempotent_and_compiles(code, low, unsafe, crlf)


@PROPERTY
@given(example_programs(), st.sampled_from(WINDOWS), st.booleans(), st.booleans())
def test_fixing_mixed_rule_examples_is_idempotent_and_compiles(code, low, unsafe, crlf):
    check_fix_is_idempotent_and_compiles(code, low, unsafe, crlf)


def test_a_helper_added_to_a_crlf_file_keeps_its_line_endings_inside_its_docstring():
    """hypothesis found it: assert_allclose's helper, whose docstring spans lines, was added to a CRLF file
    with bare LFs inside that docstring (a token LibCST writes as given)."""
    check_fix_is_idempotent_and_compiles(
        "import torch\ndef test_exp(x):\n    torch.testing.assert_allclose(torch.exp(x), 1.0)\n", "1.9", False, True)


def test_a_helper_two_fixes_add_is_added_once_however_each_fix_was_written_out():
    """asteroid 0.3.0's stft_test.py: of two assert_allclose calls, one spans two lines (its fix is a diff of
    the module's lines, the other's the text of the nodes replaced); each fix adds the helpers, and their
    two insertions, the same lines put before or after the blank lines, did not touch: both were applied,
    and the module defined the helpers twice."""
    code = ("import torch\n\n\ndef test_a(x, y):\n    torch.testing.assert_allclose(x.a, y.a)\n\n\n"
            "def test_b(x, y):\n    torch.testing.assert_allclose(x,\n                                  y)\n")
    first, applied = fix(code, "1.9", False)
    assert applied == 2 and "assert_allclose(" not in first
    assert first.count("def _allclose_inputs(") == first.count("def _allclose_tolerances(") == 1, first
    check_fix_is_idempotent_and_compiles(code, "1.9", False, False)


def test_the_helpers_go_below_imports_that_follow_a_sys_path_statement():
    """torchsde 0.2.1's tests set sys.path between `import sys` and `import torch`: the helpers go after the
    last import, not between the first import and the others; where a statement among the imports calls
    assert_allclose, before that statement (it runs when the module is imported)."""
    code = ('"""Tests."""\nimport sys\n\nsys.path = sys.path[1:]\n\nimport torch\nimport pytest\n\n'
            "torch.manual_seed(0)\n\n\ndef test_a(x, y):\n    torch.testing.assert_allclose(x, y)\n")
    first, applied = fix(code, "1.9", False)
    assert applied == 1
    assert first.index("import pytest\n") < first.index("def _allclose_tolerances(") \
        < first.index("torch.manual_seed(0)"), first
    check_fix_is_idempotent_and_compiles(code, "1.9", False, False)
    code = ("import torch\ntorch.testing.assert_allclose(torch.ones(1), torch.ones(1))\nimport pytest\n\n\n"
            "def test_a(x, y):\n    torch.testing.assert_allclose(x, y)\n")
    first, applied = fix(code, "1.9", False)
    assert first.index("def _allclose_inputs(") < first.index("assert_close(") < first.index("import pytest"), first


def test_undefined_globals_tells_a_name_the_fixed_code_reads_and_nothing_binds():
    before = "import torch\n\ndef f():\n    return torch.autocast('cuda')\n"
    after = "\ndef f():\n    return torch.autocast('cuda')\n"
    assert undefined_globals(before) == set() and undefined_globals(after) == {"torch"}
    assert undefined_globals("def f(x):\n    y = x\n    return print(y)\n") == set()
