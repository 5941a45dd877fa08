"""The secrets of the redaction bench, made at run time (this file holds none a scanner would
flag): a generator per token shape of gitleaks' default rules and Yelp's detect-secrets
plugins, and the command lines, connection strings, config lines and JSON that carry a
password by their syntax. Each secret is placed in code, .env, JSON, YAML, URLs, logs and
command lines; look-alikes that must be left alone come last."""

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

ALNUM: Final = string.ascii_letters + string.digits
URLSAFE: Final = ALNUM + "_-"
HEX: Final = "0123456789abcdef"
UPPER_DIGITS: Final = string.ascii_uppercase + string.digits
LOWER_DIGITS: Final = string.ascii_lowercase + string.digits
BECH32: Final = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


@dataclass(frozen=True, slots=True)
class Case:
    kind: str  # the secret's shape, or `look-alike:<what>`
    place: str
    text: str
    secret: str | None  # the part that must not survive; None for a look-alike

    @property
    def is_secret(self) -> bool:
        return self.secret is not None


def token(rng: random.Random, length: int, alphabet: str = ALNUM) -> str:
    """Random characters with at least one digit and one lower letter where the alphabet has
    them: real keys mix them, and shapes such as OpenAI's require a digit."""
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


def _discord(rng: random.Random) -> str:
    user = base64.b64encode(str(rng.randint(10**17, 10**18 - 1)).encode()).decode()
    return f"{user}.{token(rng, 6, URLSAFE)}.{token(rng, 38, URLSAFE)}"


def _hex(length: int) -> Callable[[random.Random], str]:
    return lambda r: token(r, length, HEX)


def _prefixed(prefix: str, length: int, alphabet: str = ALNUM) -> Callable[[random.Random], str]:
    return lambda r: prefix + token(r, length, alphabet)


