"""The Tensor-method forms of the linear-algebra rules get exactly the fixes of their function forms.

``B.solve(A)`` is ``torch.solve(B, A)``, ``A.symeig()`` is ``torch.symeig(A)``, and so on
(``rewrite/method_form.py``). Each case below writes one code shape once with the function and once
with the method; the two must give the same findings (message, fix, safety, reason) and the same
rewritten program: the receiver becomes the first argument, so the text is the same. Where the shape
is fixed, the rewritten program runs on the installed torch and must give what a NumPy reference of the
old function gives (``differential.run``, ``differential.allclose``, which compares dtypes, shapes and
exceptions through ``differential.same``). The shapes that matter most are the ones whose fix depends on
how the result is used: unpacking with ``_``, ``[0]``, ``.solution`` / ``.eigenvalues`` / ``.S``, a second
result nothing reads, and one that is read (advice, no fix).
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Optional

import libcst as cst
import numpy as np
import pytest

from differential import allclose, rewrite, run, same, torch
from helpers import installed_torch, settings as scan_settings
from torch_upgrade.api import scan_source
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A_
from torch_upgrade.rewrite.method_form import fix_method
from torch_upgrade.core.model import Fix
from torch_upgrade.syntax.analysis import Analysis, Reference

LOW, HIGH = "1.13", "2.13"  # every rewrite here is available from 1.13: the fixes are safe unless said
F64 = torch.float64


# ------------------------------------------------------------------ inputs and references
def _generator(seed: int) -> "torch.Generator":
    return torch.Generator().manual_seed(seed)


def general(rows: int, cols: int, seed: int) -> "torch.Tensor":
    return torch.randn(rows, cols, generator=_generator(seed), dtype=F64)


def well_conditioned(n: int, seed: int) -> "torch.Tensor":
    return general(n, n, seed) + 2 * n * torch.eye(n, dtype=F64)


def positive_definite(n: int, seed: int) -> "torch.Tensor":
    m = general(n, n, seed)
    return m @ m.T + n * torch.eye(n, dtype=F64)


def _np(t: "torch.Tensor") -> np.ndarray:
    return t.detach().numpy()


def _t(a: np.ndarray, dtype: "torch.dtype" = F64) -> "torch.Tensor":
    return torch.from_numpy(np.ascontiguousarray(a)).to(dtype)


def np_getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK getrf's result (L below the diagonal, U on and above it; 1-based row swaps), by partial
    pivoting: the largest magnitude in each column."""
    lu, n = a.copy(), a.shape[0]
    pivots = np.zeros(n, dtype=np.int32)
    for k in range(n):
        p = k + int(np.argmax(np.abs(lu[k:, k])))
        pivots[k] = p + 1
        lu[[k, p]] = lu[[p, k]]
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, pivots


def ref_solve(A, B):
    return _t(np.linalg.solve(_np(A), _np(B)))


def ref_eigenvalues(A):  # symeig reads the upper triangle by default
    return _t(np.linalg.eigh(_np(A), UPLO="U")[0])


def ref_eigh(A):  # eigenvectors up to sign: their magnitudes (the eigenvalues are distinct)
    values, vectors = np.linalg.eigh(_np(A), UPLO="U")
    return _t(values), _t(np.abs(vectors))


def ref_svd_u_s(A):  # U up to the signs of its columns (the singular values are distinct)
    u, s, _ = np.linalg.svd(_np(A), full_matrices=False)
    return _t(np.abs(u)), _t(s)


def ref_svd_v(A):  # V up to the signs of its columns (the singular values are distinct)
    _, _, vh = np.linalg.svd(_np(A), full_matrices=False)
    return _t(np.abs(vh.T))


def ref_singular_values(A):
    return _t(np.linalg.svd(_np(A), compute_uv=False))


def ref_triangular(A, B):
    return _t(np.linalg.solve(np.triu(_np(A)), _np(B)))


def ref_triangular_transposed_lower(A, B):  # upper=False, transpose=True: solve tril(A)^T X = B
    return _t(np.linalg.solve(np.tril(_np(A)).T, _np(B)))


def ref_lstsq(A, B):
    return _t(np.linalg.lstsq(_np(A), _np(B), rcond=None)[0])


