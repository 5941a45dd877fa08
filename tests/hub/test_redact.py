"""Secret redaction: one test per pattern, ordinary text left alone, and save_memory end to end.

Every example secret is assembled from pieces at run time, so the file itself holds nothing a
secret scanner would flag; the bodies are fake.
"""

import base64
import hashlib
import random
import time
import uuid

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from aletheia_hub.redact import PATTERNS, Redacted, holds_secret, redact, redact_name
from aletheia_hub.store.memories import content_hash
from bench.redaction_secrets import TOKENS, hub_kind
from tests.helpers import McpHttpClient


def body(size: int, alphabet: str = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ") -> str:
    """`size` characters cycling through an alphabet: fake key material of a chosen length."""
    return (alphabet * (size // len(alphabet) + 1))[:size]


UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B64 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC+/"
PEM_BODY = "\n".join(body(64, B64[i:] + B64[:i]) for i in range(6))


def pem(label: str) -> str:
    return f"-----BEGIN {label}-----\n{PEM_BODY}\n-----END {label}-----"


def unterminated_pem(label: str) -> str:
    """A private key pasted without its END line."""
    return f"-----BEGIN {label}-----\n{PEM_BODY}\nAbCd=="


def jwt() -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"Jane"}').decode()
    return (
        f"{header}.{payload.rstrip('=')}.{body(43, 'Sf1KxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c-')}"
    )


# (kind, text around the secret, the secret itself)
SECRETS: list[tuple[str, str, str]] = [
    ("private-key", "key:\n{}\n", pem("RSA PRIVATE KEY")),
    ("private-key", "{}", pem("PRIVATE KEY")),
    ("private-key", "{}", pem("OPENSSH PRIVATE KEY")),
    ("private-key", "{}", pem("EC PRIVATE KEY")),
    ("private-key", "{}", pem("ENCRYPTED PRIVATE KEY")),
    ("private-key", "{}", pem("PGP PRIVATE KEY BLOCK")),
    ("private-key", "crlf {} end", pem("RSA PRIVATE KEY").replace("\n", "\r\n")),
    ("private-key", "key:\n{}\n\nThen restart nginx.", unterminated_pem("RSA PRIVATE KEY")),
    ("private-key", "pasted: {}", unterminated_pem("OPENSSH PRIVATE KEY")),
    ("aws-access-key", "aws_access_key_id = {}", "AKIA" + body(16, UPPER)),
    ("aws-access-key", "temporary {} creds", "ASIA" + body(16, UPPER)),
    ("aws-access-key", "id ({})", "AKIA" + "IOSFODNN7" + "EXAMPLE"),
    ("gcp-api-key", "key={}&q=x", "AIza" + body(35, "Sy-_aB3dE9fGhIjKlMnOp")),
    ("gcp-api-key", "maps key {}.", "AIza" + body(35)),
    ("github-token", "use {} here", "ghp_" + body(36)),
    ("github-token", "oauth {}", "gho_" + body(36)),
    ("github-token", "app {}", "ghs_" + body(36)),
    ("github-token", "user-to-server {}", "ghu_" + body(36)),
    ("github-token", "refresh {}", "ghr_" + body(76)),
    ("github-token", "fine-grained {}", "github_pat_" + body(22) + "_" + body(59)),
    ("gitlab-token", "PAT {}", "glpat-" + body(20, "xY_-9zQ")),
    ("slack-token", "bot {}", "xoxb-" + "1234567890-1234567890123-" + body(24)),
    ("slack-token", "user {}", "xoxp-" + "1234567890-1234567890-" + body(32)),
    ("slack-token", "legacy {}", "xoxa-2-" + body(30)),
    ("slack-token", "refresh {}", "xoxr-" + body(40)),
    ("slack-token", "session {}", "xoxs-" + body(40)),
    ("slack-token", "socket mode {}", "xapp-1-A0123456789-1234567890123-" + body(64)),
    (
        "slack-webhook",
        "post to {} now",
        "https://hooks.slack.com/services/T0ABC1234/B0DEF5678/" + body(24),
    ),
    ("stripe-key", "charge with {}", "sk_live_" + body(24)),
    ("stripe-key", "restricted {}", "rk_live_" + body(24)),
    ("stripe-key", "test mode {}", "sk_test_" + body(99)),
    ("openai-key", "OPENAI {}", "sk-" + body(20) + "T3BlbkFJ" + body(20)),
    ("openai-key", "project {}", "sk-proj-" + body(74, "aB3_-xY9") + "T3BlbkFJ" + body(74)),
    ("openai-key", "service {}", "sk-svcacct-" + body(40, "Qw3-rT_y")),
    ("anthropic-key", "claude {}", "sk-ant-api03-" + body(93, "kJ8-_pL2") + "AA"),
    ("anthropic-key", "admin {}", "sk-ant-admin01-" + body(40)),
    ("jwt", "token {} expires", jwt()),
    ("bearer-token", "Authorization: Bearer {}", body(40, "abc.DEF~123+/_-")),
    ("bearer-token", "authorization: bearer {}", body(32) + "=="),
    ("authorization", "Authorization: Basic {}", base64.b64encode(b"user:pass").decode()),
    ("authorization", "curl -H 'Authorization: Token {}'", body(40)),
    ("url-password", "DATABASE_URL=postgres://app:{}@db.internal:5432/app", body(16)),
    ("url-password", "postgresql+psycopg://admin:{}@127.0.0.1/x", "p%40ss-W0rd.~!$&*+="),
    ("url-password", "mongodb+srv://root:{}@cluster0.example.net/db", body(12)),
    ("url-password", "amqps://guest:{}@rabbit/vhost", body(20)),
    ("url-password", "see https://deploy:{}@git.example.com/repo.git", body(9)),
    ("url-password", "postgres://app:{}@db/app", "ab/cd" + body(10)),
    ("url-password", "https://jane:{}@git.example.com/x", "p@ss" + body(8)),
    ("secret-assignment", "PASSWORD={}", body(14)),
    ("secret-assignment", "DB_PASSWORD: {}", body(10, "Tr0ub4dor&3!")),
    ("secret-assignment", 'client_secret = "{}"', body(30)),
    ("secret-assignment", "export MY_API_KEY='{}'", body(32)),
    ("secret-assignment", '{{"apiKey": "{}"}}', body(24)),
    ("secret-assignment", "AWS_SECRET_ACCESS_KEY={}", body(40, "wJalrXUtnFEMI/K7MDENG/bPxRfiCY")),
    ("secret-assignment", "SECRET_KEY = {}", body(50, "x!@#$%^&*()_+")),
    ("secret-assignment", "auth-token: {}", body(20)),
    ("secret-assignment", "TOKEN={}", body(12)),
    ("secret-assignment", "SECRET={}", body(12)),
    ("secret-assignment", "passwd={}", body(8)),
    ("secret-assignment", "private_key: {}", body(44)),
    ("secret-assignment", "credentials={}", body(16)),
    ("secret-assignment", 'PASSWORD="{}"', "correct horse battery staple"),
    ("secret-assignment", "password: '{}'", "two words"),
    ("secret-assignment", '{{"password": "{}"}}', "my secret pass phrase 42"),
    ("secret-assignment", "DB_PASS={}", body(12)),
    ("secret-assignment", "ADMIN_PASSWORD={}", "hunt2"),
    ("secret-assignment", "old password: {}", "hunter22x"),
    ("secret-assignment", "$db_password = '{}';", "Tr0ub4dor&3"),
    ("secret-assignment", "'password' => '{}'", body(10)),
    ("netrc-password", "password {}", "NetrcPw8812"),
    ("netrc-password", "machine x login y password {}", "zQ9"),
    ("netrc-password", "machine api.example.com\n  login jane\n  password {}", body(12)),
    ("aws-secret-key", "The AWS secret key is {}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws-secret-key", "secret for the aws CLI: {}.", body(40, "wJalrXUtnFEMI/K7MDENG/bPxRfiCY")),
    ("cli-password", "mysql -u root -p{} shop", body(12)),
    ("cli-password", "curl -u admin:{} https://api.example.com/x", body(12)),
    ("cli-password", "sshpass -p '{}' ssh deploy@host", body(12)),
    ("cli-password", "docker login -u me -p {} registry.example.com", body(14)),
    ("cli-password", "gpg --batch --passphrase {} -d a.gpg", body(14)),
    ("cookie", "Cookie: sessionid={}", body(32)),
    ("pgpass-password", "db.internal:5432:shop:app:{}", body(12)),
    ("config-password", "bindpw {}", body(12)),
    ("azure-sas-token", "https://a.blob.core.windows.net/c/f?sv=2022-11-02&sig={}", body(44)),
    (
        "discord-webhook",
        "post to {} now",
        "https://discord.com/api/webhooks/123456789012345678/" + body(68, "aB3_-xY9"),
    ),
    (
        "teams-webhook",
        "post to {}",
        f"https://shop.webhook.office.com/webhookb2/{uuid.UUID(int=1)}@{uuid.UUID(int=2)}"
        f"/IncomingWebhook/{body(32, 'a1b2c3d4')}/{uuid.UUID(int=3)}",
    ),
    ("secret-assignment", "ENCRYPTION_KEY={}", body(32)),
    ("secret-assignment", "AccountKey={};EndpointSuffix=core.windows.net", body(86, B64) + "=="),
]
# One secret of every other kind, made by the bench as gitleaks' and detect-secrets' rules
# describe it.
SECRETS += [
    (hub_kind(shape), "use {} here", make(random.Random(shape)))
    for shape, make in TOKENS.items()
    if hub_kind(shape) not in {kind for kind, _, _ in SECRETS}
]


def case_id(case: tuple[str, str, str]) -> str:
    return f"{case[0]}:{case[2][:14]}"


@pytest.mark.parametrize("case", SECRETS, ids=[case_id(case) for case in SECRETS])
def test_each_pattern_redacts_its_secret(case: tuple[str, str, str]) -> None:
    kind, around, secret = case
    original = around.format(secret)
    result = redact(original)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert result.count == 1
    assert result.text == around.format(f"[REDACTED:{kind}]")


def test_every_pattern_kind_has_an_example() -> None:
    assert {pattern.kind for pattern in PATTERNS} == {kind for kind, _, _ in SECRETS}


def test_pem_key_redacted_whole_header_to_footer() -> None:
    result = redact(f"before\n{pem('RSA PRIVATE KEY')}\nafter")
    assert result == Redacted("before\n[REDACTED:private-key]\nafter", 1)


def test_public_key_and_certificate_are_not_private_keys() -> None:
    public = f"-----BEGIN PUBLIC KEY-----\n{PEM_BODY}\n-----END PUBLIC KEY-----"
    certificate = f"-----BEGIN CERTIFICATE-----\n{PEM_BODY}\n-----END CERTIFICATE-----"
    assert redact(public).count == 0
    assert redact(certificate).count == 0


def test_two_pem_keys_are_two_redactions_not_one_span() -> None:
    text_ = f"{pem('EC PRIVATE KEY')}\nkeep this line\n{pem('RSA PRIVATE KEY')}"
    result = redact(text_)
    assert result.count == 2
    assert "keep this line" in result.text


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("Authorization: Bearer " + body(24), "Authorization: Bearer [REDACTED:bearer-token]"),
        (
            "curl -H 'Authorization: Bearer " + body(24) + "'",
            "curl -H 'Authorization: Bearer [REDACTED:bearer-token]'",
        ),
        ("postgres://app:" + body(12) + "@db/app", "postgres://app:[REDACTED:url-password]@db/app"),
        ("DB_PASSWORD=" + body(12), "DB_PASSWORD=[REDACTED:secret-assignment]"),
        ('"password": "' + body(12) + '"', '"password": "[REDACTED:secret-assignment]"'),
    ],
)
def test_kept_group_stays_in_front_of_the_redaction(original: str, expected: str) -> None:
    assert redact(original) == Redacted(expected, 1)


