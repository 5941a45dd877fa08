"""Property tests: a generated secret of every kind never survives redaction, wherever it sits;
hashes, UUIDs, base64 and ordinary settings are never touched."""

import base64
import hashlib
import random
import re
import string
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from aletheia_hub.redact import PATTERNS, Redacted, is_placeholder, looks_like_reference, redact
from aletheia_hub.redact.assignments import BARE_END, PLACEHOLDER
from bench.redaction_secrets import TOKENS, hub_kind

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
BEARER = ALNUM + "._~+/-"
# RFC 3986 userinfo after the first colon: unreserved, pct-encoded, sub-delims and ':', plus
# the '/' and '@' people paste unencoded.
USERINFO_PASSWORD = ALNUM + "-._~%!$&'()*+,;=:/@"
# Values of KEY=value lines: printable, no whitespace or quotes (values ending in , or ; are
# covered in test_redact.py).
ASSIGNED_VALUE = "".join(c for c in string.printable if c not in string.whitespace + "\"'`,;")
MARKERS = [f"[REDACTED:{kind}]" for kind in sorted({p.kind for p in PATTERNS})]

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def chars(alphabet: str, min_size: int, max_size: int | None = None) -> st.SearchStrategy[str]:
    return st.text(
        alphabet=alphabet, min_size=min_size, max_size=min_size if max_size is None else max_size
    )


# A generated secret: (the text as written, the parts of it that must never be seen again).
Secret = tuple[str, list[str]]


