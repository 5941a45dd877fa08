"""Values whose key names a secret: `KEY=value`, `"key": "value"`, YAML blocks, name/value
pairs, and keys such as `SIGNING_KEY` that hold a random value (gitleaks' generic-api-key)."""

import re
from typing import Final

from aletheia_hub.redact.names import (
    ENV_KEY,
    OTHER_ENDINGS,
    OTHER_NAMES,
    OTHER_REVERSED,
    OTHER_SUFFIX,
    PASSWORD_ENDINGS,
    PASSWORD_NAMES,
    PASSWORD_REVERSED,
    PASSWORD_SUFFIX,
    RANDOM_ENDINGS,
    RANDOM_REVERSED,
    RANDOM_SUFFIX,
    names_a_digest,
    names_a_plain_key,
    names_secret,
)
from aletheia_hub.redact.patterns import (
    Check,
    Gate,
    SecretPattern,
    Starts,
    compile_,
    either,
    finds_reversed,
    reverse,
    reversed_words,
)

# Atomic, so `password=>x` cannot be read again as `password=` followed by `>x`.
SEPARATOR: Final = r"(?>[\"'`]?[ \t]*(?:=>|:=|[=:])[ \t]*)"
_IDENTIFIER: Final = compile_(r"[\w\-.]*")


def _named(suffix: str) -> str:
    """A whole identifier ending in a name of `suffix`, then a separator."""
    return rf"(?<![\w\-.])[\w\-.]*+(?=[\"'`]?[ \t]*(?:=>|:=|[=:])){suffix}{SEPARATOR}"


def _name_starts(reversed_names: str) -> Starts:
    """Where identifiers that end in one of the names start, when a separator follows them.
    Found in the reversed text, where each begins at its separator: the regex engine skips
    fast to `=` and `:`, instead of trying a name at every position (several times slower)."""
    separators = compile_(rf"(?:>=|=:|[=:])[ \t]*[\"'`]?{reversed_names}[\w\-.]*+", re.IGNORECASE)
    return lambda text: sorted(
        len(text) - found.end() for found in separators.finditer(reverse(text))
    )


# A marker cut short at the end of a text, as in a title made of the first 100 characters.
_CUT_MARKER: Final = r"\[(?:R(?:E(?:D(?:A(?:C(?:T(?:E(?:D(?::[\w-]*)?)?)?)?)?)?)?)?)?\Z"
# Values that stand for a secret rather than being one: templates, variables, masks...
TEMPLATE: Final = either(
    r"\$\{\{[^{}\n]*\}\}",  # ${{ secrets.X }}
    r"\$\{[^{}\s]*\}",  # ${DB_PASSWORD}
    r"\$\{[A-Za-z_]\w*:?[-=?+][^{}\n]*\}",  # ${DB_PASSWORD:?set it in .env}
    r"\$\([^()\n]*\)",  # $(pwd)
    r"(?-i:\$[A-Z_][A-Z0-9_]*)",  # $DB_PASSWORD
    r"\{\{[^{}\n]*\}\}",  # {{ password }}
    r"\{[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\}",  # {password}, {form.password}
    r"%\(\w+\)s|%s",
    r"(?-i:%[A-Z_][A-Z0-9_]*%)",  # %DB_PASSWORD%
    r"<[^<>\n]+>",  # <your password>
    r"\*{3,}|•{3,}|\.{3}|…",
    r"\[REDACTED[^\]]*\]",
    _CUT_MARKER,
)
# A file that holds the secret, not the secret (gitleaks allows such paths too).
_PATH: Final = either(
    r"/(?:bin|etc|home|opt|tmp|usr|var|run|srv|mnt|secrets|data|app)/[\w./\-]*",
    r"(?:~|\.{1,2})?/?(?:[\w.\-]+/)*[\w\-]+\.(?:pem|key|crt|cer|der|p12|pfx|jks|keystore|pub|json|txt|asc|gpg)",
)
# A variable named after a secret: `password=TEST_PASSWORD`, `password: newPassword`,
# `"$db_password"`. The secret word ends a name of several words, or stands alone.
_SECRET_WORDS: Final = "password|passwd|pass|pwd|passphrase|secret|token|key|credentials?"
_SECRET_VARIABLE: Final = either(
    rf"\$?\{{?(?:[A-Za-z0-9]+_)+(?:{_SECRET_WORDS})\}}?",
    r"\$?[a-z0-9]+(?-i:Password|Passwd|Pass|Pwd|Passphrase|Secret|Token|Key|Credentials?)",
    r"\$?(?:password|passwd|passphrase|secret|token|credentials?)",
)
# ...and, after a key, words and types that say something about the value instead.
PLACEHOLDER: Final = either(
    TEMPLATE,
    "none|null|nil|true|false|yes|no|on|off|undefined|required|optional|empty|unset",
    "include|omit|same-origin",  # fetch's `credentials`
    "str|string|number|int|integer|bool|boolean|bytes|SecretStr",
    r"Optional\[[^\]\s]*\]",
    r"[|>][-+]?[1-9]?",  # a YAML block follows
    r"\d+/(?:s|sec|second|m|min|minute|h|hour|d|day)s?",  # a rate: `6000/hour`
    _PATH,
    _SECRET_VARIABLE,
)
# A sentence in quotes is a message about a secret (`"Wrong email or password."`).
_SENTENCE: Final = r"(?-i:[A-Z][a-z']*(?:,? [A-Za-z']+){2,}[.!?])"
# Under a key that is not a password's, lowercase words are names (`secretKey: password`).
_WORDS: Final = r"(?-i:[a-z]+(?:[-_][a-z]+)*)"
# In code the value may be an expression: a call, a subscript, an attribute without digits.
_IDENT: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_ACCESS: Final = either(r"\((?:[^()\n]|\([^()\n]*\))*\)", r"\[[^\[\]\n]*\]")
_CODE_REFERENCE: Final = either(
    rf"{_IDENT}(?:\.{_IDENT})*{_ACCESS}(?:\.{_IDENT}|{_ACCESS})*",
    r"[A-Za-z_]+(?:\.[A-Za-z_]+)+",
)
BARE_END: Final = r"(?![^\s\"'`,;)\]}])"
# A plain word ends the value, perhaps closing brackets: `(password: it)` is prose, `A]0` not.
WORD_END: Final = r"[)\]}]*(?![^\s\"'`,;])"
_PLACEHOLDER_VALUE: Final = compile_(PLACEHOLDER + r"\Z", re.IGNORECASE)
_REFERENCE_VALUE: Final = compile_(either(PLACEHOLDER, _CODE_REFERENCE) + r"\Z", re.IGNORECASE)