def ref_qr(mode: str) -> Callable[..., Any]:
    def reference(A):  # Q and R up to the signs of Q's columns and R's rows
        q, r = np.linalg.qr(_np(A), mode=mode)
        return _t(np.abs(q)), _t(np.abs(r))
    return reference


def ref_cholesky(upper: bool) -> Callable[..., Any]:
    def reference(A):
        low = np.linalg.cholesky(_np(A))
        return _t(low.T if upper else low)
    return reference


def ref_lu(A):
    lu, pivots = np_getrf(_np(A))
    return _t(lu), _t(pivots, torch.int32)


def ref_lu_with_infos(A):
    lu, pivots = np_getrf(_np(A))
    return _t(lu), _t(pivots, torch.int32), torch.zeros((), dtype=torch.int32)


def ref_inverse(A):
    return _t(np.linalg.inv(_np(A)))


def ref_batched_solve(A, B):
    return _t(np.linalg.solve(_np(A), _np(B)))


INPUTS: dict[str, dict[str, "torch.Tensor"]] = {
    "square": {"A": well_conditioned(4, 1), "B": general(4, 2, 2)},
    "tall": {"A": general(6, 3, 3), "B": general(6, 2, 4)},
    "pd": {"A": positive_definite(4, 5)},
    "pd-rhs": {"A": positive_definite(4, 6), "B": general(4, 2, 7)},
    "batch": {"A": torch.stack([well_conditioned(3, 8), well_conditioned(3, 9)]),
              "B": torch.randn(2, 3, 1, generator=_generator(10), dtype=F64)},
}


# ------------------------------------------------------------------ the cases
@dataclass(frozen=True)
class Case:
    rule: str
    body: str  # module-level code; ``{c}`` is the call, in ``out`` what it computes
    function: str  # the call as the function
    method: str  # the same call as the method
    inputs: str = "square"  # INPUTS' key
    reference: Optional[Callable[..., Any]] = None  # the old function's ``out``; None: advice, no fix

    def code(self, form: str) -> str:
        names = INPUTS[self.inputs]
        lines = ["import torch\n"]
        for name, value in names.items():  # ranks the code states (torch.zeros): the rank-aware fixers need them
            shape = tuple(value.shape)
            lines.append(f"{name} = torch.zeros({shape!r}, dtype={name}_in.dtype)\n{name}.copy_({name}_in)\n")
        return "".join(lines) + self.body.replace("{c}", form) + "\n"

    def names(self) -> dict[str, "torch.Tensor"]:
        return {f"{name}_in": value for name, value in INPUTS[self.inputs].items()}

    def __str__(self) -> str:
        return f"{self.rule}:{self.body.replace('{c}', self.method)!r}"


IN_F = "def f(A: torch.Tensor, B: torch.Tensor):\n    {line}\n    return {result}\nout = f(A, B)"


def in_function(line: str, result: str) -> str:
    """``line`` in a function, its targets locals (a local nothing reads makes a safe fix)."""
    return IN_F.format(line=line, result=result)