def test_key_named_secret_is_named_by_its_precise_kind_and_counted_once() -> None:
    token = "ghp_" + body(36)
    assert redact(f"GITHUB_TOKEN={token}") == Redacted("GITHUB_TOKEN=[REDACTED:github-token]", 1)
    key = "AKIA" + body(16, UPPER)
    assert redact(f'aws_access_key="{key}"') == Redacted(
        'aws_access_key="[REDACTED:aws-access-key]"', 1
    )


def test_bearer_jwt_counts_once_as_jwt() -> None:
    assert redact(f"Authorization: Bearer {jwt()}") == Redacted(
        "Authorization: Bearer [REDACTED:jwt]", 1
    )


def test_many_secrets_in_one_text_are_all_counted() -> None:
    secrets = [secret for _, _, secret in SECRETS]
    original = "\n".join(around.format(secret) for _, around, secret in SECRETS)
    result = redact(original)
    assert result.count == len(SECRETS)
    for secret in secrets:
        assert secret not in result.text


def test_empty_and_secret_free_text_unchanged() -> None:
    assert redact("") == Redacted("", 0)
    assert redact("Use pnpm, not npm.") == Redacted("Use pnpm, not npm.", 0)


ORDINARY = [
    "The tokenizer splits words; see tokenizer.json and the Tokenizer class.",
    "password_hint_shown = true",
    "max_tokens=5",
    "max_tokens=4096 and temperature=0.2",
    "author=Jane",
    "user=jane role=admin",
    "sha1 " + hashlib.sha1(b"hello").hexdigest(),
    "sha256 " + hashlib.sha256(b"hello").hexdigest(),
    "sha256:" + hashlib.sha256(b"layer").hexdigest(),
    "md5 " + hashlib.md5(b"x").hexdigest(),
    "id " + str(uuid.UUID(int=0x1234_5678_9ABC_DEF0_1234_5678_9ABC_DEF0)),
    "UUID " + str(uuid.uuid5(uuid.NAMESPACE_DNS, "example.com")).upper(),
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "git checkout a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
    "base64 " + base64.b64encode(b"Hello, world! This is not a secret at all.").decode(),
    "urlsafe " + base64.urlsafe_b64encode(b"{'just': 'some json', 'n': 42}").decode(),
    "def login(username: str, password: str) -> None:\n    return check(username, password)",
    "if password != confirm_password:\n    raise ValueError('mismatch')",
    "SELECT id, title FROM memories WHERE project = 'shop' ORDER BY id;",
    "for i in range(10):\n    print(i)  # tokens: none",
    "Visit https://example.com/path?q=1 or http://localhost:8080/health",
    "ssh git@github.com and scp file user@host:/tmp/",
    "email me at jane.doe@example.com",
    "sk-learn is a nickname; scikit-learn is the package",
    "pk and sk columns; sk_test is a table name",
    "The bearer of this letter is welcome.",
    "export PATH=/usr/local/bin:$PATH",
    "AKIA is the prefix of AWS access key ids",
    "Use eyJ as a hint that a string is base64 JSON.",
    "-----BEGIN CERTIFICATE----- only a header",
    "Reset the PASSWORD=",
    "TOKEN_TTL_SECONDS=3600",
    "secret_santa_enabled: false",
    "xoxo, Jane",
    "glpat- is a GitLab prefix",
    "ghp_ is a GitHub prefix and github_pat_ is another",
]


