"""A generated secret corpus: every kind of secret the hub redacts, placed in code, .env, JSON,
YAML, URLs and logs (each must be redacted), and look-alikes that must be left alone (git SHAs,
UUIDs, sha256 digests, base64 images, names such as `password_hash`).

    python bench/redaction.py [--seed N] [--rounds N]

prints the share redacted per kind and per place, and every miss. tests/hub/test_redaction_corpus
holds the figures: 100% of secrets redacted, 0 look-alikes touched.
"""

import argparse
import base64
import hashlib
import random
import string
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from aletheia_hub.redact import redact

ALNUM: Final = string.ascii_letters + string.digits
PLACES: Final = ("code", "env", "json", "yaml", "url", "log", "cli")


@dataclass(frozen=True, slots=True)
class Case:
    kind: str  # the secret's kind, or `look-alike:<what>`
    place: str
    text: str
    secret: str | None  # the part that must not survive; None for a look-alike

    @property
    def is_secret(self) -> bool:
        return self.secret is not None


def _token(rng: random.Random, length: int, alphabet: str = ALNUM) -> str:
    """Random characters with at least one digit, one lower and one upper letter where the
    alphabet has them: real keys mix them, and shapes such as OpenAI's require a digit."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        kinds = [set(value) & set(group) for group in (string.digits, string.ascii_lowercase)]
        if all(kinds) or not all(set(alphabet) & set(g) for g in (string.digits, "abc")):
            return value


def _pem(rng: random.Random) -> str:
    body = base64.b64encode(rng.randbytes(180)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])


def _jwt(rng: random.Random) -> str:
    def part(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    header = part(b'{"alg":"HS256","typ":"JWT"}')
    claims = part(f'{{"sub":"{rng.randint(1, 10**6)}","name":"Ada"}}'.encode())
    return f"{header}.{claims}.{part(rng.randbytes(32))}"


# kind -> a new secret value of that kind (standalone token shapes)
TOKENS: Final[dict[str, Callable[[random.Random], str]]] = {
    "aws-access-key": lambda r: "AKIA" + _token(r, 16, string.ascii_uppercase + string.digits),
    "gcp-api-key": lambda r: "AIza" + _token(r, 35, ALNUM + "_-"),
    "github-token": lambda r: r.choice(["ghp_", "gho_", "ghs_"]) + _token(r, 36),
    "github-fine-grained-token": lambda r: "github_pat_" + _token(r, 82, ALNUM + "_"),
    "gitlab-token": lambda r: "glpat-" + _token(r, 20, ALNUM + "_-"),
    "slack-token": lambda r: f"xoxb-{r.randint(10**11, 10**12)}-{_token(r, 24)}",
    "stripe-key": lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + _token(r, 24),
    "anthropic-key": lambda r: "sk-ant-api03-" + _token(r, 80, ALNUM + "_-"),
    "openai-key": lambda r: "sk-proj-" + _token(r, 48, ALNUM + "_-"),
    "jwt": _jwt,
}
KEY_NAMES: Final = (
    "password", "DB_PASSWORD", "db_pass", "passphrase", "secret", "client_secret", "api_key",
    "apiKey", "access_key", "auth_token", "token", "credentials", "SECRET_KEY", "private_key",
)  # fmt: skip


def _places_for_token(value: str, rng: random.Random) -> dict[str, str]:
    """A standalone token in each place, under a neutral name where one is needed."""
    name = rng.choice(["KEY", "value", "upstream", "x"])
    return {
        "code": f'client = Client("{value}")  # deploy\n',
        "env": f"UPSTREAM_{name.upper()}={value}\n",
        "json": f'{{"{name}": "{value}", "retries": 3}}',
        "yaml": f"service:\n  {name}: {value}\n  port: 8080\n",
        "url": f"https://api.example.com/v1/hooks?key={value}&page=2",
        "log": f"2026-11-30T12:00:00Z INFO request accepted with {value} from 10.0.0.7",
    }


def _places_for_assignment(name: str, value: str) -> dict[str, str]:
    return {
        "code": f'{name} = "{value}"\nconnect(user="app")\n',
        "env": f"{name.upper()}={value}\nexport {name.upper()}='{value}'\n",
        "json": f'{{"user": "app", "{name}": "{value}"}}',
        "yaml": f"db:\n  user: app\n  {name}: {value}\n  env:\n    - {name.upper()}={value}\n",
        "url": f"https://example.com/login?{name}={value}&next=/home",
        "log": f"2026-11-30 12:00:01 DEBUG config loaded {name}={value} retries=3",
        "cli": f"deploy --{name.lower().replace('_', '-')}={value} --region eu-west-1",
    }


def secret_cases(rng: random.Random) -> Iterator[Case]:
    """One round of secrets: every kind in every place it can take."""
    for kind, make in TOKENS.items():
        for place, text in _places_for_token(value := make(rng), rng).items():
            yield Case(kind, place, text, value)
    for name in KEY_NAMES:
        value = _token(rng, rng.randint(8, 24), ALNUM + "!#%&*+-.^_~")
        for place, text in _places_for_assignment(name, value).items():
            yield Case("secret-assignment", place, text, value)
    password = _token(rng, 14, ALNUM + "!*-_~")
    for scheme in ("postgresql", "redis", "amqp", "https"):
        url = f"{scheme}://app:{password}@db.internal:5432/shop"
        for place, text in _places_for_token(url, rng).items():
            yield Case("url-password", place, text, password)
    bearer = _token(rng, 40, ALNUM + "-._~")
    for place, text in {
        "code": f'headers = {{"Authorization": "Bearer {bearer}"}}',
        "env": f'CURL_HEADER="Authorization: Bearer {bearer}"\n',
        "json": f'{{"headers": {{"Authorization": "Bearer {bearer}"}}}}',
        "yaml": f"headers:\n  Authorization: Bearer {bearer}\n",
        "url": f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com/v1/me",
        "log": f"12:00:02 WARN retrying with bearer {bearer} after 401",
    }.items():
        yield Case("bearer-token", place, text, bearer)
    basic = base64.b64encode(f"app:{_token(rng, 12)}".encode()).decode()
    yield Case("authorization", "log", f"> Authorization: Basic {basic}\n> Accept: */*", basic)
    netrc = _token(rng, 16)
    yield Case(
        "netrc-password", "env", f"machine api.example.com login app password {netrc}\n", netrc
    )
    aws_secret = _token(rng, 40, ALNUM + "/+")
    for place, text in {
        "env": f"AWS_SECRET_ACCESS_KEY={aws_secret}\n",
        "code": f'aws_secret_access_key = "{aws_secret}"',
        "yaml": f"aws:\n  secret_access_key: {aws_secret}\n",
        "log": f"aws secret for deploy is {aws_secret} (rotate monthly)",
    }.items():
        yield Case("aws-secret-key", place, text, aws_secret)
    team, channel = (_token(rng, 8, string.ascii_uppercase) for _ in range(2))
    hook = f"https://hooks.slack.com/services/T{team}/B{channel}/{_token(rng, 24)}"
    yield Case("slack-webhook", "yaml", f"alerts:\n  webhook: {hook}\n", hook.rsplit("/", 1)[1])
    yield Case("slack-webhook", "log", f"posting to {hook} failed: 404", hook.rsplit("/", 1)[1])
    key = _pem(rng)
    body_line = key.splitlines()[2]
    for place, text in {
        "code": f'KEY = """\n{key}\n"""',
        "env": "TLS_KEY=" + key.replace("\n", "\\n"),
        "json": '{"tls": {"key": "' + key.replace("\n", "\\n") + '"}}',
        "yaml": "tls:\n  key: |\n    " + key.replace("\n", "\n    ") + "\n",
        "log": f"loaded key material:\n{key}\nserver ready",
    }.items():
        yield Case("private-key", place, text, body_line)


def look_alike_cases(rng: random.Random) -> Iterator[Case]:
    """Things that look random or sound secret and must be left alone."""
    sha = hashlib.sha1(rng.randbytes(8)).hexdigest()
    digest = hashlib.sha256(rng.randbytes(8)).hexdigest()
    image = base64.b64encode(rng.randbytes(300)).decode()
    ident = str(uuid.UUID(bytes=rng.randbytes(16)))
    yield Case("look-alike:git-sha", "log", f"commit {sha}\nAuthor: Ada <ada@example.com>", None)
    yield Case("look-alike:git-sha", "code", f'PINNED = "{sha}"  # v2.3.1', None)
    yield Case("look-alike:git-sha", "url", f"https://github.com/org/repo/commit/{sha}", None)
    yield Case("look-alike:uuid", "json", f'{{"id": "{ident}", "kind": "order"}}', None)
    yield Case("look-alike:uuid", "log", f"request {ident} finished in 12 ms", None)
    yield Case("look-alike:sha256", "yaml", f"image: shop/api@sha256:{digest}\n", None)
    yield Case("look-alike:sha256", "env", f"ARTIFACT_SHA256={digest}\n", None)
    yield Case(
        "look-alike:base64-image", "code", f'<img src="data:image/png;base64,{image}">', None
    )
    yield Case(
        "look-alike:base64-image", "json", f'{{"icon": "data:image/png;base64,{image}"}}', None
    )
    for text in (
        "password_hash = hash_password(form.password)",
        "user.password_hash: str",
        "token_count = len(tokens)",
        "max_tokens = 4096",
        "password_reset_url = build_url('/reset')",
        "if not secret_manager.enabled: return",
        "api_key_header = APIKeyHeader(name='X-API-Key')",
        "Set the password in the vault, then restart.",
        "password: ${DB_PASSWORD}",
        "DB_PASSWORD=<your password>",
        "token = os.environ['GITHUB_TOKEN']",
        "credentials: include",
    ):
        yield Case("look-alike:name", "code", text, None)


def corpus(seed: int = 7, rounds: int = 3) -> list[Case]:
    """Every case of `rounds` rounds, the same for the same seed."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for _ in range(rounds):
        cases += secret_cases(rng)
        cases += look_alike_cases(rng)
    return cases


