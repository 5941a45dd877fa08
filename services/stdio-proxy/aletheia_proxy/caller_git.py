"""The caller's checkout, described to the hub on every request (X-Aletheia-Git): HEAD's
commit and branch, and on a save the blobs of the files the memory cites. Read again only
when HEAD moves (a stat of the files that say where it points)."""

import json
from collections.abc import Iterable
from typing import Any, Final

from aletheia_shared.git_checkout import (
    MAX_TRACKED_FILES,
    Checkout,
    file_blobs,
    head_stamp,
    paths_in_text,
    read_head,
    root_id,
)
from aletheia_shared.git_header import GitState, encode_git_state

# The tools whose memory cites files, with the arguments that hold its prose.
SAVE_TOOLS: Final = {
    "save_memory": ("text",),
    "mem-create": ("narrative",),
    "mem-revise": ("narrative",),
}
_TOOL_CALL: Final = b'"tools/call"'


class CallerGit:
    """The header value for each line sent from one working directory."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self._checkout: Checkout | None = None
        self._stamp: tuple[int, ...] | None = None
        self._plain: str | None = None  # the value without blobs, for this HEAD

    def checkout(self) -> Checkout | None:
        """The working directory's checkout; None outside git."""
        if self._checkout is not None and head_stamp(self._checkout) == self._stamp:
            return self._checkout
        self._checkout = read_head(self.cwd)
        self._stamp = head_stamp(self._checkout) if self._checkout is not None else None
        self._plain = None
        return self._checkout

    def header(self, line: bytes) -> str | None:
        """X-Aletheia-Git for this line; None outside git."""
        checkout = self.checkout()
        if checkout is None:
            return None
        cited = list(_cited_paths(line)) if _TOOL_CALL in line else []
        if not cited and self._plain is not None:
            return self._plain
        state: GitState = {
            "root_id": root_id(checkout.root),
            "head": checkout.head,
            "branch": checkout.branch,
        }
        if not cited:
            self._plain = encode_git_state(state)
            return self._plain
        state["blobs"] = file_blobs(checkout, cited)
        return encode_git_state(state)


def _cited_paths(line: bytes) -> Iterable[str]:
    """The files the saves in a line cite: their `files`, then paths named in their prose."""
    try:
        message: Any = json.loads(line)
    except ValueError:
        return []
    paths: dict[str, None] = {}
    for call in message if isinstance(message, list) else [message]:
        params = call.get("params") if isinstance(call, dict) else None
        if not isinstance(params, dict) or call.get("method") != "tools/call":
            continue
        prose = SAVE_TOOLS.get(str(params.get("name")))
        arguments = params.get("arguments")
        if prose is None or not isinstance(arguments, dict):
            continue
        files = arguments.get("files")
        if isinstance(files, list):
            paths.update((str(path), None) for path in files)
        for name in prose:
            text = arguments.get(name)
            if isinstance(text, str):
                paths.update((path, None) for path in paths_in_text(text))
    return list(paths)[: MAX_TRACKED_FILES * 2]
