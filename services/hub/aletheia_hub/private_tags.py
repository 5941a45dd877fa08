"""Text inside <private> tags, which nothing keeps: the hook takes it out of a prompt before
the prompt leaves the machine, and redaction (redact.redact) out of every text before the
store sees it. Light on purpose: the hook imports it on every prompt."""

import re
from typing import Final

# A tag as people type it: any case, spaces inside the brackets (`< private >`, `</ private >`),
# attributes (`<private reason="tax id">`, quoted values may hold `>`), `<private/>` empty.
# `<privateKey>` or `<private-repo>` is another word.
_TAG: Final = re.compile(
    r"<\s*(?P<closing>/)?\s*private(?=[\s/>])"
    r"(?P<attributes>(?:\"[^\"]*\"|'[^']*'|[^\"'<>])*)>",
    re.IGNORECASE,
)


def strip_private(text: str) -> str:
    """`text` without what lies inside <private>…</private>: nested tags count, an opening
    tag never closed hides everything after it, stray closing tags and empty `<private/>`
    tags go too. What taking a span out joins together is read again (`<pri<private>…
    </private>vate>` makes a tag)."""
    while "<" in text:
        kept = _strip_once(text)
        if kept == text:
            break
        text = kept
    return text


def _strip_once(text: str) -> str:
    kept: list[str] = []
    depth = 0
    start = 0
    for tag in _TAG.finditer(text):
        if depth == 0:
            kept.append(text[start : tag.start()])
        if tag["closing"]:
            depth = max(depth - 1, 0)
        elif not tag["attributes"].rstrip().endswith("/"):
            depth += 1
        start = tag.end()
    if depth == 0:
        kept.append(text[start:])
    return "".join(kept)
