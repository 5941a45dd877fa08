"""Secrets never reach the store, whatever field or shape they come in: checked in the rows
themselves, on SQLite and PostgreSQL, and in what the tools answer. The secrets are fake."""

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.tools.support import rows, save, scalar

SECRET = "[REDACTED:secret-assignment]"


def fact(subject: str, predicate: str, obj: str) -> dict[str, str]:
    return {"subject": subject, "predicate": predicate, "object": obj}


def stored_facts(http: TestClient) -> list[tuple[str, str, str]]:
    return [tuple(row) for row in rows(http, "SELECT subject, predicate, object FROM facts")]


def test_a_fact_naming_a_password_is_stored_with_its_object_redacted(
    mcp: McpHttpClient, http: TestClient
) -> None:
    facts = [
        fact("prod db", "password", "FactPw!2024zz"),
        fact("staging db password", "is", "correct horse"),
        fact("shop", "token count", "5"),
    ]
    saved = mcp.text("save_memory", {"text": "Database notes", "facts": facts})
    assert saved == "Saved as #1 in shop. Redacted 2 secrets before saving."
    assert stored_facts(http) == [
        ("prod db", "password", SECRET),
        ("staging db password", "is", SECRET),
        ("shop", "token count", "5"),
    ]
    for answer in (
        mcp.text("fact_history", {"subject": "prod db"}),
        mcp.text("get_observations", {"ids": [1]}),
    ):
        assert "FactPw" not in answer and "horse" not in answer
    assert mcp.text("search", {"query": "FactPw"}).startswith("No matches.")


def test_work_state_items_under_secret_keys_are_redacted_whatever_their_shape(
    mcp: McpHttpClient, http: TestClient
) -> None:
    items: list[Any] = [
        {"password": "my secret pass phrase 42"},
        {"DB_PASSWORD": 12345678},
        {"deploy": {"env": [{"name": "API_TOKEN", "value": "WsTok"}], "credentials": ["u", "p"]}},
        "DB_PASS=WsDbPass9",
        {"task": "rotate keys", "done": False, "password_min_length": 12},
    ]
    saved = mcp.text("work_state_write", {"list": "todo", "items": items})
    assert saved == 'Saved list "todo" with 5 item(s) as #1. Redacted 5 secrets before saving.'
    stored = json.loads(scalar(http, "SELECT items_json FROM work_state_lists"))
    assert stored == [
        {"password": SECRET},
        {"DB_PASSWORD": SECRET},
        {"deploy": {"env": [{"name": "API_TOKEN", "value": SECRET}], "credentials": SECRET}},
        f"DB_PASS={SECRET}",
        {"task": "rotate keys", "done": False, "password_min_length": 12},
    ]
    read = mcp.text("work_state_read", {"list": "todo"})
    for value in ("pass phrase", "12345678", "WsTok", "WsDbPass9"):
        assert value not in read


def test_a_work_state_pair_of_a_secret_name_and_its_value_is_stored_redacted(
    mcp: McpHttpClient, http: TestClient
) -> None:
    items: list[Any] = [
        {"env": [["api_key", "WsPair7x"], ["region", "eu-west-1"]]},
        {"stripe": ["STRIPE_KEY", "WsStripe9z"]},
        {"env": "SECRET_TOKEN", "setting": "WsSet8y"},
        {"flags": ["SECRET_KEY", "DEBUG"]},
    ]
    saved = mcp.text("work_state_write", {"list": "todo", "items": items})
    assert saved == 'Saved list "todo" with 4 item(s) as #1. Redacted 3 secrets before saving.'
    stored = json.loads(scalar(http, "SELECT items_json FROM work_state_lists"))
    assert stored == [
        {"env": [["api_key", SECRET], ["region", "eu-west-1"]]},
        {"stripe": ["STRIPE_KEY", SECRET]},
        {"env": "SECRET_TOKEN", "setting": SECRET},
        {"flags": ["SECRET_KEY", "DEBUG"]},
    ]