CASES = [
    # TU201 torch.solve(B, A) / B.solve(A): the solution alone
    Case("TU201", "X, _ = {c}\nout = X", "torch.solve(B, A)", "B.solve(A)", reference=ref_solve),
    Case("TU201", "out = {c}[0]", "torch.solve(B, A)", "B.solve(A)", reference=ref_solve),
    Case("TU201", "out = {c}.solution", "torch.solve(B, A)", "B.solve(A)", reference=ref_solve),
    Case("TU201", "out = {c}.solution", "torch.solve(input=B, A=A)", "B.solve(A=A)", reference=ref_solve),
    Case("TU201", in_function("X, LU = {c}", "X"), "torch.solve(B, A)", "B.solve(A)", reference=ref_solve),
    Case("TU201", "X, LU = {c}\nout = X", "torch.solve(B, A)", "B.solve(A)", reference=ref_solve),  # unsafe
    Case("TU201", "X, LU = {c}\nout = (X, LU)", "torch.solve(B, A)", "B.solve(A)"),
    Case("TU201", "out = {c}[1]", "torch.solve(B, A)", "B.solve(A)"),
    Case("TU201", "out = {c}", "torch.solve(B, A)", "B.solve(A)"),
    # TU202 torch.symeig(A) / A.symeig(): the eigenvalues alone, or eigh
    Case("TU202", "w, _ = {c}\nout = w", "torch.symeig(A)", "A.symeig()", reference=ref_eigenvalues),
    Case("TU202", "out = {c}[0]", "torch.symeig(A)", "A.symeig()", reference=ref_eigenvalues),
    Case("TU202", "out = {c}.eigenvalues", "torch.symeig(A)", "A.symeig()", reference=ref_eigenvalues),
    Case("TU202", "out = {c}.eigenvalues", "torch.symeig(A, upper=True)", "A.symeig(upper=True)",
         reference=ref_eigenvalues),
    Case("TU202", "w, V = {c}\nout = (w, V.abs())", "torch.symeig(A, True)", "A.symeig(True)", reference=ref_eigh),
    Case("TU202", "w, V = {c}\nout = (w, V.abs())", "torch.symeig(A, eigenvectors=True)",
         "A.symeig(eigenvectors=True)", reference=ref_eigh),
    Case("TU202", in_function("w, v = {c}", "w"), "torch.symeig(A)", "A.symeig()"),  # the function form: no fix
    Case("TU202", "w, v = {c}\nout = v", "torch.symeig(A)", "A.symeig()"),
    Case("TU202", "out = {c}[1]", "torch.symeig(A)", "A.symeig()"),
    # TU220 torch.svd(A) / A.svd(): V unused
    Case("TU220", "U, S, _ = {c}\nout = (U.abs(), S)", "torch.svd(A)", "A.svd()", "tall", ref_svd_u_s),
    Case("TU220", "U, S, _ = {c}\nout = (U.abs(), S)", "torch.svd(A, some=True)", "A.svd(some=True)", "tall",
         ref_svd_u_s),
    Case("TU220", in_function("U, S, V = {c}", "(U.abs(), S)"), "torch.svd(A)", "A.svd()", "tall", ref_svd_u_s),
    Case("TU220", "_, S, _ = {c}\nout = S", "torch.svd(A)", "A.svd()", "tall", ref_singular_values),
    Case("TU220", "out = {c}[1]", "torch.svd(A)", "A.svd()", "tall", ref_singular_values),
    Case("TU220", "out = {c}.S", "torch.svd(A)", "A.svd()", "tall", ref_singular_values),
    Case("TU220", "_, S, _ = {c}\nout = S", "torch.svd(A, compute_uv=False)", "A.svd(compute_uv=False)", "tall",
         ref_singular_values),
    Case("TU220", "U, S, V = {c}\nout = V.abs()", "torch.svd(A)", "A.svd()", "tall", ref_svd_v),  # V = V.mH next
    Case("TU220", "U, S, V = {c}; out = V", "torch.svd(A)", "A.svd()", "tall"),  # no line of its own for V = V.mH
    Case("TU220", "out = {c}[2]", "torch.svd(A)", "A.svd()", "tall"),
    # TU211 torch.triangular_solve(B, A) / B.triangular_solve(A): the solution alone
    Case("TU211", "X, _ = {c}\nout = X", "torch.triangular_solve(B, A)", "B.triangular_solve(A)",
         reference=ref_triangular),
    Case("TU211", "out = {c}[0]", "torch.triangular_solve(B, A)", "B.triangular_solve(A)", reference=ref_triangular),
    Case("TU211", "out = {c}.solution", "torch.triangular_solve(B, A, upper=False, transpose=True)",
         "B.triangular_solve(A, upper=False, transpose=True)", reference=ref_triangular_transposed_lower),
    Case("TU211", in_function("X, M = {c}", "X"), "torch.triangular_solve(B, A)", "B.triangular_solve(A)"),
    Case("TU211", "X, M = {c}\nout = M", "torch.triangular_solve(B, A)", "B.triangular_solve(A)"),
    # TU207 torch.lstsq(B, A) / B.lstsq(A): the first A.size(1) rows of the solution
    Case("TU207", "out = {c}.solution[:A.size(1)]", "torch.lstsq(B, A)", "B.lstsq(A)", "tall", ref_lstsq),
    Case("TU207", "out = {c}[0][:A.shape[1]]", "torch.lstsq(B, A)", "B.lstsq(A)", "tall", ref_lstsq),
    Case("TU207", "X, _ = {c}\nout = X[:A.size(1)]", "torch.lstsq(B, A)", "B.lstsq(A)", "tall"),
    Case("TU207", "out = {c}.solution", "torch.lstsq(B, A)", "B.lstsq(A)", "tall"),
    # TU208 torch.eig(A) / A.eig(): always advice
    Case("TU208", "L, _ = {c}\nout = L", "torch.eig(A)", "A.eig()"),
    Case("TU208", "out = {c}.eigenvalues", "torch.eig(A)", "A.eig()"),
    Case("TU208", "L, V = {c}\nout = V", "torch.eig(A, True)", "A.eig(True)"),
    # TU204 torch.qr(A) / A.qr()
    Case("TU204", "Q, R = {c}\nout = (Q.abs(), R.abs())", "torch.qr(A)", "A.qr()", "tall", ref_qr("reduced")),
    Case("TU204", "Q, R = {c}\nout = (Q.abs(), R.abs())", "torch.qr(A, some=False)", "A.qr(some=False)", "tall",
         ref_qr("complete")),
    Case("TU204", "out = ({c}.Q.abs(), {c}[1].abs())", "torch.qr(A)", "A.qr()", "tall", ref_qr("reduced")),
    # TU203 torch.cholesky(A) / A.cholesky()
    Case("TU203", "out = {c}", "torch.cholesky(A)", "A.cholesky()", "pd", ref_cholesky(False)),
    Case("TU203", "out = {c}", "torch.cholesky(A, True)", "A.cholesky(True)", "pd", ref_cholesky(True)),
    # TU212 torch.lu(A) / A.lu()
    Case("TU212", "LU, piv = {c}\nout = (LU, piv)", "torch.lu(A)", "A.lu()", reference=ref_lu),
    Case("TU212", "out = {c}", "torch.lu(A, get_infos=True)", "A.lu(get_infos=True)", reference=ref_lu_with_infos),
    # TU213 torch.lu_solve(B, LU, pivots) / B.lu_solve(LU, pivots)
    Case("TU213", "LU, piv = torch.linalg.lu_factor(A)\nout = {c}", "torch.lu_solve(B, LU, piv)",
         "B.lu_solve(LU, piv)", reference=ref_solve),
    # the names removed before 1.6 (TU230-TU239), each like the function that replaced it
    Case("TU230", "X, _ = {c}\nout = X", "torch.gesv(B, A)", "B.gesv(A)", reference=ref_solve),
    Case("TU230", "out = {c}[0]", "torch.gesv(B, A)", "B.gesv(A)", reference=ref_solve),
    Case("TU231", "out = {c}", "torch.potrf(A)", "A.potrf()", "pd", ref_cholesky(True)),  # upper=True by default
    Case("TU231", "out = {c}", "torch.potrf(A, upper=False)", "A.potrf(upper=False)", "pd", ref_cholesky(False)),
    Case("TU232", "U = torch.linalg.cholesky(A, upper=True)\nout = {c}", "torch.potrs(B, U)", "B.potrs(U)",
         "pd-rhs", ref_solve),
    Case("TU233", "U = torch.linalg.cholesky(A, upper=True)\nout = {c}", "torch.potri(U)", "U.potri()", "pd",
         ref_inverse),
    Case("TU235", "X, _ = {c}\nout = X", "torch.trtrs(B, A)", "B.trtrs(A)", reference=ref_triangular),
    Case("TU236", "LU, piv = {c}\nout = (LU, piv)", "torch.btrifact(A)", "A.btrifact()", reference=ref_lu),
    Case("TU237", "out = {c}", "torch.btrifact_with_info(A)", "A.btrifact_with_info()",
         reference=ref_lu_with_infos),
    Case("TU238", "LU, piv = torch.linalg.lu_factor(A)\nout = {c}", "torch.btrisolve(B, LU, piv)",
         "B.btrisolve(LU, piv)", "batch", ref_batched_solve),
    Case("TU239", "out = {c}[0][:A.shape[1]]", "torch.gels(B, A)", "B.gels(A)", "tall", ref_lstsq),
]
FIXED = [case for case in CASES if case.reference is not None]
ADVICE = [case for case in CASES if case.reference is None]