# shape -> a new secret of that shape, standing alone (gitleaks' rule ids where they exist)
TOKENS: Final[dict[str, Callable[[random.Random], str]]] = {
    "aws-access-key": _prefixed("AKIA", 16, UPPER_DIGITS),
    "gcp-api-key": _prefixed("AIza", 35, URLSAFE),
    "github-token": lambda r: r.choice(["ghp_", "gho_", "ghs_"]) + token(r, 36),
    "github-fine-grained-token": _prefixed("github_pat_", 82, ALNUM + "_"),
    "gitlab-token": _prefixed("glpat-", 20, URLSAFE),
    "slack-token": lambda r: f"xoxb-{r.randint(10**11, 10**12)}-{token(r, 24)}",
    "stripe-key": lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + token(r, 24),
    "anthropic-key": _prefixed("sk-ant-api03-", 80, URLSAFE),
    "openai-key": _prefixed("sk-proj-", 48, URLSAFE),
    "jwt": _jwt,
    # gitleaks' provider rules and detect-secrets' plugins, one shape each
    "age-secret-key": _prefixed("AGE-SECRET-KEY-1", 58, BECH32),
    "google-oauth-client-secret": _prefixed("GOCSPX-", 28, URLSAFE),
    "google-oauth-access-token": _prefixed("ya29.", 72, URLSAFE),
    "gitlab-deploy-token": _prefixed("gldt-", 20, URLSAFE),
    "gitlab-runner-token": _prefixed("glrt-", 20, ALNUM),
    "slack-app-token": lambda r: (
        f"xapp-1-A{token(r, 10, UPPER_DIGITS)}-{token(r, 13, string.digits)}-{token(r, 64, HEX)}"
    ),
    "stripe-webhook-secret": _prefixed("whsec_", 32),
    "npm-token": _prefixed("npm_", 36),
    "pypi-token": _prefixed("pypi-AgEIcHlwaS5vcmc", 120, URLSAFE),
    "rubygems-key": _prefixed("rubygems_", 48, HEX),
    "clojars-token": _prefixed("CLOJARS_", 60, LOWER_DIGITS),
    "huggingface-token": _prefixed("hf_", 34, string.ascii_letters),
    "huggingface-org-token": _prefixed("api_org_", 34, string.ascii_letters),
    "replicate-token": _prefixed("r8_", 37),
    "groq-key": _prefixed("gsk_", 52),
    "xai-key": _prefixed("xai-", 80),
    "perplexity-key": _prefixed("pplx-", 48),
    "langsmith-key": lambda r: f"lsv2_pt_{token(r, 32, HEX)}_{token(r, 10, HEX)}",
    "databricks-token": _prefixed("dapi", 32, HEX),
    "linear-key": _prefixed("lin_api_", 40),
    "notion-token": lambda r: "ntn_" + token(r, 11, string.digits) + token(r, 35),
    "postman-key": lambda r: f"PMAK-{token(r, 24, HEX)}-{token(r, 34, HEX)}",
    "readme-key": _prefixed("rdme_", 70, LOWER_DIGITS),
    "prefect-key": _prefixed("pnu_", 36),
    "frameio-token": _prefixed("fio-u-", 64, URLSAFE),
    "supabase-token": _prefixed("sbp_", 40, HEX),
    "sentry-user-token": _prefixed("sntryu_", 64, HEX),
    "grafana-cloud-token": _prefixed("glc_", 60),
    "grafana-service-account-token": lambda r: f"glsa_{token(r, 32)}_{token(r, 8, HEX)}",
    "azure-ad-client-secret": lambda r: (
        token(r, 3) + r.choice(string.digits) + "Q~" + token(r, 34, ALNUM + "_~.")
    ),
    "alibaba-access-key": _prefixed("LTAI", 20),
    "digitalocean-pat": _prefixed("dop_v1_", 64, HEX),
    "digitalocean-oauth-token": _prefixed("doo_v1_", 64, HEX),
    "heroku-api-key-v2": _prefixed("HRKU-AA", 58, URLSAFE),
    "flyio-token": _prefixed("fo1_", 43, URLSAFE),
    "vault-service-token": _prefixed("hvs.", 96, URLSAFE),
    "terraform-cloud-token": lambda r: f"{token(r, 14)}.atlasv1.{token(r, 67, URLSAFE)}",
    "doppler-token": _prefixed("dp.pt.", 43),
    "dynatrace-token": lambda r: (
        f"dt0c01.{token(r, 24, UPPER_DIGITS)}.{token(r, 64, UPPER_DIGITS)}"
    ),
    "pulumi-token": _prefixed("pul-", 40, HEX),
    "planetscale-token": _prefixed("pscale_tkn_", 43, URLSAFE),
    "scalingo-token": _prefixed("tk-us-", 48, URLSAFE),
    "infracost-token": _prefixed("ico-", 32),
    "openshift-token": _prefixed("sha256~", 43, URLSAFE),
    "artifactory-api-key": _prefixed("AKCp", 69),
    "atlassian-api-token": _prefixed("ATATT3", 186, URLSAFE),
    "harness-pat": lambda r: f"pat.{token(r, 22, URLSAFE)}.{token(r, 24)}.{token(r, 20)}",
    "octopus-deploy-key": _prefixed("API-", 26, UPPER_DIGITS),
    "onepassword-secret-key": lambda r: (
        "A3-" + "-".join(token(r, n, UPPER_DIGITS) for n in (6, 11, 5, 5, 5))
    ),
    "newrelic-user-key": _prefixed("NRAK-", 27, UPPER_DIGITS),
    "sendgrid-key": lambda r: f"SG.{token(r, 22, URLSAFE)}.{token(r, 43, URLSAFE)}",
    "sendinblue-key": lambda r: f"xkeysib-{token(r, 64, HEX)}-{token(r, 16)}",
    "mailchimp-key": lambda r: f"{token(r, 32, HEX)}-us{r.randint(1, 21)}",
    "mailgun-private-api-token": _prefixed("key-", 32, HEX),
    "twilio-api-key": _prefixed("SK", 32, HEX),
    "telegram-bot-token": lambda r: f"{r.randint(10**8, 10**10 - 1)}:AA{token(r, 33, URLSAFE)}",
    "discord-bot-token": _discord,
    "shopify-access-token": _prefixed("shpat_", 32, HEX),
    "shopify-shared-secret": _prefixed("shpss_", 32, HEX),
    "square-access-token": _prefixed("sq0atp-", 22, URLSAFE),
    "facebook-page-token": _prefixed("EAAC", 120),
    "shippo-key": _prefixed("shippo_live_", 40, HEX),
    "duffel-token": _prefixed("duffel_test_", 43, URLSAFE),
    "flutterwave-secret-key": lambda r: f"FLWSECK_TEST-{token(r, 32, HEX)}-X",
    "easypost-key": _prefixed("EZAK", 54),
    "mapbox-secret-token": lambda r: f"sk.eyJ{token(r, 60, URLSAFE)}.{token(r, 22, URLSAFE)}",
    "adobe-client-secret": _prefixed("p8e-", 32),
    "maxmind-license-key": lambda r: f"{token(r, 6)}_{token(r, 29)}_mmk",
    "django-insecure-key": _prefixed("django-insecure-", 50, ALNUM + "!@#%^&*(-_=+)"),
    "cloudflare-origin-ca-key": lambda r: f"v1.0-{token(r, 24, HEX)}-{token(r, 146, HEX)}",
}
# The kind the hub names each token shape by, where it is not the shape's own name.
HUB_KINDS: Final[dict[str, str]] = {
    "github-fine-grained-token": "github-token",
    "google-oauth-client-secret": "google-oauth",
    "google-oauth-access-token": "google-oauth",
    "gitlab-deploy-token": "gitlab-token",
    "gitlab-runner-token": "gitlab-token",
    "slack-app-token": "slack-token",
    "stripe-webhook-secret": "stripe-key",
    "huggingface-org-token": "huggingface-token",
    "sentry-user-token": "sentry-token",
    "grafana-cloud-token": "grafana-token",
    "grafana-service-account-token": "grafana-token",
    "azure-ad-client-secret": "azure-client-secret",
    "alibaba-access-key": "alibaba-key",
    "digitalocean-pat": "digitalocean-token",
    "digitalocean-oauth-token": "digitalocean-token",
    "heroku-api-key-v2": "heroku-key",
    "vault-service-token": "vault-token",
    "terraform-cloud-token": "terraform-token",
    "artifactory-api-key": "artifactory-token",
    "atlassian-api-token": "atlassian-token",
    "harness-pat": "harness-token",
    "octopus-deploy-key": "octopus-key",
    "onepassword-secret-key": "onepassword-token",
    "newrelic-user-key": "newrelic-key",
    "twilio-api-key": "twilio-key",
    "mailgun-private-api-token": "mailgun-key",
    "shopify-access-token": "shopify-token",
    "shopify-shared-secret": "shopify-token",
    "square-access-token": "square-token",
    "facebook-page-token": "facebook-token",
    "flutterwave-secret-key": "flutterwave-key",
    "mapbox-secret-token": "mapbox-token",
    "adobe-client-secret": "adobe-secret",
    "maxmind-license-key": "maxmind-key",
    "django-insecure-key": "django-secret-key",
    "cloudflare-origin-ca-key": "cloudflare-ca-key",
}