def test_a_secret_in_a_list_name_is_redacted_and_the_list_still_reads_back(
    mcp: McpHttpClient, http: TestClient
) -> None:
    name = "deploy with ghp_" + "a1B2c3D4e5" * 4
    saved = mcp.text("work_state_write", {"list": name, "items": ["ship"]})
    assert saved == (
        'Saved list "deploy with [REDACTED:github-token]" with 1 item(s) as #1. '
        "Redacted 1 secret before saving."
    )
    assert scalar(http, "SELECT name FROM work_state_lists") == (
        "deploy with [REDACTED:github-token]"
    )
    assert "ship" in mcp.text("work_state_read", {"list": name})


def test_file_paths_holding_url_credentials_are_redacted(
    mcp: McpHttpClient, http: TestClient
) -> None:
    files = ["https://deploy:FilePw/55x@git.example.com/repo.git", "deploy/staging.sh"]
    saved = mcp.text("save_memory", {"text": "Where the deploy lives", "files": files})
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."
    assert sorted(path for (path,) in rows(http, "SELECT path FROM memory_files")) == [
        "deploy/staging.sh",
        "https://deploy:[REDACTED:url-password]@git.example.com/repo.git",
    ]
    assert "FilePw" not in mcp.text("get_observations", {"ids": [1]})


def test_a_dismissal_reason_is_stored_redacted(mcp: McpHttpClient, http: TestClient) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    reason = "old password: hunter22x"
    assert mcp.text("dismiss_memory", {"id": memory, "reason": reason}).startswith("Dismissed")
    assert scalar(http, "SELECT reason FROM dismissals") == f"old password: {SECRET}"


def test_a_recorded_session_request_is_stored_redacted(
    mcp: McpHttpClient, http: TestClient
) -> None:
    request = 'Log in with PASSWORD="correct horse battery staple" and Authorization: Basic dXNl'
    response = http.post("/api/requests", json={"request": request, "project": "shop"})
    assert response.status_code == 201, response.text
    assert scalar(http, "SELECT request FROM episodes") == (
        f'Log in with PASSWORD="{SECRET}" and Authorization: Basic [REDACTED:authorization]'
    )
    context = mcp.text("session_start_context")
    assert "horse" not in context and "dXNl" not in context


def test_rule_texts_are_stored_redacted(mcp: McpHttpClient, http: TestClient) -> None:
    then = "Call the API with Authorization: Token RuleTok0123456789"
    answer = mcp.text("add_rule", {"then": then, "when": "DB_PASS=RulePw7 is set"})
    assert answer.endswith("Redacted 2 secrets before saving.")
    assert [tuple(row) for row in rows(http, "SELECT when_text, then_text FROM rules")] == [
        (
            f"DB_PASS={SECRET} is set",
            "Call the API with Authorization: Token [REDACTED:authorization]",
        )
    ]
    listed = mcp.text("list_rules")
    assert "RuleTok" not in listed and "RulePw7" not in listed


def test_code_that_only_names_secrets_is_stored_as_written(
    mcp: McpHttpClient, http: TestClient
) -> None:
    code = "\n".join(
        [
            "user.password = hash_password(raw_password)",
            'api_key = os.environ["OPENAI_API_KEY"]',
            "password: ${DB_PASSWORD}",
            "old_pwd=$(pwd)",
            "token = get_token()",
            "secret = settings.secret",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        ]
    )
    assert mcp.text("save_memory", {"text": code, "title": "Auth code"}) == "Saved as #1 in shop."
    assert scalar(http, "SELECT text FROM memories") == code


@pytest.mark.parametrize(
    "text",
    [
        'PASSWORD="correct\nhorse battery"',  # the title joins the lines and finds it again
        "Deploy notes for the staging cluster, written down after the migration "
        + "password=hunter22x",
    ],
)
def test_one_secret_in_a_memory_saved_without_a_title_is_counted_once(
    mcp: McpHttpClient, text: str
) -> None:
    saved = mcp.text("save_memory", {"text": text})
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."