@pytest.mark.parametrize("original", ORDINARY)
def test_ordinary_text_left_alone(original: str) -> None:
    assert redact(original) == Redacted(original, 0)


@pytest.mark.parametrize(
    "url",
    ["redis://:{}@localhost:6379/0", "rediss://:{}@cache.internal:6380", "amqp://:{}@rabbit/"],
)
def test_url_password_with_empty_user_is_redacted(url: str) -> None:
    password = body(18)
    result = redact(url.format(password))
    assert password not in result.text
    assert result.count == 1


def test_redacting_a_redacted_url_finds_nothing_new() -> None:
    once = redact("postgres://app:" + body(16) + "@db/app")
    assert redact(once.text) == Redacted(once.text, 0)


@pytest.mark.parametrize(
    "value",
    ["ab;cdefgh123", "Tr0ub4dor;3x", "abc,def123xyz", "x,y;z0123456"],
)
def test_assignment_value_with_comma_or_semicolon_is_redacted(value: str) -> None:
    assert redact(f"DB_PASSWORD={value}") == Redacted("DB_PASSWORD=[REDACTED:secret-assignment]", 1)


@pytest.mark.parametrize(
    "code",
    [
        "interface Login {\n  password: string;\n  token: string;\n}",
        "api_key: Optional[str] = None",
        'api_key = os.getenv("API_KEY")',
        'session_token = request.headers.get("X-Token")',
        "password = get_password()",
        "user.password = hash_password(raw_password)",
        'api_key = os.environ["OPENAI_API_KEY"]',
        "password: ${DB_PASSWORD}",
        "old_pwd=$(pwd)",
        "password_hash = bcrypt.hashpw(raw, salt)",
        "token = get_token()",
        "secret = settings.secret",
        "const token = process.env.GITHUB_TOKEN;",
        "secret_key = config['SECRET_KEY']",
        "password = os.environ.get('DB_PASSWORD', '')",
        "login(username=user, password=None)",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        'password: "{{ vault_db_password }}"',
        "password: <your password>",
        "api_key: ********",
        "password: str = Field(min_length=8)",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app",
        "Authorization: Bearer <token>",
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
        "bypass=1 skips the cache; compass: north",
        'fetch(url, { credentials: "include" })',
    ],
)
def test_ordinary_code_with_secret_names_left_alone(code: str) -> None:
    assert redact(code) == Redacted(code, 0)


