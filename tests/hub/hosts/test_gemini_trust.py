"""Gemini CLI's folder trust: the installer says what to do, doctor checks this folder."""

import json
from pathlib import Path

import pytest

from aletheia_hub.hosts import gemini_trust
from aletheia_hub.hosts.checks import host_findings
from tests.hub.hosts.conftest import Cli


def trust(home: Path, rules: dict[str, str]) -> None:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / gemini_trust.TRUST_FILE).write_text(json.dumps(rules))


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({}, False),
        ({"/work/shop": "TRUST_FOLDER"}, True),
        ({"/work": "TRUST_FOLDER"}, True),
        ({"/work/shop/app": "TRUST_PARENT"}, True),
        ({"/work": "TRUST_FOLDER", "/work/shop": "DO_NOT_TRUST"}, False),
        ({"/work/other": "TRUST_FOLDER"}, False),
    ],
)
def test_the_nearest_rule_decides_whether_a_folder_is_trusted(
    tmp_path: Path, rules: dict[str, str], trusted: bool
) -> None:
    trust(tmp_path, rules)
    assert gemini_trust.is_trusted(tmp_path, Path("/work/shop/src")) is trusted


def test_a_broken_trust_file_trusts_nothing(tmp_path: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    (tmp_path / gemini_trust.TRUST_FILE).write_text("{not json")
    assert gemini_trust.is_trusted(tmp_path, Path("/work")) is False


def test_install_and_doctor_tell_gemini_users_about_folder_trust(
    home: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    monkeypatch.chdir(project)
    installed = cli("install", "gemini-cli", "--write")
    assert installed.code == 0, installed.err
    assert "trust each project folder" in installed.out + installed.err
    finding = {f.name: f for f in host_findings(home)}["gemini-cli folder trust"]
    assert finding.status == "todo" and str(project) in finding.detail
    trust(home, {str(project): "TRUST_FOLDER"})
    finding = {f.name: f for f in host_findings(home)}["gemini-cli folder trust"]
    assert finding.status == "ok"
