"""Secret redaction: every pattern in one place, applied before anything is stored or hashed.

`redact` cleans one text; `redact_json` and `redact_fact` clean the other shapes the store
keeps, where a key or a predicate that names a secret makes its whole value one.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

# Whether a text may hold a match of a pattern: a cheap search that finds something in every
# text the pattern matches.
Gate = Callable[[str], object]


@dataclass(frozen=True, slots=True)
class SecretPattern:
    kind: str
    pattern: re.Pattern[str]
    keep_group: int = 0  # a group kept verbatim in front of the redaction (a key name, a user)
    # When one gate finds nothing, `pattern` cannot match and is not run. Most texts hold no
    # secret, and scanning them with the full patterns (most start with a lookbehind, a word
    # boundary or a case-insensitive alternation: no fast scan for a first character) costs
    # many times more than the gates, which look for a part every match holds.
    gates: tuple[Gate, ...] = ()


def _p(regex: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(regex, flags)


def _either(*alternatives: str) -> str:
    return "(?:" + "|".join(alternatives) + ")"


def _finds(regex: str, flags: int = 0) -> Gate:
    return _p(regex, flags).search


def _finds_reversed(regex: str, flags: int = 0) -> Gate:
    """A gate that searches the text backwards: written so, a case-insensitive word followed
    by a separator starts with the separator, whose characters the regex engine scans for fast
    (it cannot for a case-insensitive letter). Case rules apply character by character, so
    reversing changes nothing else."""
    search = _p(regex, flags).search
    return lambda text: search(text[::-1])


def _reversed_words(*words: str) -> str:
    return _either(*(re.escape(word[::-1]) for word in words))


# Key names. A password key makes even a short value a secret; the others need 6 characters.
# `pass` counts only as a word of its own (DB_PASS, dbPass), never inside `bypass`.
_PASSWORD_NAMES: Final = _either(
    r"passwords?", "passwd", "passphrase", "passcode", r"(?<![A-Za-z])pass", r"(?-i:(?<=[a-z])Pass)"
)
_OTHER_NAMES: Final = _either(
    "secret",
    "pwd",
    "token",
    r"api[_\-]?key",
    r"access[_\-]?key",
    r"private[_\-]?key",
    r"secret[_\-]?key",
    r"credentials?",
    r"auth[_\-]?token",
    r"client[_\-]?secret",
)
# How those names end, reversed: every name above ends in one of these words (case aside).
_PASSWORD_ENDINGS: Final = _reversed_words(
    "pass", "password", "passwords", "passwd", "passphrase", "passcode"
)
_OTHER_ENDINGS: Final = _reversed_words(
    "secret", "pwd", "token", "key", "credential", "credentials"
)
# Atomic, so `password=>x` cannot be read again as `password=` followed by `>x`.
_SEPARATOR: Final = r"(?>[\"'`]?[ \t]*(?:=>|:=|[=:])[ \t]*)"

# Values that stand for a secret rather than being one: templates, variables, masks...
_TEMPLATE: Final = _either(
    r"\$\{\{[^{}\n]*\}\}",  # ${{ secrets.X }}
    r"\$\{[^{}\s]*\}",  # ${DB_PASSWORD}
    r"\$\([^()\n]*\)",  # $(pwd)
    r"(?-i:\$[A-Z_][A-Z0-9_]*)",  # $DB_PASSWORD
    r"\{\{[^{}\n]*\}\}",  # {{ password }}
    r"\{[A-Za-z_]\w*\}",  # {password}
    r"%\(\w+\)s|%s",
    r"(?-i:%[A-Z_][A-Z0-9_]*%)",  # %DB_PASSWORD%
    r"<[^<>\n]+>",  # <your password>
    r"\*{3,}|•{3,}|\.{3}|…",
    r"\[REDACTED[^\]]*\]",
)
# ...and, after a key, words and types that say something about the value instead.
_PLACEHOLDER: Final = _either(
    _TEMPLATE,
    "none|null|nil|true|false|yes|no|on|off|undefined|required|optional|empty|unset",
    "include|omit|same-origin",  # fetch's `credentials`
    "str|string|number|int|integer|bool|boolean|bytes|SecretStr",
    r"Optional\[[^\]\s]*\]",
)
# In code the value may be an expression: a call, a subscript, an attribute without digits.
_IDENT: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_ACCESS: Final = _either(r"\((?:[^()\n]|\([^()\n]*\))*\)", r"\[[^\[\]\n]*\]")
_CODE_REFERENCE: Final = _either(
    rf"{_IDENT}(?:\.{_IDENT})*{_ACCESS}(?:\.{_IDENT}|{_ACCESS})*",
    r"[A-Za-z_]+(?:\.[A-Za-z_]+)+",
)
_BARE_END: Final = r"(?![^\s\"'`,;)\]}])"
# A plain word ends the value, perhaps closing brackets: `(password: it)` is prose, `A]0` not.
_WORD_END: Final = r"[)\]}]*(?![^\s\"'`,;])"
_PLACEHOLDER_VALUE: Final = _p(_PLACEHOLDER + r"\Z", re.IGNORECASE)
_REFERENCE_VALUE: Final = _p(_either(_PLACEHOLDER, _CODE_REFERENCE) + r"\Z", re.IGNORECASE)


def _assignments(
    names: str, endings: str, quoted_min: int, short_ok: bool
) -> tuple[SecretPattern, ...]:
    """`KEY=value`, `"key": "value"`: a quoted value is redacted whole, spaces included. A bare
    value needs 6 characters, unless `short_ok` and it is not a plain word (`password: it`).

    `endings`: how every name `names` matches ends, reversed (the gate searches backwards)."""
    # No pattern for what comes before the name (DB_, my.): matching it costs quadratic time
    # on long runs of key characters, and it stays in the text anyway.
    key = rf"{names}{_SEPARATOR}"
    # Backslash escapes are honoured unless that leaves the quote open (`"ends with \"`).
    quoted = (
        rf"({key}([\"'`]))(?!{_PLACEHOLDER}\2)"
        rf"(?:(?:(?!\2)[^\\\r\n]|\\.){{{quoted_min},}}|(?:(?!\2)[^\r\n]){{{quoted_min},}})(?=\2)"
    )
    long_enough = r"(?=[^\s\"'`]{6})"
    if short_ok:
        long_enough = _either(long_enough, rf"(?![a-z]+{_WORD_END})")
    bare = (
        rf"({key}[\"'`]?)(?![\"'`]|{_either(_PLACEHOLDER, _CODE_REFERENCE)}{_BARE_END})"
        rf"{long_enough}[^\s\"'`]*[^\s\"'`,;]"
    )
    # Every match holds a name's ending, then the separator up to its first `=` or `:`.
    gates = (_finds_reversed(rf"[=:][ \t]*[\"'`]?{endings}", re.IGNORECASE),)
    return (
        SecretPattern("secret-assignment", _p(quoted, re.IGNORECASE), 1, gates),
        SecretPattern("secret-assignment", _p(bare, re.IGNORECASE), 1, gates),
    )


_PEM_BEGIN: Final = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END: Final = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_NEWLINES: Final = r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n))+[ \t]*"
# A short line counts as body only when it ends there: prose may follow an unterminated key.
_PEM_LINE: Final = _either(
    r"=?[A-Za-z0-9+/]{16,}={0,2}",
    r"=?[A-Za-z0-9+/]+={0,2}(?=[ \t]*(?:\r?\n|\\r\\n|\\n|[\"'`]|\Z))",
    r"(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):[^\r\n\\]*",
)
# A key without its END line is redacted to the end of its base64 body.
_PEM_UNTERMINATED: Final = rf"(?:[ \t]+[A-Za-z0-9+/]+={{0,2}})*(?:{_PEM_NEWLINES}{_PEM_LINE})*"
_AWS_WORD: Final = r"(?<![A-Za-z])(?i:aws|amazon)(?![a-z])"
_SECRET_WORD: Final = r"(?i:secret)"

# Order matters: specific shapes first, so a key is named by its most precise kind.
PATTERNS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "private-key",
        _p(rf"{_PEM_BEGIN}(?:(?:(?!-----BEGIN )[\s\S])*?{_PEM_END}|{_PEM_UNTERMINATED})"),
    ),
    SecretPattern(
        "aws-access-key",
        _p(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"),
        gates=(_finds(r"A(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA)"),),
    ),
    SecretPattern(
        "gcp-api-key",
        _p(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
        gates=(_finds("AIza"),),
    ),
    SecretPattern(
        "github-token",
        _p(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
        gates=(_finds("gh[pousr]_"),),
    ),
    SecretPattern(
        "github-token",
        _p(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
        gates=(_finds("github_pat_"),),
    ),
    SecretPattern(
        "gitlab-token",
        _p(r"\bglpat-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"),
        gates=(_finds("glpat-"),),
    ),
    SecretPattern(
        "slack-token",
        _p(r"\b(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])"),
        gates=(_finds("x(?:ox|app)"),),
    ),
    SecretPattern(
        "slack-webhook",
        _p(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    SecretPattern(
        "stripe-key",
        _p(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
        gates=(_finds("_(?:live|test)_"),),
    ),
    SecretPattern(
        "anthropic-key",
        _p(r"\bsk-ant-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])"),
        gates=(_finds("sk-ant-"),),
    ),
    SecretPattern(
        "openai-key",
        _p(
            r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])"
        ),
        gates=(_finds("sk-"),),
    ),
    SecretPattern(
        "jwt",
        _p(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        gates=(_finds("eyJ"),),
    ),
    SecretPattern(
        "bearer-token",
        _p(r"(\b[Bb]earer\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
        keep_group=1,
        gates=(_finds(r"earer\s"),),
    ),
    SecretPattern(
        "authorization",
        _p(
            r"(\b(?:Proxy-)?Authorization[\"'`]?[ \t]*[:=][ \t]*[\"'`]?"
            r"(?:Basic|Bearer|Token|Bot|ApiKey|Api-Key|Key|SSWS|Negotiate|NTLM)[ \t]+)"
            rf"(?!realm=|{_TEMPLATE}{_BARE_END})[^\s\"'`]{{4,}}",
            re.IGNORECASE,
        ),
        keep_group=1,
        gates=(_finds_reversed(r"[:=][ \t]*[\"'`]?noitazirohtua", re.IGNORECASE),),
    ),
    SecretPattern(
        "url-password",
        _p(
            r"((?<![a-zA-Z0-9+.\-])[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]*:)"
            # `host:8080/path@x` is a port and a path, unless the user is empty (`redis://:`).
            rf"(?!(?<!/:)\d{{1,5}}/|{_TEMPLATE}@)"
            # Up to the last `@` of the run, without backtracking: long URL-like runs stay linear.
            r"(?:[^\s@]|@(?=[^\s@]*@)){1,1024}+(?=@)"
        ),
        keep_group=1,
        gates=(_finds("://"),),
    ),
    *_assignments(_PASSWORD_NAMES, _PASSWORD_ENDINGS, quoted_min=1, short_ok=True),
    *_assignments(_OTHER_NAMES, _OTHER_ENDINGS, quoted_min=6, short_ok=False),
    SecretPattern(
        "netrc-password",
        _p(
            r"((?:\bmachine[ \t]+\S+|\bdefault)(?:\s+login[ \t]+\S+)?\s+password[ \t]+"
            # alone on its line, a plain lowercase word is a title (`password reset`), not netrc
            r"|^[ \t]*(?:login[ \t]+\S+[ \t]+)?password[ \t]+(?=\S+[ \t]*$)(?![a-z]+[ \t]*$))"
            r"(?!\[REDACTED)\S+",
            re.MULTILINE,
        ),
        keep_group=1,
        gates=(_finds(r"password[ \t]"),),
    ),
    SecretPattern(
        "aws-secret-key",
        _p(
            rf"((?:{_AWS_WORD}[^\n]{{0,60}}?{_SECRET_WORD}|{_SECRET_WORD}[^\n]{{0,60}}?{_AWS_WORD})"
            r"[^\n]{0,60}?)"
            r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[G-Zg-z/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        ),
        keep_group=1,
        gates=(
            _finds(r"[A-Za-z0-9/+]{40}"),
            _finds("secret", re.IGNORECASE),
            _finds("aws|amazon", re.IGNORECASE),
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int


def marker(kind: str) -> str:
    """What a secret of this kind is replaced with."""
    return f"[REDACTED:{kind}]"


def redact(text: str) -> Redacted:
    """The text with every secret replaced by `[REDACTED:<kind>]`, and how many there were."""
    count = 0
    for secret in PATTERNS:
        if not all(gate(text) for gate in secret.gates):
            continue  # the pattern cannot match: a gate finds nothing

        def replace(match: re.Match[str], secret: SecretPattern = secret) -> str:
            nonlocal count
            count += 1
            kept = match.group(secret.keep_group) if secret.keep_group else ""
            return kept + marker(secret.kind)

        text = secret.pattern.sub(replace, text)
    return Redacted(text=text, count=count)


def is_placeholder(value: str) -> bool:
    """True for a value that stands for a secret instead of being one: `${DB_PASSWORD}`,
    `<token>`, `****`, `none`, a type name."""
    return bool(_PLACEHOLDER_VALUE.match(value.strip()))


def looks_like_reference(value: str) -> bool:
    """True for what a `key = value` line in code holds instead of a secret: a placeholder or
    an expression such as `get_token()`, `os.environ["KEY"]` or `settings.secret`."""
    return bool(_REFERENCE_VALUE.match(value.strip()))


# --- shapes: a key or a predicate naming a secret makes its whole value one ------------------

_SECRET_KEY_END: Final = _p(
    _either(_PASSWORD_NAMES, _OTHER_NAMES, "authorization", "cookie") + r"\Z", re.IGNORECASE
)
# Words that join a fact's name to its value: `db password` `is` `...`.
_LINKING_TAIL: Final = _p(
    r"(?:[\s:=]+|\s+(?:is|are|was|were|equals?|set\s+to|value))+\Z", re.IGNORECASE
)
# `{"name": "DB_PASSWORD", "value": "..."}`, as in Kubernetes env lists.
_NAME_KEYS: Final = ("name", "key")
SECRET_VALUE: Final = marker("secret-assignment")


def names_secret(key: str) -> bool:
    """True when a key such as `DB_PASSWORD`, `apiKey` or `prod db password` names a secret."""
    return bool(_SECRET_KEY_END.search("_".join(key.split())))


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
    under a secret's name (`{"password": ...}`, `{"name": "DB_PASSWORD", "value": ...}`)."""
    if isinstance(value, str):
        clean = redact(value)
        return RedactedJson(clean.text, clean.count)
    if isinstance(value, list):
        items = [redact_json(item) for item in value]
        return RedactedJson([item.value for item in items], sum(item.count for item in items))
    if not isinstance(value, dict):
        return RedactedJson(value, 0)
    named = any(isinstance(value.get(key), str) and names_secret(value[key]) for key in _NAME_KEYS)
    cleaned: dict[str, object] = {}
    count = 0
    for key, item in value.items():
        clean_key = redact(str(key))
        count += clean_key.count
        secret_by_name = names_secret(str(key)) or (named and key == "value")
        if secret_by_name and _holds_secret(item):
            cleaned[clean_key.text] = SECRET_VALUE
            count += 1
        else:
            clean_item = redact_json(item)
            cleaned[clean_key.text] = clean_item.value
            count += clean_item.count
    return RedactedJson(cleaned, count)


def redact_fact(subject: str, predicate: str, obj: str) -> tuple[Redacted, Redacted, Redacted]:
    """A fact redacted as one statement: each part on its own, and the whole object when the
    subject and predicate name a secret (`prod db` `password` `...`)."""
    parts = redact(subject), redact(predicate), redact(obj)
    name = _LINKING_TAIL.sub("", f"{subject} {predicate}")
    if names_secret(name) and _holds_secret(obj):
        return parts[0], parts[1], Redacted(SECRET_VALUE, max(parts[2].count, 1))
    return parts