def hub_kind(shape: str) -> str:
    """The kind in `[REDACTED:<kind>]` for a secret of this token shape."""
    return HUB_KINDS.get(shape, shape)


def places_for_token(value: str, rng: random.Random) -> dict[str, str]:
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


KEY_NAMES: Final = (
    "password", "DB_PASSWORD", "db_pass", "passphrase", "secret", "client_secret", "api_key",
    "apiKey", "access_key", "auth_token", "token", "credentials", "SECRET_KEY", "private_key",
)  # fmt: skip

# (shape, place, text with {s} for the secret): secrets told by their syntax alone.
CONTEXTS: Final[tuple[tuple[str, str, str], ...]] = (
    ("cli-mysql", "cli", "mysql -u root -p{s} shop < dump.sql"),
    ("cli-mysql", "log", "ran: mysqldump --single-transaction -uroot -p{s} shop | gzip"),
    ("cli-curl-user", "cli", "curl -u admin:{s} https://api.example.com/v1/items"),
    ("cli-curl-user", "code", "subprocess.run(['curl', '--user', 'deploy:{s}', URL])"),
    ("cli-sshpass", "cli", "sshpass -p '{s}' ssh deploy@10.0.0.5 'systemctl restart api'"),
    ("cli-sshpass", "log", "+ sshpass -p {s} scp build.tar.gz deploy@10.0.0.5:/srv"),
    ("cli-docker-login", "cli", "docker login -u me -p {s} registry.example.com"),
    ("cli-docker-login", "yaml", "script:\n  - podman login -u ci -p {s} quay.io\n"),
    ("cli-long-flag", "cli", "gpg --batch --passphrase '{s}' -d backup.tar.gpg"),
    ("cli-long-flag", "cli", "vault-sync --token {s} --addr https://vault.internal"),
    ("cli-redis", "cli", "redis-cli -h cache.internal -a {s} ping"),
    ("cli-sqlcmd", "cli", "sqlcmd -S db.internal -U sa -P '{s}' -Q \"SELECT 1\""),
    ("cli-ldapsearch", "cli", "ldapsearch -x -D cn=admin,dc=example,dc=org -w {s} -b dc=org"),
    ("cli-mongosh", "cli", "mongosh --host db -u admin -p {s} --authenticationDatabase admin"),
    ("cli-zip", "cli", "zip -P {s} backup.zip customers.csv"),
    ("cli-7z", "cli", "7z a -p{s} -mhe=on backup.7z data/"),
    ("cli-keytool", "cli", "keytool -importkeystore -srckeystore a.p12 -srcstorepass {s}"),
    ("cli-openssl", "cli", "openssl pkcs12 -export -in cert.pem -passout pass:{s} -out c.p12"),
    ("cli-openssl", "cli", "openssl enc -aes-256-cbc -pbkdf2 -k {s} -in db.tar -out db.enc"),
    ("cli-openssl", "log", "+ openssl enc -d -aes-256-cbc -pass pass:{s} -in db.enc | tar x"),
    ("cli-htpasswd", "cli", "htpasswd -b /etc/nginx/.htpasswd admin {s}"),
    ("cli-htpasswd", "log", "ran `htpasswd -bcB .htpasswd deploy '{s}'` on the proxy"),
    ("cli-htpasswd", "code", "subprocess.run('htpasswd -nb admin {s} > users', shell=True)"),
    ("cli-ssh-keygen", "cli", "ssh-keygen -t ed25519 -N '{s}' -f ~/.ssh/deploy"),
    ("cli-smbclient", "cli", "smbclient //fs.internal/share -U alice%{s} -c ls"),
    ("cli-sqlplus", "cli", "sqlplus system/{s}@//db.internal:1521/ORCL @migrate.sql"),
    ("cli-rabbitmqctl", "cli", "rabbitmqctl add_user deploy {s}"),
    ("cli-nmcli", "cli", "nmcli dev wifi connect HomeNet password {s}"),
    ("pgpass", "env", "db.internal:5432:shop:app:{s}\n*:*:*:replicator:{s}\n"),
    ("pgpass", "log", "cat ~/.pgpass\nlocalhost:5432:*:postgres:{s}"),
    ("pgpass", "log", "Ran this today: db.internal:5432:shop:app:{s}"),
    ("pgpass", "code", 'PGPASS = """\n    db.internal:5432:shop:app:{s}\n"""'),
    ("pgpass", "log", "Add `replica.internal:6432:*:replicator:{s}` to ~/.pgpass"),
    ("pgpass", "env", "db.internal:5432:shop:app:{s}  # prod\n"),
    (
        "config-bindpw",
        "yaml",
        "uri ldap://ldap.internal/\nbinddn cn=nslcd,dc=example\nbindpw {s}\n",
    ),
    ("config-bindpw", "log", "set bindpw {s} in nslcd.conf, then restart nslcd"),
    ("config-requirepass", "env", "bind 0.0.0.0\nrequirepass {s}\nmasterauth {s}\n"),
    ("config-requirepass", "log", "redis.conf has requirepass {s}"),
    ("config-requirepass", "env", "  requirepass {s}   # prod\n"),
    ("config-requirepass", "code", "Use `masterauth {s}` on the replicas."),
    ("config-rootpw", "env", "database mdb\nrootdn cn=admin,dc=example\nrootpw {s}\n"),
    ("cookie-header", "log", "> GET /account HTTP/1.1\n> Cookie: sessionid={s}; theme=dark\n"),
    ("cookie-header", "code", "headers = {{'Cookie': 'csrftoken=abc; session={s}'}}"),
    ("set-cookie-header", "log", "< Set-Cookie: session={s}; Path=/; HttpOnly; Secure"),
    (
        "azure-storage-connection",
        "env",
        (
            "AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=shopdata;"
            "AccountKey={s};EndpointSuffix=core.windows.net"
        ),
    ),
    (
        "azure-servicebus-connection",
        "json",
        (
            '{{"bus": "Endpoint=sb://shop.servicebus.windows.net/;'
            'SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}"}}'
        ),
    ),
    (
        "azure-sas-url",
        "url",
        (
            "https://shop.blob.core.windows.net/exports/a.csv?sv=2022-11-02&sp=r&se=2026-12-01&sig={s}"
        ),
    ),
    (
        "ado-connection-string",
        "code",
        (
            'conn = "Server=tcp:db.example.net,1433;Database=shop;User ID=app;Password={s};'
            'Encrypt=True;"'
        ),
    ),
    (
        "jdbc-url",
        "yaml",
        "spring:\n  datasource:\n    url: jdbc:postgresql://db/shop?user=app&password={s}\n",
    ),
    ("named-key", "env", "ENCRYPTION_KEY={s}\n"),
    ("named-key", "env", "SIGNING_KEY={s}\n"),
    ("named-key", "yaml", 'stripe:\n  webhookSigningKey: "{s}"\n'),
    ("named-key", "code", "MAILGUN_KEY = '{s}'"),
    ("named-key", "json", '{{"auths": {{"ghcr.io": {{"auth": "{s}"}}}}}}'),
    ("yaml-block-password", "yaml", "db:\n  password: |\n    {s}\n  user: app\n"),
    ("yaml-block-password", "yaml", "smtp:\n  secret: >-\n    {s}\n  host: mail\n"),
    ("k8s-env-pair", "yaml", "env:\n  - name: DB_PASSWORD\n    value: {s}\n  - name: PORT\n"),
    ("k8s-env-pair", "yaml", 'env:\n- name: STRIPE_KEY\n  value: "{s}"\n'),
    ("k8s-env-pair", "json", '{{"env": [{{"name": "API_TOKEN", "value": "{s}"}}]}}'),
    ("work-state-key-value", "work-state", '[{{"key": "STRIPE_KEY", "value": "{s}"}}]'),
    ("work-state-key-value", "work-state", '[{{"k": "api_key", "v": "{s}"}}]'),
    ("work-state-key-value", "work-state", '{{"env": {{"SIGNING_KEY": "{s}"}}}}'),
    ("work-state-key-value", "work-state", '[["api_key", "{s}"], ["region", "eu-west-1"]]'),
    ("work-state-key-value", "work-state", '["STRIPE_KEY", "{s}"]'),
    ("work-state-key-value", "work-state", '[{{"env": "SECRET_TOKEN", "setting": "{s}"}}]'),
)


