"""The secret families of gitleaks' default rules and Yelp's detect-secrets plugins (issue 23):
every shape the bench generates, in every place, through the real redactor; the exact shapes
the issue found stored; the look-alikes those rules must leave alone; and 1 MB inputs that
would take quadratic time if a pattern backtracked. Every secret is made at run time."""

import json
import random
from collections import defaultdict
from functools import cache

import pytest

from aletheia_hub.redact import Redacted, RedactedJson, redact, redact_json
from bench.redaction import is_handled
from bench.redaction_secrets import CONTEXTS, TOKENS, Case, hub_kind, secret_cases, token


@cache
def cases_by_shape() -> dict[str, list[Case]]:
    """Two rounds of the bench's secrets, by shape."""
    rng = random.Random(23)
    shapes: dict[str, list[Case]] = defaultdict(list)
    for _ in range(2):
        for case in secret_cases(rng):
            shapes[case.kind].append(case)
    return shapes


NEW_SHAPES = sorted(
    {shape for shape in TOKENS if shape not in {"aws-access-key", "jwt"}}
    | {shape for shape, _, _ in CONTEXTS}
)


def test_the_bench_covers_sixty_shapes_and_more() -> None:
    assert len(cases_by_shape()) >= 60
    assert sum(len(cases) for cases in cases_by_shape().values()) >= 150


@pytest.mark.parametrize("shape", NEW_SHAPES)
def test_every_generated_secret_of_the_family_is_redacted_wherever_it_stands(shape: str) -> None:
    cases = cases_by_shape()[shape]
    assert cases
    assert [case.text for case in cases if not is_handled(case)] == []


@pytest.mark.parametrize("shape", sorted(TOKENS))
def test_a_token_is_named_by_its_provider(shape: str) -> None:
    value = TOKENS[shape](random.Random(shape))
    assert redact(f"token {value}.") == Redacted(f"token [REDACTED:{hub_kind(shape)}].", 1)


def _made(length: int) -> str:
    return token(random.Random(length), length)


def _b64(size: int) -> str:
    return token(random.Random(size), size, "ABCDEFabcdef0123456789+/")


# (what was written, with {} for the secret; the secret; what is stored): issue 23's list.
ISSUE_23: list[tuple[str, str, str]] = [
    ("mysql -u root -p{} shop", _made(12), "mysql -u root -p[REDACTED:cli-password] shop"),
    (
        "curl -u admin:{} https://api.example.com/v1",
        _made(12),
        "curl -u admin:[REDACTED:cli-password] https://api.example.com/v1",
    ),
    (
        "sshpass -p '{}' ssh deploy@10.0.0.5",
        _made(12),
        "sshpass -p '[REDACTED:cli-password]' ssh deploy@10.0.0.5",
    ),
    (
        "docker login -u me -p {} registry.example.com",
        _made(14),
        "docker login -u me -p [REDACTED:cli-password] registry.example.com",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={};EndpointSuffix=x.net",
        _b64(86) + "==",
        "DefaultEndpointsProtocol=https;AccountName=shop;"
        "AccountKey=[REDACTED:secret-assignment];EndpointSuffix=x.net",
    ),
    ("use {}", "npm_" + _made(36), "use [REDACTED:npm-token]"),
    ("use {}", "pypi-AgEIcHlwaS5vcmc" + _made(70), "use [REDACTED:pypi-token]"),
    (
        "use {}",
        "hf_" + token(random.Random(3), 34, "abcdefXYZW"),
        "use [REDACTED:huggingface-token]",
    ),
    ("use {}", f"SG.{_made(22)}.{_made(43)}", "use [REDACTED:sendgrid-key]"),
    (
        "use {}",
        "SK" + token(random.Random(32), 32, "0123456789abcdef"),
        "use [REDACTED:twilio-key]",
    ),
    ("use {}", f"123456789:AA{_made(33)}", "use [REDACTED:telegram-bot-token]"),
    ("use {}", TOKENS["discord-bot-token"](random.Random(1)), "use [REDACTED:discord-bot-token]"),
    ("use {}", TOKENS["digitalocean-pat"](random.Random(1)), "use [REDACTED:digitalocean-token]"),
    ("use {}", TOKENS["shopify-access-token"](random.Random(1)), "use [REDACTED:shopify-token]"),
    ("use {}", TOKENS["age-secret-key"](random.Random(1)), "use [REDACTED:age-secret-key]"),
    ("Cookie: sessionid={}", _made(32), "Cookie: sessionid=[REDACTED:cookie]"),
    (
        "db.internal:5432:shop:app:{}",
        _made(12),
        "db.internal:5432:shop:app:[REDACTED:pgpass-password]",
    ),
    ("bindpw {}", _made(12), "bindpw [REDACTED:config-password]"),
    ("ENCRYPTION_KEY={}", _made(32), "ENCRYPTION_KEY=[REDACTED:secret-assignment]"),
    ("SIGNING_KEY={}", _made(32), "SIGNING_KEY=[REDACTED:secret-assignment]"),
    (
        "db:\n  password: |\n    {}\n  user: app\n",
        _made(16),
        "db:\n  password: |\n    [REDACTED:secret-assignment]\n  user: app\n",
    ),
]