def _identifier_end(match: re.Match[str]) -> int:
    """Where the name in front of the separator ends (the match starts with the name)."""
    name = _IDENTIFIER.match(match.group(0))
    return match.start() + (len(name.group()) if name else 0)


def _not_a_digest(match: re.Match[str]) -> bool:
    return not names_a_digest(match.string, _identifier_end(match)) and _a_yaml_key(match)


def _a_yaml_key(match: re.Match[str]) -> bool:
    """A plain value on the lines under `key:` counts only where the key opens its line, as
    in YAML: `if password != confirm_password:` ends a line of code, not a key."""
    groups = match.re.groupindex
    if "indicator" not in groups or match.group("block") is None or match.group("indicator"):
        return True
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    return match.string[line_start : match.start()].strip(" \t-\"'") == ""


def is_placeholder(value: str) -> bool:
    """True for a value that stands for a secret instead of being one: `${DB_PASSWORD}`,
    `<token>`, `****`, `none`, a type name."""
    return bool(_PLACEHOLDER_VALUE.match(value.strip()))


def looks_like_reference(value: str) -> bool:
    """True for what a `key = value` line in code holds instead of a secret: a placeholder or
    an expression such as `get_token()`, `os.environ["KEY"]` or `settings.secret`."""
    return bool(_REFERENCE_VALUE.match(value.strip()))


