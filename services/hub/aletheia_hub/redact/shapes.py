"""Redaction of the other shapes the store keeps: JSON values and facts, where a key or a
predicate that names a secret makes its whole value one."""

import re
from dataclasses import dataclass
from typing import Final

from aletheia_hub.private_tags import strip_private
from aletheia_hub.redact.assignments import (
    NAME_KEYS,
    PAIR_NAME,
    PAIR_VALUE,
    VALUE_KEYS,
    is_placeholder,
)
from aletheia_hub.redact.names import names_secret
from aletheia_hub.redact.patterns import compile_, marker
from aletheia_hub.redact.text import Redacted, redact

# Words that join a fact's name to its value: `db password` `is` `...`.
_LINKING_TAIL: Final = compile_(
    r"(?:[\s:=]+|\s+(?:is|are|was|were|equals?|set\s+to|value))+\Z", re.IGNORECASE
)
# `{"name": "DB_PASSWORD", "value": "..."}` as in Kubernetes env lists, `{"k": ..., "v": ...}`.
_VALUE_KEYS: Final = frozenset(VALUE_KEYS)
SECRET_VALUE: Final = marker("secret-assignment")


_PAIR_NAME: Final = compile_(PAIR_NAME)
_PAIR_VALUE: Final = compile_(PAIR_VALUE)


def _pair_value(value: object) -> bool:
    """A value beside a name that names a secret, where no key says which is the value (a
    two-item list, a two-key object): only one shaped like a secret, so `["token", "auth"]`
    or `{"name": "API_KEY", "source": "vault"}` stay."""
    return (
        isinstance(value, str)
        and bool(_PAIR_VALUE.fullmatch(value))
        and not is_placeholder(value)
        and not names_secret(value)
    )


def _secret_pair(items: list[object]) -> bool:
    """`["STRIPE_KEY", "..."]`, `[["api_key", "..."]]`: a name naming a secret, its value."""
    name = items[0] if len(items) == 2 else None
    return (
        isinstance(name, str)
        and bool(_PAIR_NAME.fullmatch(name))
        and names_secret(name)
        and _pair_value(items[1])
    )


def _holds_secret(value: object) -> bool:
    """A value under a secret's name is a secret, whatever its shape, unless it is empty, a
    flag or a placeholder."""
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, str):
        return bool(value.strip()) and not is_placeholder(value)
    if isinstance(value, dict | list):
        return bool(value)
    return True


@dataclass(frozen=True, slots=True)
class RedactedJson:
    value: object
    count: int


def redact_json(value: object) -> RedactedJson:
    """A JSON value with its secrets redacted: every string, every key, and whole values kept
    under a secret's name (`{"password": ...}`, `{"name": "DB_PASSWORD", "value": ...}`) or
    beside one in a pair (`["STRIPE_KEY", ...]`, `{"env": "SECRET_TOKEN", "setting": ...}`)."""
    if isinstance(value, str):
        clean = redact(value)
        return RedactedJson(clean.text, clean.count)
    if isinstance(value, list):
        if _secret_pair(value):
            name = redact_json(value[0])
            return RedactedJson([name.value, SECRET_VALUE], name.count + 1)
        items = [redact_json(item) for item in value]
        return RedactedJson([item.value for item in items], sum(item.count for item in items))
    if not isinstance(value, dict):
        return RedactedJson(value, 0)
    naming = [
        key for key in NAME_KEYS if isinstance(value.get(key), str) and names_secret(value[key])
    ]
    # `{"env": "SECRET_TOKEN", "setting": ...}`: the other key of a pair holds the value.
    paired = len(naming) == 1 and len(value) == 2
    cleaned: dict[str, object] = {}
    count = 0
    for key, item in value.items():
        clean_key = redact(str(key))
        count += clean_key.count
        secret_by_name = names_secret(str(key)) or (bool(naming) and key in _VALUE_KEYS)
        pair_value = paired and key not in naming and _pair_value(item)
        if (secret_by_name and _holds_secret(item)) or pair_value:
            cleaned[clean_key.text] = SECRET_VALUE
            count += 1
        else:
            clean_item = redact_json(item)
            cleaned[clean_key.text] = clean_item.value
            count += clean_item.count
    return RedactedJson(cleaned, count)


def redact_fact(subject: str, predicate: str, obj: str) -> tuple[Redacted, Redacted, Redacted]:
    """A fact redacted as one statement: each part on its own, and the whole object when the
    subject and predicate name a secret (`prod db` `password` `...`). Private spans go first,
    from each part on its own."""
    subject, predicate, obj = (strip_private(part) for part in (subject, predicate, obj))
    parts = redact(subject), redact(predicate), redact(obj)
    name = _LINKING_TAIL.sub("", f"{subject} {predicate}")
    if names_secret(name) and _holds_secret(obj):
        return parts[0], parts[1], Redacted(SECRET_VALUE, max(parts[2].count, 1))
    return parts