@pytest.mark.parametrize(("written", "secret", "stored"), ISSUE_23, ids=lambda v: v[:16])
def test_the_shapes_issue_23_found_stored_are_redacted(
    written: str, secret: str, stored: str
) -> None:
    assert redact(written.format(secret)) == Redacted(stored, 1)


# (what was written, with {} for the secret; the kind it is redacted as): config lines and
# CLI password flags where they stand in a note, not only alone on their line.
PLACEMENTS: list[tuple[str, str]] = [
    ("Ran this today: db.internal:5432:shop:app:{}", "pgpass-password"),
    ("  db.internal:5432:shop:app:{}", "pgpass-password"),
    ("`db.internal:5432:shop:app:{}`", "pgpass-password"),
    ("Add `*:*:shop:app:{}` to ~/.pgpass", "pgpass-password"),
    ("db.internal:5432:shop:app:{}  # prod", "pgpass-password"),
    ("set bindpw {} in nslcd.conf", "config-password"),
    ("redis.conf has requirepass {}", "config-password"),
    ("    requirepass {}  # prod", "config-password"),
    ("`masterauth {}`", "config-password"),
    ("htpasswd -b /etc/nginx/.htpasswd admin {}", "cli-password"),
    ("htpasswd -c -b .htpasswd admin '{}'", "cli-password"),
    ("htpasswd -nbB admin {} > users", "cli-password"),
    ("openssl enc -aes-256-cbc -k {} -in a.tar", "cli-password"),
    ("openssl enc -d -aes-256-cbc -pass pass:{} -in a", "cli-password"),
    # Directives in any case, and quoted values whatever they hold.
    ("BINDPW {}", "config-password"),
    ("slapd.conf: RootPW {}", "config-password"),
    ("REQUIREPASS {}  # prod", "config-password"),
    ('set bindpw "{}" in nslcd.conf', "config-password"),
    ("/etc/nslcd.conf bindpw '{}'", "config-password"),
]


@pytest.mark.parametrize(("written", "kind"), PLACEMENTS, ids=lambda v: v[:24])
def test_a_config_line_or_password_flag_is_redacted_wherever_it_stands_in_a_note(
    written: str, kind: str
) -> None:
    stored = written.format(f"[REDACTED:{kind}]")
    assert redact(written.format(_made(12))) == Redacted(stored, 1)


@pytest.mark.parametrize("password", ["MASTERAUTH", "BindPW", "requirepass"])
def test_a_pgpass_password_that_reads_as_a_directive_is_still_the_password(password: str) -> None:
    # The directive is a field of the line, not its start: the comment after it is no value.
    written = f"db.internal:5432:shop:app:{password}  # prod"
    stored = "db.internal:5432:shop:app:[REDACTED:pgpass-password]  # prod"
    assert redact(written) == Redacted(stored, 1)


def test_a_quoted_directive_value_goes_whole_spaces_and_all() -> None:
    written = "bindpw \"correct horse battery\" and requirepass 'two words'"
    stored = "bindpw \"[REDACTED:config-password]\" and requirepass '[REDACTED:config-password]'"
    assert redact(written) == Redacted(stored, 2)