@pytest.mark.parametrize(
    "prose",
    [
        "The AWS secret was rotated in commit 3f786850e387550fdab836ed7e6dc881de23001b.",
        "aws secret digest sha256 " + hashlib.sha256(b"aws").hexdigest(),
        "Secrets Manager on AWS holds it, id " + str(uuid.uuid5(uuid.NAMESPACE_DNS, "aws")),
        "Reset your password before Friday; the password policy needs 12 characters.",
        "After login the user sees the password form.",
        "Ask for the password in person, never by mail.",
        "Password: see the vault. The password: it needs 12 characters.",
        "password reset",
    ],
)
def test_prose_about_secrets_left_alone(prose: str) -> None:
    assert redact(prose) == Redacted(prose, 0)


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        (
            'PASSWORD="correct horse battery staple"',
            'PASSWORD="[REDACTED:secret-assignment]"',
        ),
        ("password: 'two words'", "password: '[REDACTED:secret-assignment]'"),
        (
            '{"password": "my secret pass phrase 42", "user": "jane"}',
            '{"password": "[REDACTED:secret-assignment]", "user": "jane"}',
        ),
        ('secret = "a \\"quoted\\" one"', 'secret = "[REDACTED:secret-assignment]"'),
    ],
)
def test_a_quoted_value_is_redacted_whole_spaces_included(original: str, expected: str) -> None:
    assert redact(original) == Redacted(expected, 1)