def findings(code: str, rule: str) -> list[tuple[Any, ...]]:
    report = scan_source(code, from_version=LOW, to_version=HIGH, select=[rule])
    assert not report.errors
    return [(f.rule, f.line, f.confidence, f.message, f.fix and (f.fix.replacement, f.fix.safety, f.fix.reason,
                                                                  f.fix.needs, f.fix.imports))
            for f in report.findings if f.rule == rule]


def test_every_rule_whose_method_form_is_fixed_as_the_function_is_covered():
    covered = {case.rule for case in CASES}
    # the rules whose method form goes through the function's fixer (``detect.matching.fix_for``)
    with_method_form = {rule.id for rule in load_rules() if rule.fixer and rule.match.methods and rule.match.calls}
    assert with_method_form == covered, sorted(with_method_form ^ covered)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_method_form_gets_the_function_forms_finding(case: Case):
    function, method = findings(case.code(case.function), case.rule), findings(case.code(case.method), case.rule)
    assert function, f"the function form is not flagged:\n{case.code(case.function)}"
    assert method == function
    assert all((fix is not None) == (case.reference is not None) for *_, fix in method), method


@pytest.mark.parametrize("case", FIXED, ids=str)
def test_the_method_form_is_rewritten_as_the_function_form_and_runs_as_the_old_function(case: Case):
    fixed = rewrite(case.code(case.method), case.rule, LOW, HIGH)
    assert fixed == rewrite(case.code(case.function), case.rule, LOW, HIGH)
    assert f"{case.method}" not in fixed
    got = run(fixed, case.names())
    wanted = inspect.signature(case.reference).parameters
    expected = case.reference(**{name: value for name, value in INPUTS[case.inputs].items() if name in wanted})
    difference = allclose(1e-9, 1e-10)(expected, got)
    assert difference is None, f"{difference}\n{fixed}"