def _valued(
    key: str,
    quoted_min: int,
    short_ok: bool,
    gates: tuple[Gate, ...],
    starts: Starts | None = None,
    block: bool = True,
    check: Check = _not_a_digest,
) -> SecretPattern:
    """The value after `key`, in one pattern (one scan of the text):
    - `key: |` and the lines indented under it, a YAML block scalar, however many;
    - a quoted value, whole, spaces included;
    - a bare value of 6 characters or more, or shorter when `short_ok` and it is not a plain
      word (`password: it`)."""
    long_enough = rf"(?=[^\s\"'`]{{6}})(?!{_WORDS}{WORD_END})"
    if short_ok:
        long_enough = either(r"(?=[^\s\"'`]{6})", rf"(?![a-z]+{WORD_END})")
    heads = [
        rf"(?P<q>[\"'`])(?!(?:{PLACEHOLDER}|{_SENTENCE})(?P=q))",
        rf"[\"'`]?(?![\"'`]|{either(PLACEHOLDER, _CODE_REFERENCE)}{BARE_END}){long_enough}",
    ]
    if block:
        heads.insert(
            0,
            # `key: |` (or `>`) and its indented lines; or `key:` alone with a plain value on
            # the lines indented under it, unless they hold a mapping or a list instead.
            r"(?P<block>(?P<indicator>[|>](?:[-+][1-9]?|[1-9][-+]?)?)?[ \t]*(?:#[^\r\n]*)?"
            r"\r?\n(?P<indent>[ \t]+))(?!\[REDACTED)"
            r"(?(indicator)|(?![-#]|[^\s:]+:(?:[ \t]|\r?\n|$)))(?=\S)",
        )
    # Backslash escapes are honoured unless that leaves the quote open (`"ends with \"`).
    quoted = (
        rf"(?:(?:(?!(?P=q))[^\\\r\n]|\\.){{{quoted_min},}}"
        rf"|(?:(?!(?P=q))[^\r\n]){{{quoted_min},}})(?=(?P=q))"
    )
    # In a connection string the next `;Name=` ends the value (`AccountKey=...;Endpoint...`).
    bare = r"(?:[^\s\"'`;]|;(?![A-Za-z][\w .]{0,40}=))*[^\s\"'`,;]"
    body = rf"(?(q){quoted}|{bare})"
    if block:
        lines = r"\S[^\r\n]*(?:\r?\n(?:(?P=indent)[^\r\n]*|[ \t]*(?=\r?\n)))*"
        body = rf"(?(block){lines}|{body})"
    regex = rf"({key}{either(*heads)}){body}"
    return SecretPattern(
        "secret-assignment",
        compile_(regex, re.IGNORECASE),
        keep_group=1,
        gates=gates,
        check=check,
        starts=starts,
    )


def _assignments(
    suffix: str, reversed_names: str, endings: str, quoted_min: int, short_ok: bool
) -> SecretPattern:
    """`KEY=value`, `"key": "value"`, `key: |` blocks. `suffix` and `reversed_names`: the
    names, as _named and _name_starts take them; `endings`: how every name ends, reversed."""
    # Every match holds a name's ending, then the separator up to its first `=` or `:`.
    gates = (finds_reversed(rf"[=:][ \t]*[\"'`]?{endings}", re.IGNORECASE),)
    return _valued(_named(suffix), quoted_min, short_ok, gates, _name_starts(reversed_names))


