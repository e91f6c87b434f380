"""A target beyond the newest release the catalog knows is accepted, with a note saying that
what changed after that release is not checked (stderr, the JSON report's notes, the API)."""

from __future__ import annotations

import json

import torch_upgrade
from helpers import cli
from torch_upgrade.core.versions import NEWEST

NOTE = (f"the target torch 3.0 (--to) is beyond the newest release the catalog knows, {NEWEST}: "
        f"changes made after torch {NEWEST} are not checked")


def test_to_beyond_the_catalog_is_a_note(project):
    result = cli("scan", ".", "--to", "3.0", "--format", "json")
    assert result.exit_code == 1  # the findings are still reported
    assert f"torch-upgrade: note: {NOTE}" in result.stderr
    data = json.loads(result.stdout)
    assert NOTE in data["notes"] and data["window"]["to"] == "3.0"
    assert data["findings"]
    sarif = json.loads(cli("scan", ".", "--to", "3.0", "--format", "sarif").stdout)
    assert {"level": "note", "message": {"text": NOTE}} in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert "note:" not in cli("scan", ".", "--to", "3.0", "--quiet").stderr


def test_the_newest_release_and_below_need_no_note(project):
    for target in (NEWEST, "2.5"):
        result = cli("scan", ".", "--to", target, "--format", "json")
        assert "beyond the newest release" not in result.stderr
        assert json.loads(result.stdout)["notes"] == []


def test_a_configs_target_is_named(project):
    (project / "torch-upgrade.toml").write_text('to = "2.20"\n')
    result = cli("scan", ".", "--format", "concise")
    assert (f"note: the target torch 2.20 ('to' in torch-upgrade.toml) is beyond the newest release the catalog "
            f"knows, {NEWEST}") in result.stderr


def test_the_api_reports_it_in_the_notes(project):
    report = torch_upgrade.scan(".", to_version="3.0")
    assert NOTE in report.notes
    assert NOTE in torch_upgrade.scan_source("import torch\n", to_version="3.0").notes