@pytest.mark.parametrize("case", ADVICE, ids=str)
def test_where_the_function_form_is_advice_so_is_the_method_form(case: Case):
    rewrite(case.code(case.function), case.rule, LOW, HIGH, changed=False)
    rewrite(case.code(case.method), case.rule, LOW, HIGH, changed=False)


def test_the_fixed_program_runs_as_the_unfixed_one_where_torch_still_has_it():
    """svd, qr and cholesky are in torch up to 2.13 (qr and cholesky raise from 2.14: those cases are left out
    there, by the rule data): the method call itself gives what its rewrite gives (the same kernels: bit for bit
    where the rule's fix is safe)."""
    installed = installed_torch()
    gone = {r.id for r in load_rules() if r.removed is not None and installed is not None and installed >= r.removed}
    for case in FIXED:
        if case.rule not in ("TU220", "TU204", "TU203") or case.rule in gone or \
                "svdvals" in rewrite(case.code(case.method), case.rule, LOW, HIGH):
            continue
        old = run(case.code(case.method), case.names())
        new = run(rewrite(case.code(case.method), case.rule, LOW, HIGH), case.names())
        assert same(old, new) is None, (str(case), same(old, new))


# ------------------------------------------------------------------ confidence and scope
def test_a_likely_receivers_fix_is_unsafe_and_otherwise_the_same():
    code = textwrap.dedent("""\
        import torch
        def f(flag, B):
            A = torch.eye(3) if flag else None
            if flag:
                A = torch.randn(3, 3)
            else:
                A = load()
            w, _ = {c}
            return w
        """)
    [method] = scan_source(code.replace("{c}", "A.symeig()"), from_version=LOW, to_version=HIGH).findings
    [function] = scan_source(code.replace("{c}", "torch.symeig(A)"), from_version=LOW, to_version=HIGH).findings
    assert method.confidence == "likely" and function.confidence == "certain"
    assert method.fix is not None and function.fix is not None
    assert method.fix.replacement == function.fix.replacement == 'w = torch.linalg.eigvalsh(A, UPLO="U")'
    assert function.fix.safety == "safe"
    assert method.fix.safety == "unsafe" and "likely" in method.fix.reason


