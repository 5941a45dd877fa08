"""X-Aletheia-Git: the caller's checkout as its proxy describes it to a hub, in one header.

Compact JSON, percent-encoded where it is not printable ASCII: the root's opaque id (never its
path), HEAD's commit and branch, and on a save the blobs of the files the memory cites.
"""

import json
import re
from typing import Final, NotRequired, TypedDict

from aletheia_shared.headers import decode_text, encode_text

MAX_HEADER_CHARS: Final = 8000  # well inside the header size HTTP servers accept
MAX_BLOBS: Final = 50
MAX_PATH_CHARS: Final = 1000
MAX_BRANCH_CHARS: Final = 255
_GIT_ID: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ROOT_ID: Final = re.compile(r"[0-9a-f]{16}")


class GitState(TypedDict):
    root_id: str
    head: str | None
    branch: str | None
    blobs: NotRequired[dict[str, str]]  # path relative to the root -> working-tree blob


def encode_git_state(state: GitState) -> str:
    """The header value for `state`; blobs are left out, last first, until it fits."""
    blobs = dict(state.get("blobs", {}))
    while True:
        sent: GitState = {
            "root_id": state["root_id"],
            "head": state["head"],
            "branch": state["branch"],
        }
        if "blobs" in state:
            sent["blobs"] = blobs
        value = encode_text(json.dumps(sent, separators=(",", ":"), ensure_ascii=False))
        if len(value) <= MAX_HEADER_CHARS or not blobs:
            return value
        blobs.popitem()


def decode_git_state(value: str) -> GitState | None:
    """The state a header value carries, checked; None when it is not one. Blobs that are
    not well-formed are dropped, at most MAX_BLOBS kept."""
    if len(value) > MAX_HEADER_CHARS * 3:
        return None
    try:
        loaded = json.loads(decode_text(value))
    except (ValueError, RecursionError):
        return None
    if not isinstance(loaded, dict):
        return None
    root_id, head, branch = loaded.get("root_id"), loaded.get("head"), loaded.get("branch")
    if not isinstance(root_id, str) or not _ROOT_ID.fullmatch(root_id):
        return None
    if head is not None and not (isinstance(head, str) and _GIT_ID.fullmatch(head)):
        return None
    if branch is not None and not (isinstance(branch, str) and 0 < len(branch) <= MAX_BRANCH_CHARS):
        return None
    state: GitState = {"root_id": root_id, "head": head, "branch": branch}
    blobs = loaded.get("blobs")
    if isinstance(blobs, dict):
        kept = [
            (path, blob)
            for path, blob in blobs.items()
            if isinstance(blob, str)
            and _GIT_ID.fullmatch(blob)
            and 0 < len(path) <= MAX_PATH_CHARS
            and "\x00" not in path
        ]
        state["blobs"] = dict(kept[:MAX_BLOBS])
    return state