@pytest.mark.parametrize(
    "key",
    [
        "key-" + token(random.Random(4), 32, "0123456789abcdef"),
        "pubkey-" + token(random.Random(5), 32, "0123456789abcdef"),
        "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",  # Mailgun's documentation writes older keys so
    ],
)
def test_a_mailgun_key_in_prose_is_redacted_without_the_word_mailgun(key: str) -> None:
    written = f"Set the key to {key}, then restart the worker."
    stored = "Set the key to [REDACTED:mailgun-key], then restart the worker."
    assert redact(written) == Redacted(stored, 1)


@pytest.mark.parametrize(
    "item",
    [
        [{"key": "STRIPE_KEY", "value": "{}"}],
        [{"k": "api_key", "v": "{}"}],
        {"env": [{"name": "DB_PASSWORD", "value": "{}"}]},
        {"signing": {"SIGNING_KEY": "{}"}},
        [["api_key", "{}"]],
        ["STRIPE_KEY", "{}"],
        {"env": "SECRET_TOKEN", "setting": "{}"},
    ],
    ids=["key-value", "k-v", "name-value", "env-key", "pair-list", "pair", "env-setting"],
)
def test_a_work_state_value_under_a_sibling_key_naming_a_secret_is_redacted(item: object) -> None:
    secret = _made(20)
    written = json.loads(json.dumps(item).replace("{}", secret))
    cleaned = redact_json(written)
    assert secret not in json.dumps(cleaned.value)
    assert cleaned.count == 1
    # The same JSON pasted into a memory is redacted as text too.
    assert secret not in redact(json.dumps(written)).text


@pytest.mark.parametrize(
    "item",
    [
        [{"key": "CACHE_KEY", "value": "user-profile-v2"}],
        [
            {
                "key": "PUBLIC_KEY",
                "value": "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=",
            }
        ],
        [{"name": "LOG_LEVEL", "value": "debug"}],
        [{"k": "region", "v": "eu-west-1"}],
        ["password", "token"],
        ["SECRET_KEY", "DEBUG"],
        [["api_key", "user_id"]],
        ["password", "${DB_PASSWORD}"],
        {"name": "API_KEY", "source": "vault"},
        {"name": "DB_PASSWORD", "description": "The database password, rotated in 2026."},
        ["Rotate the API key", "Ship v2"],
    ],
)
def test_a_work_state_value_under_a_key_naming_no_secret_is_kept(item: object) -> None:
    assert redact_json(item) == RedactedJson(item, 0)