def is_handled(case: Case) -> bool:
    """A secret is gone from the redacted text; a look-alike is left untouched."""
    result = redact(case.text)
    if case.secret is None:
        return result.count == 0 and result.text == case.text
    return case.secret not in result.text and result.count > 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    cases = corpus(args.seed, args.rounds)
    total: Counter[str] = Counter()
    good: Counter[str] = Counter()
    misses = []
    for case in cases:
        for key in (case.kind, f"place:{case.place}"):
            total[key] += 1
            good[key] += is_handled(case)
        if not is_handled(case):
            misses.append(case)
    secrets = [case for case in cases if case.is_secret]
    alikes = [case for case in cases if not case.is_secret]
    redacted = sum(is_handled(case) for case in secrets)
    touched = sum(not is_handled(case) for case in alikes)
    print(f"secrets redacted: {redacted}/{len(secrets)} ({100 * redacted / len(secrets):.1f}%)")
    print(f"look-alikes redacted: {touched}/{len(alikes)}")
    for key in sorted(total):
        print(f"  {key:32} {good[key]:4}/{total[key]:<4}")
    for case in misses:
        print(f"MISS {case.kind} in {case.place}: {redact(case.text).text!r}", file=sys.stderr)
    return 0 if not misses else 1


if __name__ == "__main__":
    raise SystemExit(main())