@pytest.mark.parametrize(
    "line", ["ADMIN_PASSWORD=hunt2", "pass: ab1", "dbPass=x7y", 'passphrase: "z"']
)
def test_a_short_value_is_a_secret_when_the_key_names_a_password(line: str) -> None:
    assert redact(line).count == 1


@pytest.mark.parametrize("line", ["TOKEN=abc", "secret: yes", "password: none", "api_key="])
def test_a_short_or_empty_value_under_another_key_is_left_alone(line: str) -> None:
    assert redact(line) == Redacted(line, 0)


def test_netrc_lines_are_redacted_on_one_line_or_several() -> None:
    assert redact("machine x login y password z") == Redacted(
        "machine x login y password [REDACTED:netrc-password]", 1
    )
    netrc = "machine a.example.com\nlogin jane\npassword hunter\n\nmachine b login k password q1"
    assert redact(netrc) == Redacted(
        "machine a.example.com\nlogin jane\npassword [REDACTED:netrc-password]\n\n"
        "machine b login k password [REDACTED:netrc-password]",
        2,
    )


def test_a_key_without_its_end_line_is_redacted_to_the_end_of_its_body() -> None:
    key = unterminated_pem("EC PRIVATE KEY")
    assert redact(f"{key}\nThen restart it.") == Redacted(
        "[REDACTED:private-key]\nThen restart it.", 1
    )
    assert redact(f"key: {key}") == Redacted("key: [REDACTED:private-key]", 1)
    escaped = key.replace("\n", "\\n")
    assert redact(f'{{"key": "{escaped}"}}') == Redacted('{"key": "[REDACTED:private-key]"}', 1)
    headers = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B2C3D\n\n"
    encrypted = key.replace("-----\n", "-----\n" + headers, 1)
    assert redact(encrypted) == Redacted("[REDACTED:private-key]", 1)