def test_a_module_level_second_result_makes_both_forms_unsafe():
    case = Case("TU201", "X, LU = {c}\nout = X", "torch.solve(B, A)", "B.solve(A)")
    [(*_, fix)] = findings(case.code(case.method), "TU201")
    assert fix is not None and fix[1] == "unsafe" and "LU is a module-level name" in fix[2]


@pytest.mark.parametrize("line,read", [
    ("X, LU = {c}\n    print(LU)", True),
    ("X, LU = {c}\n    LU += 1", True),
    ("X, LU = {c}\n    return locals()", True),
    ("X, LU = {c}\n    del LU", True),
    ("X, LU = {c}\n    g = lambda: LU", True),
    ("X, LU = {c}\n    X = X + 1", False),
])
def test_the_second_result_is_read_the_same_way_in_both_forms(line: str, read: bool):
    for form in ("torch.solve(B, A)", "B.solve(A)"):
        body = line.replace("{c}", form)
        code = f"import torch\ndef f(A: torch.Tensor, B: torch.Tensor):\n    {body}\n    return X\n"
        fixes = [f.fix for f in scan_source(code, from_version=LOW, to_version=HIGH, select=["TU201"]).findings]
        assert len(fixes) == 1 and (fixes[0] is None) == read, (code, fixes)


def test_a_self_attribute_receiver_in_a_class():
    code = textwrap.dedent("""\
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.eye(3))
            def forward(self):
                U, S, _ = {c}
                return U, S
        """)
    method = findings(code.replace("{c}", "self.w.svd()"), "TU220")
    function = findings(code.replace("{c}", "torch.svd(self.w)"), "TU220")
    assert method == function and method[0][-1] is not None


# ------------------------------------------------------------------ what cannot be carried back
def _site(code: str, method: str) -> tuple[Reference, FixContext]:
    module = cst.parse_module(code)
    analysis = Analysis(module)
    [ref] = [r for r in analysis.references if r.call is not None and r.dotted.endswith("." + method)]
    [rule] = [r for r in load_rules() if r.id == "TU202"]
    return ref, FixContext(analysis, rule, scan_settings(LOW, HIGH).window, ref.scope)


def test_a_fix_that_keeps_the_stand_ins_function_name_is_not_carried_back():
    ref, ctx = _site("import torch\nw = A.symeig()[0]\n", "symeig")

    def keeps_the_name(site: Reference, _: FixContext) -> Optional[Fix]:
        assert site.call is not None
        return A_.replace(site.call, site.call.with_changes(args=site.call.args[:1]))
    assert fix_method(ref, ctx, "torch.symeig", keeps_the_name) is None


def test_a_fix_that_replaces_the_receiver_is_not_carried_back():
    ref, ctx = _site("import torch\nw = (A + A).symeig()[0]\n", "symeig")

    def replaces_the_receiver(site: Reference, _: FixContext) -> Optional[Fix]:
        assert site.call is not None
        return A_.replace(site.call.args[0].value, cst.Name("C"))
    assert fix_method(ref, ctx, "torch.symeig", replaces_the_receiver) is None


def test_a_fix_of_the_use_around_the_call_is_carried_back_to_the_method_calls_use():
    code = "import torch\nw = A.symeig(True)[0] + 1\n"
    ref, ctx = _site(code, "symeig")
    seen: list[Reference] = []

    def replaces_the_subscript(site: Reference, _: FixContext) -> Optional[Fix]:
        seen.append(site)
        parent = site.parent
        assert isinstance(parent, cst.Subscript) and parent.value is site.call
        return A_.replace(parent, cst.Name("eigenvalues"))
    fix = fix_method(ref, ctx, "torch.symeig", replaces_the_subscript)
    assert fix is not None
    [edit] = fix.edits
    assert isinstance(edit, Replace)
    assert A_.code(edit.node) == "A.symeig(True)[0]"
    assert ctx.analysis.parent(edit.node) is not None  # a node of the file's own tree
    [site] = seen
    assert A_.code(site.statement) == "w = torch.symeig(A, True)[0] + 1\n"
    assert site.node is ref.node and site.top is ref.top  # where the call is: the method call's place
