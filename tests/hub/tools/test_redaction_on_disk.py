"""Every secret shape, saved through every tool field that stores text, never reaches the bytes
of the SQLite file or its write-ahead log, and no answer echoes it. The secrets are fake."""

import json
import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from bench.redaction import corpus
from tests.helpers import McpHttpClient
from tests.hub.test_redact_families import ISSUE_23
from tests.team.conftest import issue_token, table_rows

PEM_LINES = [f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{n}" + "PemBodyLine" * 3 for n in range(4)]
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "DiskKey123"
XAPP = "xapp-1-A0123456789-1234567890123-" + "DiskSlackApp" * 4

# (where it goes, the text written, the secret values that must not be stored)
MEMORY_TEXTS: list[tuple[str, list[str]]] = [
    ("key:\n-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n", PEM_LINES),
    ("DATABASE_URL=postgres://app:Slash/Pw66x@db/app", ["Slash/Pw66x", "Pw66x"]),
    ('PASSWORD="correct horse battery staple"', ["correct horse battery staple", "battery"]),
    ("password: 'two secret words'", ["two secret words"]),
    ('{"password": "my secret pass phrase 42"}', ["pass phrase 42"]),
    ("DB_PASS=DbPassVal4411", ["DbPassVal4411"]),
    ("password NetrcPw8812", ["NetrcPw8812"]),
    ("machine build.example.com login ci password NetrcMachPw3", ["NetrcMachPw3"]),
    ("ADMIN_PASSWORD=hunt2", ["hunt2"]),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNz'", ["dXNlcjpwYXNz"]),
    ("Authorization: Token TokHdr0123456789", ["TokHdr0123456789"]),
    (f"The AWS secret key is {AWS_SECRET}", [AWS_SECRET]),
    (f"Socket mode uses {XAPP}", [XAPP]),
]
FACT_SECRET = "FactPw!2024zz"
ITEM_SECRETS = ["WsPassVal771", "WsDbPw882", "WsNestedTok993", "WsEnvVal404"]
FILE_SECRET = "FileUrlPw55"
TITLE_SECRET = "TitlePw77"
REASON_SECRET = "hunter22x"
RULE_SECRETS = ["RuleTokHdr98765", "RuleWhenPw31"]
REQUEST_SECRET = "request pass phrase 9"


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """This suite reads the SQLite file itself."""
    return f"sqlite:///{tmp_path / 'hub.db'}"


def call(mcp: McpHttpClient, answers: list[str], name: str, arguments: dict[str, object]) -> str:
    answer, is_error = mcp.call_tool(name, arguments)
    assert not is_error, answer
    answers.append(answer)
    return answer


def every_secret() -> list[str]:
    secrets = [value for _, values in MEMORY_TEXTS for value in values]
    secrets += [FACT_SECRET, *ITEM_SECRETS, FILE_SECRET, TITLE_SECRET, REASON_SECRET]
    return [*secrets, *RULE_SECRETS, REQUEST_SECRET]


def save_every_shape(mcp: McpHttpClient, http: TestClient) -> list[str]:
    """Store each secret through the field it belongs in; returns every answer."""
    answers: list[str] = []
    for index, (text, _) in enumerate(MEMORY_TEXTS):
        call(mcp, answers, "save_memory", {"text": text, "title": f"shape {index}"})
    call(
        mcp,
        answers,
        "save_memory",
        {
            "text": "Production database",
            "title": f"prod db, DB_PASSWORD={TITLE_SECRET}",
            "files": [f"https://deploy:{FILE_SECRET}@git.example.com/repo.git"],
            "facts": [{"subject": "prod db", "predicate": "password", "object": FACT_SECRET}],
        },
    )
    items = [
        {"password": ITEM_SECRETS[0]},
        {"DB_PASSWORD": ITEM_SECRETS[1]},
        {"deploy": [{"steps": {"token": ITEM_SECRETS[2]}}]},
        {"env": [{"name": "API_KEY", "value": ITEM_SECRETS[3]}]},
    ]
    call(mcp, answers, "work_state_write", {"list": "todo", "items": items})
    old = call(mcp, answers, "save_memory", {"text": "Staging needs the VPN"})
    assert old.startswith(f"Saved as #{len(MEMORY_TEXTS) + 3} ")
    reason = f"old password: {REASON_SECRET}"
    call(mcp, answers, "dismiss_memory", {"id": len(MEMORY_TEXTS) + 3, "reason": reason})
    call(
        mcp,
        answers,
        "add_rule",
        {
            "then": f"Send Authorization: Token {RULE_SECRETS[0]}",
            "when": f"DB_PASS={RULE_SECRETS[1]} is set",
        },
    )
    response = http.post(
        "/api/requests",
        json={"request": f'Use PASSWORD="{REQUEST_SECRET}" for staging', "project": "shop"},
    )
    assert response.status_code == 201, response.text
    answers.append(response.text)
    return answers


def test_no_secret_reaches_the_sqlite_file_or_its_wal(
    mcp: McpHttpClient, http: TestClient, tmp_path: Path
) -> None:
    answers = save_every_shape(mcp, http)
    reads: list[tuple[str, dict[str, object]]] = [
        ("get_observations", {"ids": list(range(1, len(MEMORY_TEXTS) + 2))}),
        ("fact_history", {"subject": "prod db", "include_superseded": True}),
        ("work_state_read", {"list": "todo"}),
        ("list_rules", {}),
        ("session_start_context", {}),
    ]
    for name, arguments in reads:
        call(mcp, answers, name, arguments)
    files = [tmp_path / "hub.db", tmp_path / "hub.db-wal"]
    assert all(path.exists() for path in files)
    stored = b"".join(path.read_bytes() for path in files)
    assert b"[REDACTED:" in stored
    for secret in every_secret():
        assert secret.encode() not in stored, secret
        assert all(secret not in answer for answer in answers), secret


def test_issue_23_shapes_never_reach_the_sqlite_file_or_its_wal(
    mcp: McpHttpClient, http: TestClient, tmp_path: Path
) -> None:
    """Each shape issue 23 found stored, saved as a memory and as work-state items under a
    sibling key that names a secret, as the issue wrote them."""
    answers: list[str] = []
    for index, (written, secret, _) in enumerate(ISSUE_23):
        text = written.format(secret)
        call(mcp, answers, "save_memory", {"text": f"Deploy notes {index}:\n{text}"})
    stripe, api_key = "StripeWsKey" + "4f" * 12, "ApiWsKey" + "9c" * 12
    items = [{"key": "STRIPE_KEY", "value": stripe}, {"k": "api_key", "v": api_key}]
    saved = call(mcp, answers, "work_state_write", {"list": "env", "items": items})
    assert saved.endswith("Redacted 2 secrets before saving."), saved
    call(mcp, answers, "work_state_read", {"list": "env"})
    files = [tmp_path / "hub.db", tmp_path / "hub.db-wal"]
    stored = b"".join(path.read_bytes() for path in files if path.exists())
    assert b"[REDACTED:cli-password]" in stored and b"[REDACTED:pgpass-password]" in stored
    for secret in [*(secret for _, secret, _ in ISSUE_23), stripe, api_key]:
        assert secret.encode() not in stored, secret
        assert all(secret not in answer for answer in answers), secret


# --- the generated corpus, through a team hub: file, WAL, audit rows, logs, error answers ------


def corpus_sample() -> list[tuple[str, str]]:
    """(text, secret) for one case of every secret kind of bench/redaction.py, in each place."""
    seen: set[tuple[str, str]] = set()
    sample = []
    for case in corpus(seed=11, rounds=1):
        if case.secret is not None and (case.kind, case.place) not in seen:
            seen.add((case.kind, case.place))
            sample.append((case.text, case.secret))
    return sample


def test_corpus_secrets_never_reach_the_store_audit_rows_logs_or_error_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    _id, admin = issue_token(url, "admin")
    sample = corpus_sample()
    answers: list[str] = []
    caplog.set_level(logging.DEBUG)
    settings = Settings(database_url=url, team_mode=True, rate_limit_per_minute=10_000)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        mcp = McpHttpClient(http, "/mcp", project="shop", tool="tests", token=admin)
        mcp.initialize()
        for text, _secret in sample:
            answers.append(mcp.text("save_memory", {"text": text[:20_000]}))
        for text, _secret in sample[:40]:
            # Calls that fail: an unknown tool or method named by the secret, a bad argument.
            for message in (
                {"name": text, "arguments": {}},
                {"name": "save_memory", "arguments": {"text": text, "nope": text}},
                {"name": "save_memory", "arguments": {"text": 5, "title": text * 40}},
            ):
                answers.append(json.dumps(mcp.request("tools/call", message)))
            answers.append(json.dumps(mcp.request(text[:300])))
        answers.append(http.get("/metrics", headers={"Authorization": f"Bearer {admin}"}).text)
    stored = b"".join(
        path.read_bytes() for path in tmp_path.iterdir() if path.name.startswith("team.db")
    )
    audit = json.dumps(table_rows(url, "audit_log"), default=str)
    logs = "\n".join(record.getMessage() for record in caplog.records)
    for _text, secret in sample:
        assert secret.encode() not in stored, secret
        assert secret not in audit, secret
        assert secret not in logs, secret
        assert all(secret not in answer for answer in answers), secret