def _context_secret(shape: str, rng: random.Random) -> str:
    """A secret of the length and alphabet its place takes."""
    if shape.startswith("azure-storage"):
        return base64.b64encode(rng.randbytes(64)).decode()
    if shape.startswith("azure-servicebus"):
        return base64.b64encode(rng.randbytes(32)).decode()
    if shape == "azure-sas-url":
        return base64.b64encode(rng.randbytes(32)).decode().replace("+", "%2B").replace("/", "%2F")
    if shape == "named-key":
        return token(rng, 32, ALNUM)
    if shape.startswith(("cookie", "set-cookie")):
        return token(rng, 32, LOWER_DIGITS)
    return token(rng, rng.randint(10, 16))


def secret_cases(rng: random.Random) -> Iterator[Case]:
    """One round of secrets: every shape in every place it can take."""
    for kind, make in TOKENS.items():
        for place, text in places_for_token(value := make(rng), rng).items():
            yield Case(kind, place, text, value)
    for name in KEY_NAMES:
        value = token(rng, rng.randint(8, 24), ALNUM + "!#%&*+-.^_~")
        for place, text in _places_for_assignment(name, value).items():
            yield Case("secret-assignment", place, text, value)
    for shape, place, template in CONTEXTS:
        secret = _context_secret(shape, rng)
        yield Case(shape, place, template.format(s=secret), secret)
    yield from _classic_cases(rng)


