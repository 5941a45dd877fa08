"""Key names that name a secret (detect-secrets' keyword list, gitleaks' generic keywords), as
regexes: read forwards (a JSON key, a fact) or found at the end of an identifier."""

import re
from dataclasses import dataclass
from typing import Final

from aletheia_hub.redact.patterns import compile_, either, reversed_words

# Names as words joined by `_`; each matches with `_`, `-` or nothing between its words.
# A password's name makes even a short value a secret; the others need 6 characters.
_PASSWORD_WORDS: Final = (
    "password", "passwords", "passwd", "passphrase", "passcode", "key_pass", "store_pass",
    "bind_pw", "root_pw",
)  # fmt: skip
# Who a `_key` belongs to, when that makes it a secret whatever it holds.
_KEY_OWNERS: Final = (
    "api", "access", "private", "priv", "secret", "account", "app", "application", "auth",
    "client", "db", "database", "encryption", "signing", "master", "service", "hmac", "jwt",
    "webhook", "license", "shared_access", "pre_shared",
)  # fmt: skip
_SECRET_WORDS: Final = (
    "secret", "pwd", "token", "credential", "credentials", "authtok", "secret_key_base",
    "shared_access_signature", *(f"{owner}_key" for owner in _KEY_OWNERS),
)  # fmt: skip
# Short words that count only on their own or as a camelCase hump: `DB_PASS`, `dbPass`, never
# `bypass` or `compass`.
_PASSWORD_SHORT: Final = ("pass",)
_SECRET_SHORT: Final = ("creds", "psk")


def _spellings(name: str) -> list[str]:
    """`api_key` -> apikey, api_key, api-key."""
    first, *rest = name.split("_")
    spellings = [first]
    for word in rest:
        spellings = [f"{done}{joint}{word}" for done in spellings for joint in ("", "_", "-")]
    return spellings


@dataclass(frozen=True, slots=True)
class _Look:
    """A name an identifier may end with, and what must (or must not) stand before it."""

    name: str
    before: tuple[str, ...] = ()  # character classes, in order
    not_before: bool = False
    case_sensitive: bool = False

    def suffix(self) -> str:
        """Holds where an identifier ending in the name ends (read forwards)."""
        name, before = re.escape(self.name), "".join(self.before)
        look = f"(?<={name})(?<!{before}{name})" if self.not_before else f"(?<={before}{name})"
        return f"(?-i:{look})" if self.case_sensitive else look

    def reversed_prefix(self) -> str:
        """Matches the name where a reversed identifier starts with it."""
        name, before = re.escape(self.name[::-1]), "".join(reversed(self.before))
        look = name + (f"(?!{before})" if self.not_before else f"(?={before})" if before else "")
        return f"(?-i:{look})" if self.case_sensitive else look


def _looks(words: tuple[str, ...], short: tuple[str, ...]) -> list[_Look]:
    looks = [_Look(spelling) for word in words for spelling in _spellings(word)]
    for word in short:
        looks += [
            _Look(word, ("[A-Za-z]",), not_before=True),
            _Look(word.capitalize(), ("[a-z]",), case_sensitive=True),
        ]
    return looks


def _forward(words: tuple[str, ...], short: tuple[str, ...]) -> str:
    """Matches one of the names where it starts."""
    return either(
        *(re.escape(spelling) for word in words for spelling in _spellings(word)),
        *(rf"(?<![A-Za-z]){word}|(?-i:(?<=[a-z]){word.capitalize()})" for word in short),
    )


def _suffix(looks: list[_Look]) -> str:
    """Holds where an identifier that ends in one of the names ends. Grouped by their last
    three letters: an identifier that ends otherwise fails after a few short looks back."""
    groups: dict[str, list[_Look]] = {}
    for look in looks:
        plain = not look.case_sensitive and len(look.name) > 3
        groups.setdefault(look.name[-3:].lower() if plain else repr(look), []).append(look)
    alternatives = []
    for tail, members in groups.items():
        if len(members) == 1:
            alternatives.append(members[0].suffix())
        else:
            inner = either(*(member.suffix() for member in members))
            alternatives.append(f"(?<={re.escape(tail)}){inner}")
    return either(*alternatives)


def _reversed(looks: list[_Look]) -> str:
    return either(*(look.reversed_prefix() for look in looks))