def whole(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[Secret]:
    return strategy.map(lambda secret: (secret, [secret]))


@st.composite
def slack_webhooks(draw: st.DrawFn) -> Secret:
    team, channel = draw(chars(UPPER_DIGITS, 8, 11)), draw(chars(UPPER_DIGITS, 8, 11))
    token = draw(chars(ALNUM, 24))
    url = f"https://hooks.slack.com/services/T{team}/B{channel}/{token}"
    return url, [url, token]


@st.composite
def openai_keys(draw: st.DrawFn) -> Secret:
    prefix = draw(st.sampled_from(["sk-", "sk-proj-", "sk-svcacct-", "sk-admin-"]))
    alphabet = ALNUM if prefix == "sk-" else URLSAFE
    # Real keys carry "T3BlbkFJ" (base64 of "OpenAI"), so they always hold a digit.
    key = f"{prefix}{draw(chars(alphabet, 12, 80))}T3BlbkFJ{draw(chars(alphabet, 12, 80))}"
    return key, [key]


@st.composite
def jwts(draw: st.DrawFn) -> Secret:
    header = "eyJ" + draw(chars(URLSAFE, 8, 60))
    payload = "eyJ" + draw(chars(URLSAFE, 8, 200))
    signature = draw(chars(URLSAFE, 16, 90))
    token = f"{header}.{payload}.{signature}"
    return token, [token, f"{payload}.{signature}"]


@st.composite
def private_keys(draw: st.DrawFn, may_lack_end: bool = True) -> Secret:
    label = draw(
        st.sampled_from(
            [
                "RSA PRIVATE KEY",
                "PRIVATE KEY",
                "EC PRIVATE KEY",
                "DSA PRIVATE KEY",
                "OPENSSH PRIVATE KEY",
                "ENCRYPTED PRIVATE KEY",
                "PGP PRIVATE KEY BLOCK",
            ]
        )
    )
    lines = draw(st.lists(chars(B64, 16, 64), min_size=1, max_size=8))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    end = [f"-----END {label}-----"]
    if may_lack_end and draw(st.booleans()):
        end = []  # pasted without its END line
    block = newline.join([f"-----BEGIN {label}-----", *lines, *end])
    return block, lines


@st.composite
def bearer_tokens(draw: st.DrawFn) -> Secret:
    prefix = draw(st.sampled_from(["Bearer ", "bearer ", "Authorization: Bearer ", "Bearer  "]))
    token = draw(chars(BEARER, 16, 80)) + draw(st.sampled_from(["", "=", "=="]))
    return prefix + token, [token.rstrip("=")]


@st.composite
def url_passwords(draw: st.DrawFn) -> Secret:
    scheme = draw(
        st.sampled_from(
            ["postgres", "postgresql+psycopg", "mysql", "redis", "amqps", "https", "mongodb+srv"]
        )
    )
    user = draw(chars(ALNUM + "._-", 1, 20))
    password = draw(chars(USERINFO_PASSWORD, 8, 40))
    # A password shaped like `8080/path` cannot be told from a port and a path.
    assume(not re.match(r"\d{1,5}/", password))
    host = draw(chars(string.ascii_lowercase + string.digits, 1, 20))
    tail = draw(st.sampled_from(["", ".example.com", ":5432/app", ".internal:6379/0", "/db?x=1"]))
    return f"{scheme}://{user}:{password}@{host}{tail}", [password]


@st.composite
def authorization_headers(draw: st.DrawFn) -> Secret:
    name = draw(st.sampled_from(["Authorization", "authorization", "Proxy-Authorization"]))
    scheme = draw(st.sampled_from(["Basic", "Token", "token", "Bot", "ApiKey", "Bearer"]))
    credential = draw(chars(ALNUM + "+/=._~-", 4, 80))
    return f"{name}: {scheme} {credential}", [credential]


@st.composite
def netrc_passwords(draw: st.DrawFn) -> Secret:
    host = draw(chars(string.ascii_lowercase + ".", 1, 20))
    login = draw(chars(ALNUM, 1, 12))
    password = draw(chars(ASSIGNED_VALUE, 1, 30))
    assume(not password.startswith("[REDACTED"))
    form = draw(
        st.sampled_from(
            [
                "machine {h} login {l} password {p}",
                "machine {h} password {p}",
                "default login {l} password {p}",
                "machine {h}\n  login {l}\n  password {p}\n",
            ]
        )
    )
    return form.format(h=host, l=login, p=password), [password]


@st.composite
def aws_secret_keys(draw: st.DrawFn) -> Secret:
    key = draw(chars(B64, 40))
    assume(re.search("[G-Zg-z/+]", key))  # not a hex digest
    prose = draw(
        st.sampled_from(
            ["The AWS secret key is {}", "aws secret access key {}", "secret for Amazon S3: {}"]
        )
    )
    return prose.format(key), [key]


SECRET_KEY_NAMES = [
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "PWD",
    "SECRET",
    "TOKEN",
    "API_KEY",
    "API-KEY",
    "APIKEY",
    "ACCESS_KEY",
    "PRIVATE_KEY",
    "SECRET_KEY",
    "CREDENTIALS",
    "CREDENTIAL",
    "AUTH_TOKEN",
    "CLIENT_SECRET",
]
CAMEL_KEY_NAMES = ["apiKey", "authToken", "clientSecret", "accessKey", "privateKey", "secretKey"]
ASSIGNMENTS = ["{k}={v}", "{k}: {v}", '{k} = "{v}"', "{k}='{v}'", '"{k}": "{v}"', "export {k}={v}"]


@st.composite
def secret_assignments(draw: st.DrawFn) -> Secret:
    name = draw(st.sampled_from(SECRET_KEY_NAMES))
    case: Callable[[str], str] = draw(st.sampled_from([str.upper, str.lower, str.title]))
    key = draw(st.sampled_from(["", "DB_", "MY_APP_", "aws_", "STRIPE.", "x-"])) + case(name)
    key = draw(st.sampled_from([key, *CAMEL_KEY_NAMES]))
    value = draw(chars(ASSIGNED_VALUE, 8, 40))
    assume(not value.startswith("[REDACTED"))
    assume(not looks_like_reference(value))  # `get_token()`, `settings.secret`, `$TOKEN`
    # Lowercase words are names under other keys: `secretKey: password` (ExternalSecret).
    assume(not re.fullmatch(r"[a-z]+(?:[-_][a-z]+)*[)\]}]*", value))
    # `<...` is a placeholder (`<your token>`) once the text around it closes it with `>`.
    assume(not value.startswith("<"))
    return draw(st.sampled_from(ASSIGNMENTS)).format(k=key, v=value), [value]


PASSWORD_KEY_NAMES = ["password", "PASSWORD", "DB_PASSWORD", "passwd", "DB_PASS", "dbPass"]


@st.composite
def password_assignments(draw: st.DrawFn) -> Secret:
    """Under a key naming a password even a short value is a secret, and a quoted passphrase
    is one secret, spaces and all."""
    key = draw(st.sampled_from(PASSWORD_KEY_NAMES))
    words = draw(st.lists(chars(ASSIGNED_VALUE, 1, 12), min_size=1, max_size=5))
    quote = draw(st.sampled_from(['"', "'"]))
    quoted = f"{quote}{' '.join(words)}{quote}"
    short = draw(chars(ASSIGNED_VALUE, 3, 7))
    # `password: see the vault`, `(password: it)` are prose: a short plain word, maybe closing
    # a parenthesis, stays as written.
    assume(not re.fullmatch(r"[A-Za-z]{1,5}[)\]}]*", short))
    # `$A]0` is the variable `$A` closing a bracket, as `(password: it)` closes a parenthesis.
    assume(not re.match(f"(?i:{PLACEHOLDER}){BARE_END}", short) and not short.startswith("<"))
    value, parts = draw(st.sampled_from([(quoted, words), (short, [short])]))
    assume(not looks_like_reference(value.strip("\"'")))
    assume(not any(word.startswith("[REDACTED") for word in parts))
    form = draw(st.sampled_from(["{k}={v}", "{k}: {v}", '"{k}": {v}', "{k} = {v}"]))
    return form.format(k=key, v=value), parts


@st.composite
def bench_tokens(draw: st.DrawFn, kind: str) -> Secret:
    """A token of one of the bench's shapes that the hub names `kind` (gitleaks' and
    detect-secrets' provider rules)."""
    shapes = sorted(shape for shape in TOKENS if hub_kind(shape) == kind)
    shape = draw(st.sampled_from(shapes))
    value = TOKENS[shape](random.Random(draw(st.integers(0, 2**32))))
    return value, [value]


@st.composite
def cli_passwords(draw: st.DrawFn) -> Secret:
    password = draw(chars(ALNUM + "!%*+-._~", 6, 24))
    assume(not password.startswith("-") and not looks_like_reference(password))
    # After a long flag a plain lowercase word is prose: `pass --token instead`.
    assume(not re.fullmatch("[a-z]+", password))
    form = draw(
        st.sampled_from(
            [
                "mysql -u root -p{p} shop",
                "curl -u admin:{p} https://api.example.com",
                "sshpass -p '{p}' ssh deploy@host",
                "docker login -u me -p {p} registry.example.com",
                "redis-cli -h cache -a {p} ping",
                "gpg --batch --passphrase {p} -d a.gpg",
                "keytool -list -storepass {p}",
                "openssl pkcs12 -export -passout pass:{p} -out a.p12",
                "openssl enc -aes-256-cbc -k {p} -in a.tar",
                "htpasswd -b .htpasswd admin {p}\n",
                "htpasswd -nbB admin '{p}'\n",
            ]
        )
    )
    return form.format(p=password), [password]


@st.composite
def cookies(draw: st.DrawFn) -> Secret:
    name = draw(st.sampled_from(["sessionid", "session", "sid", "_gitlab_session", "auth"]))
    value = draw(chars(URLSAFE, 8, 64))
    assume(not is_placeholder(value))
    header = draw(st.sampled_from(["Cookie: ", "Set-Cookie: ", "cookie: "]))
    return f"{header}{name}={value}; Path=/", [value]


@st.composite
def pgpass_lines(draw: st.DrawFn) -> Secret:
    host = draw(st.sampled_from(["db.internal", "localhost", "*", "10.0.0.5"]))
    port = draw(st.sampled_from(["5432", "*", "6432"]))
    password = draw(chars(ALNUM + "!%*+-._~", 1, 30))
    assume(not is_placeholder(password))
    # On its own line (indented, in a code span, a comment after it) or after `: `.
    lead, trail = draw(
        st.sampled_from([("", ""), ("    ", ""), ("`", "`"), ("Ran this: ", ""), ("", "  # prod")])
    )
    return f"\n{lead}{host}:{port}:shop:app:{password}{trail}\n", [password]


@st.composite
def config_passwords(draw: st.DrawFn) -> Secret:
    directive = draw(st.sampled_from(["bindpw", "rootpw", "requirepass", "masterauth"]))
    password = draw(chars(ALNUM + "!%*+-._~", 8, 30))
    assume(not is_placeholder(password))
    # On its own line (indented, in a code span, a comment after it) or within a sentence,
    # where a plain lowercase word is prose.
    form = draw(
        st.sampled_from(["{d} {p}", "  {d} {p}  # prod", "`{d} {p}`", "set {d} {p} in the conf"])
    )
    assume(form.startswith(("{d}", " ")) or not re.fullmatch("[a-z]+", password))
    return "\n" + form.format(d=directive, p=password) + "\n", [password]


@st.composite
def sas_signatures(draw: st.DrawFn) -> Secret:
    signature = draw(chars(ALNUM + "%", 30, 64))
    return f"https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={signature}", [signature]


KINDS: dict[str, st.SearchStrategy[Secret]] = {
    "private-key": private_keys(),
    "aws-access-key": whole(
        st.builds(
            str.__add__,
            st.sampled_from(["AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"]),
            chars(UPPER_DIGITS, 16),
        )
    ),
    "gcp-api-key": whole(chars(URLSAFE, 35).map("AIza".__add__)),
    "github-token": whole(
        st.builds(
            "{}_{}".format,
            st.sampled_from(["ghp", "gho", "ghu", "ghs", "ghr"]),
            chars(ALNUM, 36, 80),
        )
    ),
    "github-pat": whole(st.builds("github_pat_{}_{}".format, chars(ALNUM, 22), chars(ALNUM, 59))),
    "gitlab-token": whole(chars(URLSAFE, 20, 50).map("glpat-".__add__)),
    "slack-token": whole(
        st.builds(
            "{}-{}".format,
            st.sampled_from(["xoxa", "xoxb", "xoxp", "xoxo", "xoxs", "xoxr", "xoxe", "xapp"]),
            chars(ALNUM + "-", 10, 80),
        )
    ),
    "slack-webhook": slack_webhooks(),
    "stripe-key": whole(
        st.builds(
            str.__add__,
            st.sampled_from(["sk_live_", "rk_live_", "sk_test_", "rk_test_"]),
            chars(ALNUM, 16, 99),
        )
    ),
    "anthropic-key": whole(
        st.builds(
            "sk-ant-{}{}".format,
            st.sampled_from(["api03-", "admin01-", ""]),
            chars(URLSAFE, 20, 110),
        )
    ),
    "openai-key": openai_keys(),
    "jwt": jwts(),
    "bearer-token": bearer_tokens(),
    "authorization": authorization_headers(),
    "url-password": url_passwords(),
    "secret-assignment": st.one_of(secret_assignments(), password_assignments()),
    "netrc-password": netrc_passwords(),
    "aws-secret-key": aws_secret_keys(),
    "cli-password": cli_passwords(),
    "cookie": cookies(),
    "pgpass-password": pgpass_lines(),
    "config-password": config_passwords(),
    "azure-sas-token": sas_signatures(),
    "discord-webhook": st.builds(
        "https://discord.com/api/webhooks/{}/{}".format,
        st.integers(10**17, 10**18),
        chars(URLSAFE, 60, 80),
    ).map(lambda url: (url, [url.rsplit("/", 1)[1]])),
    "teams-webhook": st.builds(
        "https://shop.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}".format,
        st.uuids(),
        st.uuids(),
        chars("0123456789abcdef", 32),
        st.uuids(),
    ).map(lambda url: (url, [url])),
}
# Every kind added from gitleaks' and detect-secrets' provider rules, from the bench's shapes:
# a fixed generator each, so fewer examples find what there is to find.
TOKEN_KINDS: dict[str, st.SearchStrategy[Secret]] = {
    kind: bench_tokens(kind)
    for kind in sorted({hub_kind(shape) for shape in TOKENS})
    if kind not in KINDS
}
EVERY_KIND = {**KINDS, **TOKEN_KINDS}
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SEPARATORS = st.sampled_from(
    [" ", "\n", "\t", "\r\n", ", ", "; ", " (", ") ", '"', "'", " <", "> "]
)
WORDS = st.sampled_from(
    ["deploy", "the", "key", "config", "=", ":", "use", "é", "日本語", "0x1f", "#", "//", "{", "}"]
)
FILLER = st.one_of(st.text(max_size=40), st.lists(WORDS, max_size=8).map(" ".join))


@st.composite
def embedded(draw: st.DrawFn, secret: st.SearchStrategy[Secret]) -> tuple[str, list[str]]:
    """A secret inside random text, separated from it by whitespace or punctuation."""
    written, parts = draw(secret)
    before = draw(st.one_of(st.just(""), st.builds(str.__add__, FILLER, SEPARATORS)))
    after = draw(st.one_of(st.just(""), st.builds(str.__add__, SEPARATORS, FILLER)))
    original = before + written + after
    for part in parts:
        assume(original.count(part) == 1)
        assume(not any(part in marker for marker in MARKERS))
    return original, parts


def test_every_pattern_kind_has_a_strategy() -> None:
    kinds = {kind for kind in EVERY_KIND if kind != "github-pat"}
    assert kinds == {pattern.kind for pattern in PATTERNS}


@pytest.mark.parametrize("kind", sorted(KINDS))
@FAST
@given(data=st.data())
def test_generated_secret_never_leaks(kind: str, data: st.DataObject) -> None:
    original, parts = data.draw(embedded(KINDS[kind]), label="text")
    result = redact(original)
    for part in parts:
        assert part not in result.text
    assert result.count >= 1
    assert "[REDACTED:" in result.text


@pytest.mark.parametrize("kind", sorted(TOKEN_KINDS))
@FEW
@given(data=st.data())
def test_generated_provider_token_never_leaks_and_is_not_found_twice(
    kind: str, data: st.DataObject
) -> None:
    original, parts = data.draw(embedded(TOKEN_KINDS[kind]), label="text")
    result = redact(original)
    assert all(part not in result.text for part in parts)
    assert f"[REDACTED:{kind}]" in result.text
    assert redact(result.text) == Redacted(result.text, 0)


@st.composite
def many_secrets(draw: st.DrawFn) -> tuple[str, list[str], int]:
    kinds = draw(st.lists(st.sampled_from(sorted(EVERY_KIND)), min_size=1, max_size=6))
    pieces: list[str] = []
    secret_parts: list[str] = []
    for kind in kinds:
        # A key without its END line runs on through whatever base64 follows: one redaction.
        strategy = private_keys(may_lack_end=False) if kind == "private-key" else EVERY_KIND[kind]
        written, parts = draw(strategy)
        pieces += [written, draw(st.sampled_from([" ", "\n", "\n\n", "\t"]))]
        if draw(st.booleans()):
            pieces += [draw(st.lists(WORDS, max_size=5).map(" ".join)), "\n"]
        secret_parts += parts
    original = "".join(pieces)
    for part in secret_parts:
        assume(original.count(part) == 1)
        assume(not any(part in marker for marker in MARKERS))
    return original, secret_parts, len(kinds)


@FAST
@given(many_secrets())
def test_mixed_secrets_never_leak_and_each_is_counted(case: tuple[str, list[str], int]) -> None:
    original, parts, how_many = case
    result = redact(original)
    for part in parts:
        assert part not in result.text
    assert result.count >= how_many


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"url-password"}))
@FAST
@given(data=st.data())
def test_redacting_twice_finds_nothing_new(kind: str, data: st.DataObject) -> None:
    original, _ = data.draw(embedded(KINDS[kind]), label="text")
    once = redact(original)
    assert redact(once.text) == Redacted(once.text, 0)


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_redacting_a_url_password_twice_finds_nothing_new(data: st.DataObject) -> None:
    original, _ = data.draw(embedded(KINDS["url-password"]), label="text")
    once = redact(original)
    assert redact(once.text) == Redacted(once.text, 0)