_DOTTED_NAME: Final = compile_(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _random_key(match: re.Match[str]) -> bool:
    """A value with a digit that is no attribute (`settings.SIGNING_KEY_V2`), under a key
    that does more than sort or look up (`PUBLIC_KEY`, `cache_key`)."""
    value = match.group(0)[len(match.group(1)) :]
    if not any(char.isdigit() for char in value) or _DOTTED_NAME.fullmatch(value):
        return False
    end = _identifier_end(match)
    is_key = match.string[end - 3 : end].lower() == "key"
    return not (is_key and names_a_plain_key(match.string, end)) and _not_a_digest(match)


# `- name: DB_PASSWORD` then `value: ...` (Kubernetes env lists), or the same pair in JSON
# (`{"key": "STRIPE_KEY", "value": ...}`, `{"k": "api_key", "v": ...}`), as redact_json reads.
NAME_KEYS: Final = ("name", "key", "k", "n", "var", "variable", "env", "param", "parameter")
VALUE_KEYS: Final = ("value", "v", "val", "default")
_NAMED_VALUE: Final = (
    rf"\b{either(*NAME_KEYS)}[\"'`]?[ \t]*[:=][ \t]*[\"'`]?[\w.\-]{{0,60}}?"
    rf"{either(PASSWORD_NAMES, OTHER_NAMES, ENV_KEY)}[\"'`]?[ \t]*"
    rf"(?:,[ \t]*|\r?\n[ \t]*(?:-[ \t]+)?)[\"'`]?{either(*VALUE_KEYS)}{SEPARATOR}"
)
_NAME_IN_PAIR: Final = compile_(
    rf"{either(*NAME_KEYS)}[\"'`]?[ \t]*[:=][ \t]*[\"'`]?([\w.\-]*)", re.I
)


def _names_a_secret_key(match: re.Match[str]) -> bool:
    """Not `{"key": "CACHE_KEY", "value": ...}`: a `_KEY` that only sorts or looks up."""
    name = _NAME_IN_PAIR.match(match.group(0))
    key = name.group(1) if name else ""
    return not (key[-3:].lower() == "key" and names_a_plain_key(key, len(key)))


_NAMED_VALUE_GATES: Final = (
    finds_reversed(rf"[=:][ \t]*[\"'`]?{reversed_words(*VALUE_KEYS)}\b", re.IGNORECASE),
)
# gitleaks' generic-api-key: a key word ending the name, then a random value with a digit.
_RANDOM_VALUE: Final = (
    rf"({_named(RANDOM_SUFFIX)}[\"'`]?(?:base64:)?)"
    # Possessive: a longer run fails at once instead of giving back a character at a time.
    r"[A-Za-z0-9_+/=.~\-]{12,200}+(?![\w+/=.~\-])"
)

PATTERNS: Final[tuple[SecretPattern, ...]] = (
    _assignments(PASSWORD_SUFFIX, PASSWORD_REVERSED, PASSWORD_ENDINGS, 1, short_ok=True),
    _assignments(OTHER_SUFFIX, OTHER_REVERSED, OTHER_ENDINGS, 6, short_ok=False),
    _valued(
        _NAMED_VALUE,
        1,
        short_ok=True,
        gates=_NAMED_VALUE_GATES,
        block=False,
        check=_names_a_secret_key,
    ),
    SecretPattern(
        "secret-assignment",
        compile_(_RANDOM_VALUE, re.IGNORECASE),
        keep_group=1,
        gates=(finds_reversed(rf"[=:][ \t]*[\"'`]?{RANDOM_ENDINGS}", re.IGNORECASE),),
        min_entropy=3.5,  # gitleaks' threshold for generic keys
        check=_random_key,
        starts=_name_starts(RANDOM_REVERSED),
    ),
)


# A pair with no key that says which part is the value: `["STRIPE_KEY", "..."]` (a two-item
# list or tuple) or `{"env": "SECRET_TOKEN", "setting": "..."}` (a two-key object), as
# redact_json reads them in work state. The name must name a secret, and the value must look
# like one: no space, a digit or a sign (`["token", "auth"]`, `["SECRET_KEY", "DEBUG"]` stay).
PAIR_NAME: Final = r"[A-Za-z_][\w.\-]{0,80}"
PAIR_VALUE: Final = r"(?=\S*[^\sA-Za-z_.\-])\S+"
_QUOTED_NAME: Final = rf"(?P<nq>[\"'])(?P<name>{PAIR_NAME})(?P=nq)[ \t]*,[ \t]*"


def _quoted_value(closing: str) -> str:
    """A value shaped as PAIR_VALUE in the quote `vq` opened, then `closing` (a bracket)."""
    return (
        r"(?!\[REDACTED)(?=[^\s\"'\\]*[^\s\"'\\A-Za-z_.\-])[^\s\"'\\]{1,500}+"
        rf"(?=(?P=vq)[ \t]*{closing})"
    )


def _pair_names_secret(match: re.Match[str]) -> bool:
    value = match.group(0)[len(match.group(1)) :]
    return (
        names_secret(match.group("name")) and not is_placeholder(value) and not names_secret(value)
    )


# Every pair holds a name's ending, a quote, a comma and a quote (reversed): text.py skips both
# patterns on one search when it finds none.
HAS_PAIR: Final = finds_reversed(
    rf"[\"'][ \t]*,[ \t]*[\"']{either(PASSWORD_ENDINGS, OTHER_ENDINGS, RANDOM_ENDINGS)}",
    re.IGNORECASE,
)
PAIRS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "secret-assignment",
        compile_(rf"([\[(][ \t]*{_QUOTED_NAME}(?P<vq>[\"']))" + _quoted_value(r"[\])]")),
        keep_group=1,
        gates=(HAS_PAIR,),
        check=_pair_names_secret,
    ),
    SecretPattern(
        "secret-assignment",
        compile_(
            rf"(\{{[ \t]*[\"']?{either(*NAME_KEYS)}[\"']?[ \t]*:[ \t]*{_QUOTED_NAME}"
            r"[\"']?[\w\-]{1,40}[\"']?[ \t]*:[ \t]*(?P<vq>[\"']))" + _quoted_value(r"\}")
        ),
        keep_group=1,
        gates=(HAS_PAIR,),
        check=_pair_names_secret,
    ),
)
