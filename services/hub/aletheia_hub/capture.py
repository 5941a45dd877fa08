"""Capture of users' prompts (hooks through POST /api/requests): the text never kept (inside
<private> tags), the bounds kept prompts stay within, and the hosts whose capture is off."""

import hashlib
import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Final

from aletheia_hub.clock import DAY_MS
from aletheia_hub.private_tags import strip_private

CAPTURE_OFF_FOR_ENV: Final = "ALETHEIA_CAPTURE_OFF_FOR"
EVERY_HOST: Final = "*"
_HOST_CONTEXT: Final = re.compile(
    r"<(hook_context|aletheia-memory)>.*?</\1>\s*", re.IGNORECASE | re.DOTALL
)


@dataclass(frozen=True, slots=True)
class CaptureLimits:
    """How much capture a project keeps; the oldest prompts go first."""

    max_age_days: int
    max_per_project: int
    max_bytes_per_project: int
    max_prompt_bytes: int

    @property
    def max_age_ms(self) -> int:
        return self.max_age_days * DAY_MS

    @property
    def prompt_bytes(self) -> int:
        """The most one prompt keeps: never more than its project may hold, so the newest
        prompt always fits."""
        return min(self.max_prompt_bytes, self.max_bytes_per_project)


def prompt_to_keep(text: str) -> str:
    """The user's words of a prompt: without what lies inside <private> tags (strip_private)
    and without the context a host put in front of them: Gemini CLI hands its prompt hook the
    SessionStart output as a `<hook_context>` block, which is our own recall, not what the
    user asked."""
    return strip_private(_HOST_CONTEXT.sub("", text))


def cut_to_bytes(text: str, limit: int) -> str:
    """At most `limit` bytes of UTF-8; a cut text ends with a marker that says so."""
    encoded = text.encode()
    if len(encoded) <= limit:
        return text
    marker = f" […cut at {limit} bytes]"
    head = encoded[: max(limit - len(marker.encode()), 0)]
    return head.decode(errors="ignore") + marker


def request_hash(text: str) -> str:
    """What makes two prompts the same: their text with runs of whitespace as one space."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def host_key(name: str) -> str:
    """A host name in the one form host names are compared in: `Cursor`, `CURSOR` and
    `cursor ` are all `cursor`."""
    return name.strip().casefold()


def host_keys(names: Iterable[str]) -> list[str]:
    """Each name's host_key once, in order; blank names dropped."""
    return list(dict.fromkeys(key for key in map(host_key, names) if key))


def parse_hosts(value: str) -> list[str]:
    """Host names as a user writes them: `cursor,codex`, `cursor codex` or a JSON list; as
    host keys (host_key)."""
    value = value.strip()
    if value.startswith("["):
        names = json.loads(value)
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise ValueError('a JSON list of host names, such as ["cursor", "codex"]')
        return host_keys(names)
    return host_keys(re.split(r"[\s,]+", value))


def capture_is_off(off_for: Collection[str], tool: str) -> bool:
    """Whether prompts of `tool` (a host name such as `cursor`, in any case or spacing) are
    not to be kept."""
    keys = host_keys(off_for)
    return EVERY_HOST in keys or host_key(tool) in keys