@settings(max_examples=50, deadline=None)
@given(password=chars(USERINFO_PASSWORD, 8, 40), host=chars(string.ascii_lowercase, 1, 20))
def test_url_password_with_empty_user_never_leaks(password: str, host: str) -> None:
    original = f"redis://:{password}@{host}:6379/0"
    assume(original.count(password) == 1)
    assert password not in redact(original).text


HEX_DIGESTS = st.builds(
    lambda algorithm, data: hashlib.new(algorithm, data).hexdigest(),
    st.sampled_from(["md5", "sha1", "sha256", "sha512"]),
    st.binary(),
)
BASE64 = st.builds(
    lambda encode, data: encode(data.encode()).decode(),
    st.sampled_from([base64.b64encode, base64.urlsafe_b64encode]),
    st.text(min_size=1, max_size=200),
)
NOT_SECRETS = st.one_of(
    HEX_DIGESTS,
    HEX_DIGESTS.map(lambda digest: f"sha256:{digest}"),
    HEX_DIGESTS.map(lambda digest: f"commit {digest[:40]}"),
    HEX_DIGESTS.map(lambda digest: digest[:7]),
    st.uuids().map(str),
    st.uuids().map(lambda u: str(u).upper()),
    st.uuids().map(lambda u: u.hex),
    BASE64,
)


@FAST
@given(st.lists(NOT_SECRETS, min_size=1, max_size=8), st.sampled_from([" ", "\n", ", ", " = "]))
def test_hashes_uuids_and_base64_are_left_alone(values: list[str], separator: str) -> None:
    original = separator.join(values)
    assert redact(original) == Redacted(original, 0)


PLAIN_KEYS = [
    "author",
    "max_tokens",
    "num_tokens",
    "token_count",
    "tokenizer",
    "password_hint_shown",
    "password_min_length",
    "secret_santa",
    "timeout",
    "retries",
    "user",
    "host",
    "TOKEN_TTL_SECONDS",
    "SECRETS_DIR_MODE",
]


@FAST
@given(
    st.sampled_from(PLAIN_KEYS),
    st.sampled_from(["{k}={v}", "{k} = {v}", "{k}: {v}"]),
    st.one_of(
        st.integers(min_value=0).map(str),
        st.sampled_from(["true", "false", "Jane", "None"]),
        chars(ALNUM + "_.", 1, 40),
    ),
)
def test_settings_whose_key_names_no_secret_are_left_alone(key: str, form: str, value: str) -> None:
    original = form.format(k=key, v=value)
    assert redact(original) == Redacted(original, 0)
