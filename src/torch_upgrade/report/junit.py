"""JUnit XML for CI test-report views (GitLab, Jenkins, Azure Pipelines, CircleCI).

One ``testsuite`` per scanned file; one ``testcase`` per finding, with a ``failure``
when the finding is at or above ``--fail-on`` (so the report fails exactly when the run
does: hints never, by default), an ``error`` per file that could not be analysed, and a
single passing testcase for a clean file, so the report shows what was checked.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict

from torch_upgrade.core.model import SEVERITY_ORDER, FileError, Finding, ScanResult
from torch_upgrade.report.concise import location
from torch_upgrade.report.fixview import changes


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    """Characters XML 1.0 cannot hold (form feeds, NULs in odd sources) become U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def _details(finding: Finding) -> str:
    lines = [f"{location(finding)}: {finding.rule_id} {finding.message}",
             f"severity: {finding.severity} ({finding.kind} in {finding.release_label})",
             f"confidence: {finding.confidence}"]
    if finding.snippet:
        lines += ["", *finding.snippet.split("\n")]
    if finding.fix is not None:
        found = changes(finding.fix)
        if found:
            lines += ["", f"fix ({finding.fix.safety}):"]
            for change in found:
                lines += [f"  {change.where()}: - {old}" for old in change.removed]
                lines += [f"  {change.where()}: + {new}" for new in change.added]
        else:
            lines += ["", f"fix ({finding.fix.safety}): {finding.fix.replacement}"]
        if finding.fix.reason:
            lines.append(f"why unsafe: {finding.fix.reason}")
    else:
        lines += ["", "no automatic fix: needs a person (torch-upgrade explain " + finding.rule_id + ")"]
    return _xml("\n".join(lines))


def render(result: ScanResult, *, fail_on: str = "info", **_: object) -> str:
    """Findings at or above ``fail_on`` (--fail-on) are failures, as they fail the run; the others
    are passing test cases that say what was found (in ``system-out``)."""
    floor = SEVERITY_ORDER[fail_on]
    findings: defaultdict[str, list[Finding]] = defaultdict(list)
    for f in result.findings:
        findings[f.path].append(f)
    errors: defaultdict[str, list[FileError]] = defaultdict(list)
    for e in result.errors:
        errors[e.path].append(e)
    paths = sorted(set([r.path for r in result.files] + list(findings) + list(errors)))  # as merged parts too
    root = ET.Element("testsuites", name="torch-upgrade")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for path in paths:
        suite = ET.SubElement(root, "testsuite", name=_xml(path))
        for f in findings[path]:
            where = f"cell {f.cell} line {f.line}" if f.cell is not None else f"line {f.line}"
            case = ET.SubElement(suite, "testcase", classname=_xml(path),
                                 name=f"{f.rule_id} {f.rule_name} ({where}, column {f.column})",
                                 file=_xml(path), line=str(f.line))
            if SEVERITY_ORDER[f.severity] >= floor:
                failure = ET.SubElement(case, "failure", type=f.severity, message=_xml(f"{f.rule_id}: {f.message}"))
                failure.text = _details(f)
            else:  # below --fail-on: reported, not failing (the run's exit code does not count it)
                ET.SubElement(case, "system-out").text = _details(f) + f"\n(below --fail-on {fail_on}: not a failure)"
        for e in errors[path]:
            case = ET.SubElement(suite, "testcase", classname=_xml(path), name="analyse file", file=_xml(path))
            ET.SubElement(case, "error", type="file-error", message=_xml(e.message)).text = _xml(e.message)
        if not findings[path] and not errors[path]:
            ET.SubElement(suite, "testcase", classname=_xml(path), name="no findings", file=_xml(path))
        failing = sum(1 for f in findings[path] if SEVERITY_ORDER[f.severity] >= floor)
        counts = {"tests": len(suite), "failures": failing, "errors": len(errors[path])}
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("skipped", "0")
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