# --- end to end: save_memory redacts before storing and hashing -----------------------------


def stored_memory(http: TestClient, memory_id: int) -> tuple[str, str, str]:
    with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
        row = session.execute(
            text("SELECT title, text, content_hash FROM memories WHERE id = :id"),
            {"id": memory_id},
        ).one()
    return row.title, row.text, row.content_hash


def stored_facts(http: TestClient) -> list[str]:
    with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
        rows = session.execute(text("SELECT subject, predicate, object FROM facts")).all()
    return [" ".join(row) for row in rows]


def test_save_memory_stores_no_secret_and_says_how_many(
    mcp: McpHttpClient, http: TestClient
) -> None:
    github = "ghp_" + body(36)
    aws = "AKIA" + body(16, UPPER)
    password = body(16)
    stripe = "sk_live_" + body(24)
    memory = (
        f"CI uses {github} to push.\n"
        f"AWS key {aws} lives in the vault.\n"
        f"DB_PASSWORD={password}\n"
        f"{pem('RSA PRIVATE KEY')}\n"
        "Deploys run from main."
    )
    saved = mcp.text(
        "save_memory",
        {
            "text": memory,
            "title": "CI secrets, stripe " + stripe,
            "facts": [{"subject": "billing", "predicate": "uses key", "object": stripe}],
        },
    )
    assert saved == "Saved as #1 in shop. Redacted 6 secrets before saving."
    title, stored, digest = stored_memory(http, 1)
    for secret in (github, aws, password, stripe, PEM_BODY, *PEM_BODY.splitlines()):
        assert secret not in title
        assert secret not in stored
        assert all(secret not in fact for fact in stored_facts(http))
    assert "[REDACTED:github-token]" in stored and "Deploys run from main." in stored
    assert title == "CI secrets, stripe [REDACTED:stripe-key]"
    assert stored_facts(http) == ["billing uses key [REDACTED:stripe-key]"]
    assert digest == content_hash(title, stored)
    shown = mcp.text("get_observations", {"ids": [1]})
    assert github not in shown and "[REDACTED:github-token]" in shown


def test_one_secret_is_reported_in_the_singular(mcp: McpHttpClient) -> None:
    saved = mcp.text(
        "save_memory", {"text": "The bot token is xoxb-" + body(30), "title": "Slack bot"}
    )
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."


def test_saving_the_same_secret_bearing_memory_twice_dedupes(mcp: McpHttpClient) -> None:
    arguments = {"text": "Deploy key: glpat-" + body(24), "title": "GitLab deploy"}
    first = mcp.text("save_memory", arguments)
    second = mcp.text("save_memory", arguments)
    assert first == "Saved as #1 in shop. Redacted 1 secret before saving."
    assert second == "Already saved as #1. Redacted 1 secret before saving."


