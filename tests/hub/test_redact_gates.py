"""The gates in front of the redaction patterns skip only patterns that cannot match: every
text a pattern matches passes all its gates (and its group's view, and starts where the
pattern's start positions say), so redact() answers exactly as running every pattern over the
whole text would, Unicode case rules (ſ, K, İ, ı) included."""

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia_hub.redact import PATTERNS, Redacted, redact
from aletheia_hub.redact.text import GROUPS
from bench.redaction import corpus

MANY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces that make the patterns match, half match, or almost match.
NAMES = (
    "password", "passwords", "passwd", "passphrase", "passcode", "pass", "dbPass", "DB_PASS",
    "bypass", "PAſSWORD", "paſs", "secret", "ſecret", "SECRET", "pwd", "token", "to\u212aen",
    "api_key", "apiKey", "api-key", "KEY", "\u212aey", "access_key", "private_key", "secret_key",
    "credential", "credentials", "CREDENTİALS", "auth_token", "client_secret", "Authorization",
    "AUTHORİZATİON", "authorızatıon", "Proxy-Authorization", "aws", "AWS", "amazon", "machine",
    "login", "default", "bearer", "Bearer", "ENCRYPTION_KEY", "signingKey", "AccountKey", "auth",
    "sessionid", "PUBLIC_KEY", "checksum/secret", "name", "key", "value", "k", "v", "Cookie",
    "Set-Cookie", "bindpw", "rootpw", "requirepass", "mysql -u root -p", "curl -u admin:",
    "sshpass -p", "docker login -u me -p", "--password", "--token", "-storepass", "ſecretKey",
    "masterauth", "htpasswd -b f u", "htpasswd -nb u", "openssl enc -k", '["api_key", ',
    "BINDPW", "RequirePass", "olcRootPW:", '("STRIPE_KEY", ',
    '{"env": "SECRET_TOKEN", "setting": ', "Ran this today: ",
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
    "[REDACTED:jwt]", "a" * 50, "npm_" + "a1B2" * 9, "SG." + "a" * 22 + "." + "b1" * 22,
    "SK" + "0a" * 16, "123456789:AA" + "x1" * 17, "dop_v1_" + "0a" * 32, "hf_" + "aB" * 17,
    "AGE-SECRET-KEY-1" + "QP" * 29, "db:5432:shop:app:pw", "|\n  x1\n", "|", ">-",
    "sessionid=" + "a1" * 16, "sig=" + "a1" * 20, "NzQ" + "w" * 21 + ".D1TCxX." + "m1" * 15,
    "abc1Q~" + "x1" * 17, "x.webhook.office.com/webhookb2/", '"s3cr3t9"]', '"s3cr3t9")',
    '"s3cr3t9"}', "  # prod", "fe80:0:0:0:1:2", "key-" + "0a9b" * 8, "pubkey-" + "c3" * 16,
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
    """redact() without its gates, views or start positions: every pattern, in order, over
    the whole text."""
    count = 0
    for secret in PATTERNS:
        text, found = dataclasses.replace(secret, starts=None).apply(text)
        count += found
    return Redacted(text=text, count=count)


def assert_gates_hold(text: str) -> None:
    """Whenever a pattern matches: its group's view is not empty, its gates pass on what they
    read (the view where the group looks for literals, else the text), and every match starts
    where `starts` says one may."""
    for group in GROUPS:
        view = group.view(text)
        for secret in group.patterns:
            if not secret.pattern.search(text):
                continue
            assert view, (secret.kind, text)
            read = view if group.literals else text
            assert all(gate(read) for gate in secret.gates), (secret.kind, text)
            if secret.starts:
                found = {match.start() for match in secret.pattern.finditer(text)}
                assert found <= set(secret.starts(text)), (secret.kind, text)


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