@pytest.mark.parametrize(
    "text",
    [
        "docker run -p 8080:80 -v data:/data shop/api",
        "mysql -u root -p shop < dump.sql",
        'mysql -u root -p"$MYSQL_PASSWORD" shop',
        "psql --no-password -h db shop",
        "ansible-playbook --ask-pass site.yml",
        "Pass --token to use a token instead of a password.",
        "docker login -u me --password-stdin registry.example.com",
        "deploy.sh --token-file /run/secrets/vault --password-file ~/.registry",
        "docker build --secret id=pip_index,env=PIP_INDEX_URL .",
        "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519",
        'curl -u "$USER:$TOKEN" https://api.example.com',
        "curl -u admin: https://api.example.com",
        "client_key: certs/client.key",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}",
        "- secretKey: password\n  remoteRef: {key: secret/db, property: password}",
        "Set-Cookie: theme=dark; Path=/; HttpOnly",
        "Cookie: sessionid=${SESSION_ID}",
        "checksum/secret: 53c234e5e8472b6ac51c1ae1cab3fe06fad053beb8ebfd8977b010655bfdd3c3",
        "idempotency_key = 4f9e0c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b",
        "PUBLIC_KEY = MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=",
        "SIGNING_KEY = settings.JWT_SIGNING_KEY",
        "password = TEST_PASSWORD",
        "password: newPassword,",
        '--from-literal=password="$db_password"',
        "DJANGO_SECRET_KEY: ${DJANGO_SECRET_KEY:?set it in .env}",
        '"api_key": "6000/hour"',
        'invalid_credentials: "Wrong email or password."',
        "12:30:45:00:17",
        "image: postgres@sha256:d0f363f8366fbc3f52d172c6e76bc27151c3d643b870e1062b4e8bfe65baf609",
        "# requirepass foobared",
        "requirepass is set in redis.conf",
        "set bindpw in nslcd.conf to the service password",
        "The masterauth directive must match requirepass.",
        "requirepass ${REDIS_PASSWORD}",
        'redis.config_set("requirepass", password)',
        "ldap: bindpw (see vault)",
        'bindpw "${BIND_PW}" and rootpw "<password>"',
        "redis-cli CONFIG SET REQUIREPASS is how it is changed",
        "cache-key-9f8e7d6c5b4a39281706f5e4d3c2b1a0 is the redis key",
        "key-00000000000000000000000000000000 in the example",
        "address: fe80:0:0:0:200:f8ff:fe21:67cf",
        "mac: de:12:34:56:78:9a",
        "Time: 12:30:45:00:17",
        "`app.py:12:5: E501 line too long`",
        "Ran this today: db.internal:5432:shop:app:<password>",
        "`*:*:*:*:${PGPASSWORD}`",
        "htpasswd -b lets you pass the password inline",
        "htpasswd -c .htpasswd admin",
        'htpasswd -b .htpasswd admin "$ADMIN_PASSWORD"',
        "openssl enc -d -aes-256-cbc -kfile key.txt -in backup.enc",
        "openssl enc -aes-256-cbc -pass env:BACKUP_PASSPHRASE -in backup.tar",
        'auth = ("X-Api-Key", api_key)',
        '["SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"]',
        '["password", "token"]',
        "The hub masks an sk-... key and a ghp_... token in the docs.",
        "SKU TSHIRT-BLK-M costs 19.90",
        "discord.com/api/webhooks is where the bot posts",
    ],
)
def test_look_alikes_of_the_new_rules_are_left_alone(text: str) -> None:
    assert redact(text) == Redacted(text, 0)


MEGABYTE = 1_000_000
# Inputs on which one backtracking pattern would need hours: each must finish (pytest-timeout
# bounds the test; no time is asserted).
PATHOLOGICAL = {
    "one letter": "a" * MEGABYTE,
    "keys": "a_key=" * (MEGABYTE // 6),
    "passwords": "password=" * (MEGABYTE // 9),
    "blocks": ("password: |\n" + "  x\n") * (MEGABYTE // 16),
    "commands": "curl -u " * (MEGABYTE // 8),
    "mysql": "mysql -p" * (MEGABYTE // 8),
    "separators": "=:" * (MEGABYTE // 2),
    "schemes": "a://b:" * (MEGABYTE // 6),
    "prefixes": "sk-" * (MEGABYTE // 3),
    "capitals": "M" * MEGABYTE,
    "cookies": "Cookie: a=" * (MEGABYTE // 10),
    "pgpass": "x:1:" * (MEGABYTE // 4),
    "flags": "--password " * (MEGABYTE // 11),
    "semicolons": "password=x" + ";a" * (MEGABYTE // 2),
    "names": "- name: DB_PASSWORD\n" * (MEGABYTE // 20),
    "htpasswd": "htpasswd -b -n a " * (MEGABYTE // 17),
    "directives": "set bindpw X1 requirepass " * (MEGABYTE // 26),
    "pgpass after a colon": ": a:1:b:c:" * (MEGABYTE // 10),
    "code spans": "`0:0:0:0:0" * (MEGABYTE // 10),
    "pairs": '["api_key", "' * (MEGABYTE // 13),
    "objects": '{"env": "API_KEY", "x": "' * (MEGABYTE // 25),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_a_megabyte_of_pathological_input_is_redacted_in_linear_time(text: str) -> None:
    result = redact(text)
    assert len(result.text) <= len(text) + 100 * result.count


@pytest.mark.parametrize("before", ["Edit", "my_", "token-", "x"])
def test_a_github_token_stuck_to_a_word_is_redacted(before: str) -> None:
    # A hook's tool name and a command run words together: the prefix alone marks the token.
    written = before + "ghp_" + token(random.Random(7), 36)
    assert redact(written) == Redacted(f"{before}[REDACTED:github-token]", 1)
