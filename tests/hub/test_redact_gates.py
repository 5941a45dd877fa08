"""The gates in front of the redaction patterns skip only patterns that cannot match: every
text a pattern matches passes all its gates, so redact() answers exactly as running every
pattern would, Unicode case rules (ſ, K, İ, ı) included."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia_hub.redact import PATTERNS, Redacted, SecretPattern, marker, redact
from bench.redaction import corpus

MANY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces that make the patterns match, half match, or almost match.
NAMES = (
    "password", "passwords", "passwd", "passphrase", "passcode", "pass", "dbPass", "DB_PASS",
    "bypass", "PAſSWORD", "paſs", "secret", "ſecret", "SECRET", "pwd", "token", "to\u212aen",
    "api_key", "apiKey", "api-key", "KEY", "\u212aey", "access_key", "private_key", "secret_key",
    "credential", "credentials", "CREDENTİALS", "auth_token", "client_secret", "Authorization",
    "AUTHORİZATİON", "authorızatıon", "Proxy-Authorization", "aws", "AWS", "amazon", "machine",
    "login", "default", "bearer", "Bearer",
)  # fmt: skip
SEPARATORS = (
    "=",
    ":",
    "=>",
    ":=",
    " = ",
    ": ",
    "\t=\t",
    '"=',
    "'='",
    '": "',
    "`:",
    " ",
    "",
    "\n",
    " is ",
)
VALUES = (
    "hunter2", "it", "s3cr3tValue99", "${DB_PASSWORD}", "<pw>", "****", "none", "get_token()",
    "os.environ['X']", '"quoted value"', "'abc def'", "Basic dXNlcjpwYXNz",
    "Bearer abcdefghijklmnopqrstu", "AKIA" + "A" * 16, "ASIA" + "B7" * 8, "AIza" + "a1" * 18,
    "ghp_" + "a1" * 18, "github_pat_" + "a" * 30, "glpat-" + "x" * 22, "xoxb-1234567890-abc",
    "xapp-1-abcdefghijk", "sk_live_" + "a" * 20, "sk-ant-" + "a" * 30, "sk-" + "a1" * 20,
    "eyJabcdefghi.eyJabcdefghi.abcdefghij", "postgresql://app:pw@db/x", "redis://:pw@h",
    "https://hooks.slack.com/services/TABC/BDEF/xyz", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + "A" * 64 + "\n-----END RSA PRIVATE KEY-----",
    "[REDACTED:jwt]", "a" * 50,
)  # fmt: skip
GLUE = (" ", "\n", ",", ";", "(", ")", "{", "}", '"', "'", "`", "\t", "_", "-", "/", "@", "é")
pieces = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(SEPARATORS),
    st.sampled_from(VALUES),
    st.sampled_from(GLUE),
    st.text(max_size=8),
)
texts = st.lists(pieces, max_size=10).map("".join)


def every_pattern(text: str) -> Redacted:
    """redact() without its gates: every pattern, in order."""
    count = 0
    for secret in PATTERNS:

        def replace(match: re.Match[str], secret: SecretPattern = secret) -> str:
            nonlocal count
            count += 1
            kept = match.group(secret.keep_group) if secret.keep_group else ""
            return kept + marker(secret.kind)

        text = secret.pattern.sub(replace, text)
    return Redacted(text=text, count=count)


def assert_gates_hold(text: str) -> None:
    for secret in PATTERNS:
        if secret.pattern.search(text):
            assert all(gate(text) for gate in secret.gates), (secret.kind, text)


def test_gates_pass_every_text_of_the_secret_corpus_a_pattern_matches() -> None:
    for case in corpus(seed=7, rounds=3):
        assert_gates_hold(case.text)
        assert redact(case.text) == every_pattern(case.text)


@pytest.mark.parametrize(
    "text",
    [
        "PAſSWORD=hunter22",  # ſ matches s when case is ignored
        "api_\u212aEY: s3cr3tValue99",  # the Kelvin sign matches k
        "AUTHORİZATİON: Bearer abcdefghijklmnop",
        "aws_ſecret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        'dbPass := "x"',
        "machine h login u password p4ss",
    ],
)
def test_gates_follow_the_unicode_case_rules_of_the_patterns(text: str) -> None:
    assert_gates_hold(text)
    assert redact(text) == every_pattern(text)


@MANY
@given(texts)
def test_gates_pass_every_generated_text_a_pattern_matches(text: str) -> None:
    assert_gates_hold(text)
    assert redact(text) == every_pattern(text)


def test_every_slow_pattern_has_a_gate() -> None:
    """All but the patterns that begin with a literal (which the regex engine finds fast)."""
    ungated = {secret.kind for secret in PATTERNS if not secret.gates}
    assert ungated == {"private-key", "slack-webhook"}