_PASSWORD_LOOKS: Final = _looks(_PASSWORD_WORDS, _PASSWORD_SHORT)
_OTHER_LOOKS: Final = _looks(_SECRET_WORDS, _SECRET_SHORT)
# gitleaks' generic-api-key keywords that need a random value: a key word ending a longer
# name (`SIGNING_KEY`, `webhookKey`), `auth` (Docker's config.json, .npmrc) and session ids.
_RANDOM_LOOKS: Final = [
    _Look("key", ("[A-Za-z0-9]", "[_.\\-]")),
    _Look("Key", ("[a-z0-9]",), case_sensitive=True),
    _Look("auth", ("[A-Za-z]",), not_before=True),
    _Look("Auth", ("[a-z0-9]",), case_sensitive=True),
    *(_Look(spelling, ("[A-Za-z]",), not_before=True) for spelling in _spellings("session_id")),
]

PASSWORD_NAMES: Final = _forward(_PASSWORD_WORDS, _PASSWORD_SHORT)
OTHER_NAMES: Final = _forward(_SECRET_WORDS, _SECRET_SHORT)
PASSWORD_SUFFIX: Final = _suffix(_PASSWORD_LOOKS)
OTHER_SUFFIX: Final = _suffix(_OTHER_LOOKS)
RANDOM_SUFFIX: Final = _suffix(_RANDOM_LOOKS)
# The same names read backwards, where a reversed identifier starts.
PASSWORD_REVERSED: Final = _reversed(_PASSWORD_LOOKS)
OTHER_REVERSED: Final = _reversed(_OTHER_LOOKS)
RANDOM_REVERSED: Final = _reversed(_RANDOM_LOOKS)
# How those names end, reversed: every name above ends in one of these words (case aside).
PASSWORD_ENDINGS: Final = reversed_words(
    "pass", "password", "passwords", "passwd", "passphrase", "passcode", "pw"
)
OTHER_ENDINGS: Final = reversed_words(
    "secret", "pwd", "token", "key", "credential", "credentials", "creds", "psk", "authtok",
    "base", "signature",
)  # fmt: skip
RANDOM_ENDINGS: Final = reversed_words("key", "auth", "id")

# `DB_PASSWORD`, `STRIPE_KEY`: a name in capitals ending in _KEY names a secret in JSON too.
ENV_KEY: Final = r"(?-i:(?<=[A-Za-z0-9]_)KEY)"
# For names_secret: a JSON key or a fact that names a secret.
SECRET_NAME_END: Final = compile_(
    either(PASSWORD_NAMES, OTHER_NAMES, ENV_KEY, "authorization", "cookie") + r"\Z",
    re.IGNORECASE,
)

# Keys named `..._KEY` that are not secrets (gitleaks' allowlist of generic keys, and more).
_PLAIN_KEY_OWNERS: Final = (
    "public", "publishable", "pub", "primary", "foreign", "sort", "partition", "range", "hash",
    "cache", "idempotency", "dedupe?", "lookup", "routing", "row", "group", "bucket", "object",
    "s3", "i18n", "translation", "label", "composite", "unique", "natural", "surrogate",
    "index", "idx", "schema", "sequence", "map", "dict", "list", "item", "node",
)  # fmt: skip
_PLAIN_KEY_PREFIX: Final = compile_(either(*_PLAIN_KEY_OWNERS) + r"[_.\-]?\Z", re.IGNORECASE)
# A name qualified as a digest of the secret (`checksum/secret`, `sha256_token`) names none.
_DIGEST_NAME: Final = compile_(
    r"(?<![A-Za-z])(?:checksum|hash|digest|sha(?:1|256|512)?|md5|fingerprint)[/_.\-][\w\-.]*\Z",
    re.IGNORECASE,
)


def names_a_plain_key(text: str, end: int) -> bool:
    """True when the name that ends with `key` at `end` in `text` is one such as PUBLIC_KEY."""
    return bool(_PLAIN_KEY_PREFIX.search(text, max(0, end - 27), end - 3))


def names_a_digest(text: str, end: int) -> bool:
    """True when the name that ends at `end` in `text` is one such as `checksum/secret`."""
    return bool(_DIGEST_NAME.search(text, max(0, end - 40), end))


def names_secret(key: str) -> bool:
    """True when a key such as `DB_PASSWORD`, `apiKey`, `STRIPE_KEY` or `prod db password`
    names a secret (`PUBLIC_KEY`, `password_hash` do not)."""
    name = "_".join(key.split())
    found = SECRET_NAME_END.search(name)
    is_key = name[-3:].lower() == "key"
    return bool(found) and not (is_key and names_a_plain_key(name, len(name)))
