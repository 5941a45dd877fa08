"""Redaction of the shapes the store keeps besides plain text: JSON items and facts.

A key or a predicate that names a secret makes its whole value one; the example values are fake.
"""

import pytest

from aletheia_hub.redact import (
    SECRET_VALUE,
    Redacted,
    RedactedJson,
    names_secret,
    redact_fact,
    redact_json,
)

GITHUB = "ghp_" + "a1B2c3D4e5" * 4


@pytest.mark.parametrize(
    "key",
    [
        "password",
        "DB_PASSWORD",
        "db_pass",
        "dbPass",
        "apiKey",
        "api key",
        "client_secret",
        "GITHUB_TOKEN",
        "credentials",
        "Authorization",
        "prod db password",
    ],
)
def test_keys_that_name_a_secret(key: str) -> None:
    assert names_secret(key)


@pytest.mark.parametrize(
    "key",
    [
        "password_hash",
        "password_min_length",
        "token_count",
        "max_tokens",
        "tokenizer",
        "bypass",
        "compass",
        "secret_santa",
        "user",
        "password policy",
    ],
)
def test_keys_that_only_mention_a_secret(key: str) -> None:
    assert not names_secret(key)


def test_a_value_under_a_secret_key_is_redacted_whatever_its_shape() -> None:
    items = [
        {"password": "my secret pass phrase 42"},
        {"DB_PASSWORD": 12345678},
        {"credentials": {"user": "jane", "pass": "hunt2"}},
        {"tokens": ["a1", "b2"]},
        {"apiKey": "k"},
    ]
    assert redact_json(items) == RedactedJson(
        [
            {"password": SECRET_VALUE},
            {"DB_PASSWORD": SECRET_VALUE},
            {"credentials": SECRET_VALUE},
            {"tokens": ["a1", "b2"]},  # `tokens` names no secret: its strings are only scanned
            {"apiKey": SECRET_VALUE},
        ],
        4,
    )


def test_nested_lists_and_objects_are_redacted_all_the_way_down() -> None:
    item = {"deploy": [{"steps": [{"env": {"DB_PASS": "x9"}}, f"push with {GITHUB}"]}]}
    assert redact_json(item) == RedactedJson(
        {
            "deploy": [
                {"steps": [{"env": {"DB_PASS": SECRET_VALUE}}, "push with [REDACTED:github-token]"]}
            ]
        },
        2,
    )


def test_a_name_value_pair_naming_a_secret_hides_its_value() -> None:
    env = [{"name": "API_TOKEN", "value": "abc"}, {"name": "REGION", "value": "eu-west-1"}]
    assert redact_json(env) == RedactedJson(
        [{"name": "API_TOKEN", "value": SECRET_VALUE}, {"name": "REGION", "value": "eu-west-1"}],
        1,
    )


def test_keys_are_redacted_too() -> None:
    assert redact_json({f"token {GITHUB}": "ok"}) == RedactedJson(
        {"token [REDACTED:github-token]": "ok"}, 1
    )


def test_flags_placeholders_and_empty_values_under_secret_keys_are_left_alone() -> None:
    item: dict[str, object] = {
        "password": None,
        "requires_password": True,
        "token": "",
        "api_key": "${API_KEY}",
        "secret": "<from the vault>",
        "credentials": {},
        "password_min_length": 12,
        "token_count": 5,
    }
    assert redact_json(item) == RedactedJson(item, 0)


def test_plain_values_pass_through() -> None:
    assert redact_json([1, 2.5, True, None, "ship docs"]) == RedactedJson(
        [1, 2.5, True, None, "ship docs"], 0
    )


@pytest.mark.parametrize(
    ("subject", "predicate"),
    [
        ("prod db", "password"),
        ("prod db password", "is"),
        ("prod db", "admin password ="),
        ("prod db password", "value"),
        ("billing", "api key"),
        ("ci", "deploy token"),
    ],
)
def test_a_fact_naming_a_secret_has_its_object_redacted(subject: str, predicate: str) -> None:
    clean = redact_fact(subject, predicate, "FactPw!2024 zz")
    assert clean == (Redacted(subject, 0), Redacted(predicate, 0), Redacted(SECRET_VALUE, 1))


def test_a_secret_in_any_part_of_a_fact_is_redacted() -> None:
    clean = redact_fact(f"bot {GITHUB}", "uses", f"token {GITHUB}")
    assert [part.text for part in clean] == [
        "bot [REDACTED:github-token]",
        "uses",
        "token [REDACTED:github-token]",
    ]
    assert sum(part.count for part in clean) == 2


@pytest.mark.parametrize(
    ("subject", "predicate", "obj"),
    [
        ("shop", "package manager", "pnpm"),
        ("password policy", "requires", "12 characters"),
        ("login", "password hashing", "argon2id"),
        ("shop", "token count", "5"),
        ("prod db", "password", "${DB_PASSWORD}"),
        ("prod db", "password", "none"),
    ],
)
def test_facts_that_only_mention_a_secret_are_left_alone(
    subject: str, predicate: str, obj: str
) -> None:
    assert redact_fact(subject, predicate, obj) == (
        Redacted(subject, 0),
        Redacted(predicate, 0),
        Redacted(obj, 0),
    )