def test_dedupe_hash_is_taken_after_redaction(mcp: McpHttpClient, http: TestClient) -> None:
    first = mcp.text("save_memory", {"text": "token ghp_" + body(36), "title": "gh"})
    other = mcp.text("save_memory", {"text": "token ghp_" + body(36, "Zz9Yy8"), "title": "gh"})
    assert first.startswith("Saved as #1 in shop.")
    assert other.startswith("Already saved as #1.")
    title, stored, digest = stored_memory(http, 1)
    assert stored == "token [REDACTED:github-token]"
    assert digest == content_hash(title, stored)


def test_secret_is_not_searchable_after_saving(mcp: McpHttpClient) -> None:
    secret_body = body(36)
    mcp.text("save_memory", {"text": f"Use ghp_{secret_body} for the release job"})
    assert "Nothing in" in mcp.text("search", {"query": secret_body})
    assert "#1" in mcp.text("search", {"query": "release job"})


def test_memory_without_title_counts_its_secrets_once(mcp: McpHttpClient) -> None:
    saved = mcp.text("save_memory", {"text": "Bot token xoxb-" + body(30) + " for alerts"})
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."


def test_an_untitled_memory_whose_title_cuts_a_redaction_short_counts_it_once(
    mcp: McpHttpClient, http: TestClient
) -> None:
    # The first 100 characters of the redacted text end `... password=[REDACTED:`: the title
    # leaves the cut marker out whole.
    text = "w" * 80 + " password=" + body(12)
    saved = mcp.text("save_memory", {"text": text})
    title, _, _ = stored_memory(http, 1)
    assert title.endswith(" password=")
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."


def test_untitled_memory_with_url_password_counts_it_once(
    mcp: McpHttpClient, http: TestClient
) -> None:
    password = body(16)
    saved = mcp.text("save_memory", {"text": f"Connect to postgres://app:{password}@db/app"})
    _, stored, _ = stored_memory(http, 1)
    assert password not in stored
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."


@pytest.mark.parametrize(
    "text_",
    ["a." * 10_000, "a-" * 10_000, "a://b:" * 3_000, "password=" + "a(" * 9_000],
    ids=["dots", "dashes", "schemes", "calls"],
)
def test_long_runs_of_key_characters_are_redacted_in_linear_time(text_: str) -> None:
    # Quadratic backtracking took 30 s and more on these 20,000 characters; linear is ~20 ms.
    started = time.perf_counter()
    redact(text_)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("text", ["password=A]0", "password=ab}c", "DB_PASS=x)y"])
def test_a_short_value_with_brackets_inside_is_a_secret_not_a_word(text: str) -> None:
    assert redact(text).text.endswith("=[REDACTED:secret-assignment]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password:\n  hunter22x\nother: 1", "password:\n  [REDACTED:secret-assignment]\nother: 1"),
        (
            "db:\n  password:\n    hunter22x\n  port: 5432",
            "db:\n  password:\n    [REDACTED:secret-assignment]\n  port: 5432",
        ),
    ],
)
def test_a_yaml_value_on_the_line_under_its_key_is_redacted(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    ["password:\n  min_length: 12\n  rotate_days: 90", "passwords:\n  - name: admin"],
)
def test_a_mapping_or_list_under_a_password_key_is_left_alone(text: str) -> None:
    assert redact(text).text == text


@settings(max_examples=500, deadline=None)
@given(st.from_regex(r"[A-Za-z0-9._\-]{0,40}", fullmatch=True) | st.text(max_size=40))
def test_a_name_is_redacted_as_any_text_is_however_short_or_plain(name: str) -> None:
    assert redact_name(name) == redact(name)


def test_a_name_holds_a_secret_when_it_has_one_or_the_marker_of_one() -> None:
    assert holds_secret("ghp_" + "A1b2" * 9)
    assert holds_secret("[REDACTED:github-token]")
    for plain in ("shop", "claude-code", "gemini-cli", "my.project_v2", "", "billing api"):
        assert not holds_secret(plain), plain
