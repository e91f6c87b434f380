"""TU001 (``detect.checkers.int_division``): what raises on every torch from 1.7 is a warning, a true division that now
gives floats a change to know of (info)."""

from __future__ import annotations

from helpers import scan_code

CODE = """import torch


def f(n):
    x = torch.arange(10)
    half = x / 2
    x /= 2
    y = torch.zeros(3, dtype=torch.long)
    y.div_(n)
    torch.div(half, n, out=y)
    return half, x, y
"""


def test_what_raises_from_1_7_is_a_warning_and_a_true_division_info(tmp_path):
    result, _ = scan_code(tmp_path, CODE, "example.py", "1.5", "2.13", select=("TU001",))
    assert [(f.line, f.severity) for f in result.findings] == [(6, "info"), (7, "warning"), (9, "warning"),
                                                               (10, "warning")]
    assert "divides an integer tensor in place" in result.findings[1].message
    assert "writes a quotient into an integer tensor" in result.findings[3].message
