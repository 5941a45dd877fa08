"""Secret redaction: every pattern in one place, applied before anything is stored or hashed."""

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class SecretPattern:
    kind: str
    pattern: re.Pattern[str]
    keep_group: int = 0  # a group kept verbatim in front of the redaction (a key name, a user)


def _p(regex: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(regex, flags)


# What follows `password:` or `token =` in code rather than a value: a type or a call.
_NOT_A_VALUE: Final = (
    r"(?:str|string|number|boolean|bool|int|bytes|Optional\[[^\]\s]*\]|SecretStr)"
    r"(?![^\s\"',;=])"
    r"|[A-Za-z_][\w.]*\((?:\"[^\"\s]*\"|'[^'\s]*')?\)(?![^\s\"',;])"
)

# Order matters: specific shapes first, so a key is named by its most precise kind.
PATTERNS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "private-key",
        _p(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        ),
    ),
    SecretPattern(
        "aws-access-key", _p(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")
    ),
    SecretPattern("gcp-api-key", _p(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    SecretPattern("github-token", _p(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b")),
    SecretPattern("github-token", _p(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    SecretPattern("gitlab-token", _p(r"\bglpat-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])")),
    SecretPattern("slack-token", _p(r"\bxox[abposr]-[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])")),
    SecretPattern(
        "slack-webhook",
        _p(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    SecretPattern("stripe-key", _p(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    SecretPattern("anthropic-key", _p(r"\bsk-ant-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])")),
    SecretPattern(
        "openai-key",
        _p(
            r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])"
        ),
    ),
    SecretPattern("jwt", _p(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    SecretPattern("bearer-token", _p(r"(\b[Bb]earer\s+)[A-Za-z0-9._~+/\-]{16,}=*"), keep_group=1),
    SecretPattern(
        "url-password",
        _p(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]*:)(?!\[REDACTED)[^\s@/]+(?=@)"),
        keep_group=1,
    ),
    SecretPattern(
        "secret-assignment",
        _p(
            r"(\b[A-Za-z0-9_.\-]*(?:secret|password|passwd|pwd|token|api[_\-]?key|access[_\-]?key"
            r"|private[_\-]?key|secret[_\-]?key|credentials?|auth[_\-]?token|client[_\-]?secret)"
            r"[\"']?\s*[=:]\s*[\"']?)"
            r"(?!\[REDACTED|" + _NOT_A_VALUE + r")(?=[^\s\"']{6})[^\s\"']*[^\s\"',;]",
            re.IGNORECASE,
        ),
        keep_group=1,
    ),
)


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int


def redact(text: str) -> Redacted:
    """The text with every secret replaced by `[REDACTED:<kind>]`, and how many there were."""
    count = 0
    for secret in PATTERNS:

        def replace(match: re.Match[str], secret: SecretPattern = secret) -> str:
            nonlocal count
            count += 1
            kept = match.group(secret.keep_group) if secret.keep_group else ""
            return f"{kept}[REDACTED:{secret.kind}]"

        text = secret.pattern.sub(replace, text)
    return Redacted(text=text, count=count)