def _classic_cases(rng: random.Random) -> Iterator[Case]:
    password = token(rng, 14, ALNUM + "!*-_~")
    for scheme in ("postgresql", "redis", "amqp", "https"):
        url = f"{scheme}://app:{password}@db.internal:5432/shop"
        for place, text in places_for_token(url, rng).items():
            yield Case("url-password", place, text, password)
    bearer = token(rng, 40, ALNUM + "-._~")
    for place, text in {
        "code": f'headers = {{"Authorization": "Bearer {bearer}"}}',
        "env": f'CURL_HEADER="Authorization: Bearer {bearer}"\n',
        "json": f'{{"headers": {{"Authorization": "Bearer {bearer}"}}}}',
        "yaml": f"headers:\n  Authorization: Bearer {bearer}\n",
        "url": f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com/v1/me",
        "log": f"12:00:02 WARN retrying with bearer {bearer} after 401",
    }.items():
        yield Case("bearer-token", place, text, bearer)
    basic = base64.b64encode(f"app:{token(rng, 12)}".encode()).decode()
    yield Case("authorization", "log", f"> Authorization: Basic {basic}\n> Accept: */*", basic)
    netrc = token(rng, 16)
    yield Case(
        "netrc-password", "env", f"machine api.example.com login app password {netrc}\n", netrc
    )
    aws_secret = token(rng, 40, ALNUM + "/+")
    for place, text in {
        "env": f"AWS_SECRET_ACCESS_KEY={aws_secret}\n",
        "code": f'aws_secret_access_key = "{aws_secret}"',
        "yaml": f"aws:\n  secret_access_key: {aws_secret}\n",
        "log": f"aws secret for deploy is {aws_secret} (rotate monthly)",
    }.items():
        yield Case("aws-secret-key", place, text, aws_secret)
    team, channel = (token(rng, 8, string.ascii_uppercase) for _ in range(2))
    hook = f"https://hooks.slack.com/services/T{team}/B{channel}/{token(rng, 24)}"
    yield Case("slack-webhook", "yaml", f"alerts:\n  webhook: {hook}\n", hook.rsplit("/", 1)[1])
    yield Case("slack-webhook", "log", f"posting to {hook} failed: 404", hook.rsplit("/", 1)[1])
    discord = token(rng, 68, URLSAFE)
    hook = f"https://discord.com/api/webhooks/{rng.randint(10**17, 10**18)}/{discord}"
    yield Case("discord-webhook", "yaml", f"notify:\n  url: {hook}\n", discord)
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
        f'idempotency_key = "{ident}"',
        f"PUBLIC_KEY={image[:44]}",
        "docker run -p 8080:80 -v data:/data shop/api",
        "mysql -u root -p shop < dump.sql",
        "psql --no-password -h db shop",
        "ansible-playbook --ask-pass site.yml",
        "Pass --token to use a token instead of a password.",
        "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519",
        'curl -u "$USER:$PASS" https://api.example.com',
        "client_key: certs/client.key",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db",
        "Set-Cookie: theme=dark; Path=/",
        "requirepass is set in redis.conf; masterauth must match it.",
        "# requirepass foobared",
        "address: fe80:0:0:0:200:f8ff:fe21:67cf",
        "Started: 12:30:45:00:17",
        "`app.py:12:5: E501 line too long`",
        "htpasswd -c .htpasswd admin",
        "openssl enc -d -aes-256-cbc -kfile key.txt -in backup.enc",
        'auth = ("X-Api-Key", api_key)',
    ):
        yield Case("look-alike:name", "code", text, None)
    for item in (
        [{"key": "CACHE_KEY", "value": "user-profile-v2"}],
        [["password", "token"], ["SECRET_KEY", "DEBUG"]],
        {"name": "API_KEY", "source": "vault"},
    ):
        yield Case("look-alike:work-state", "work-state", json.dumps(item), None)
