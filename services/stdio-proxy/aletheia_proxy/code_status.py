"""The caller's checkout, told to a team hub: the hub never reads a remote disk, so before
the first tool call at each HEAD the proxy asks which (commit, file, blob) its project's
memories hold, checks them here with git, and pushes what changed and which commits HEAD
holds. A local hub reads the checkout itself and says so; then nothing is pushed again."""

import logging
import time
from collections.abc import Iterable
from typing import Any, Final

from aletheia_proxy.config import ProxyConfig
from aletheia_proxy.transport import HubClient, HubUnreachable, HubUntrusted, health_url
from aletheia_shared.code_changes import known_commits, many_file_changes
from aletheia_shared.git_checkout import (
    Checkout,
    head_stamp,
    merged_into_head,
    read_checkout,
    root_id,
)

logger = logging.getLogger("aletheia_proxy")

# Git work per push: commits are asked about, newest first, until this much time has passed.
PUSH_SECONDS: Final = 3.0
MERGE_CHUNK: Final = 20  # commits asked about between two looks at the clock
MAX_COMMITS: Final = 200  # saved commits whose files are checked (one git log each), newest first
TOOL_CALL: Final = b'"tools/call"'


class CodeStatusPusher:
    """Pushes the checkout's status once per HEAD, before a tool call needs it."""

    def __init__(self, hub: HubClient, config: ProxyConfig) -> None:
        self.hub = hub
        self.config = config
        self.off = False  # the hub reads the checkout itself, or has no such route
        self._checkout: Checkout | None = None
        self._stamp: tuple[int, ...] | None = None
        self._pushed: tuple[str, str] | None = None  # (root, HEAD) last pushed

    def before(self, line: bytes) -> None:
        """Called with every line before it is forwarded; acts on a tools/call only."""
        if self.off or TOOL_CALL not in line:
            return
        checkout = self.checkout()
        if checkout is None or checkout.head is None:
            return
        if self._pushed == (checkout.root, checkout.head):
            return
        try:
            self._push(checkout, checkout.head)
        except (HubUnreachable, HubUntrusted, ValueError) as error:
            logger.info("code status not pushed: %s", error)  # the call goes on unmarked
            return
        self._pushed = (checkout.root, checkout.head)

    def checkout(self) -> Checkout | None:
        """The checkout of the working directory, read again only when HEAD moved."""
        if self._checkout is not None and head_stamp(self._checkout) == self._stamp:
            return self._checkout
        self._checkout = read_checkout(self.config.cwd)
        self._stamp = head_stamp(self._checkout) if self._checkout is not None else None
        return self._checkout

    def _push(self, checkout: Checkout, head: str) -> None:
        base = health_url(self.hub.hub_url).removesuffix("/healthz") + "/api/code"
        named = root_id(checkout.root)
        asked = self.hub.get_json(
            base + "/refs", {"project": self.config.project, "root_id": named, "head": head}
        )
        if asked.status_code == 404:
            self.off = True  # a hub without this route
            return
        if asked.status_code != 200:
            raise ValueError(f"the hub refused the code refs: HTTP {asked.status_code}")
        refs: dict[str, Any] = asked.json()
        if refs.get("reads_disk"):
            self.off = True
            return
        if refs.get("have"):
            return
        body = status_body(checkout, head, refs.get("refs", []), refs.get("commits", []))
        body.update(project=self.config.project, root_id=named)
        pushed = self.hub.post_json(base + "/status", body)
        if pushed.status_code != 200:
            raise ValueError(f"the hub refused the code status: HTTP {pushed.status_code}")


def status_body(
    checkout: Checkout, head: str, refs: Iterable[Any], commits: Iterable[Any]
) -> dict[str, Any]:
    """What POST /api/code/status takes: the changed files of `refs` ((commit, path, blob),
    newest first) and, of `commits`, whether HEAD holds each one this repository knows."""
    deadline = time.monotonic() + PUSH_SECONDS
    groups: dict[str, list[dict[str, str]]] = {}
    for ref in refs:
        commit, path, blob = (str(part) for part in ref)
        batches = groups.setdefault(commit, [])
        batch = next((batch for batch in batches if path not in batch), None)
        if batch is None:
            batch = {}
            batches.append(batch)
        batch[path] = blob
    newest = list(groups.items())[:MAX_COMMITS]
    asked_files = [(commit, blobs) for commit, batches in newest for blobs in batches]
    changes = [
        {
            "commit": commit,
            "path": path,
            "blob": blobs[path],
            "kind": change.kind,
            "commits": change.commits,
            "new_path": change.new_path,
        }
        for (commit, blobs), found in zip(
            asked_files, many_file_changes(checkout, asked_files), strict=True
        )
        for path, change in found.items()
    ]
    asked = [str(commit) for commit in commits]
    known = known_commits(checkout, asked)
    merged: dict[str, bool] = {}
    for start in range(0, len(asked), MERGE_CHUNK):
        if time.monotonic() > deadline:
            break
        chunk = [commit for commit in asked[start : start + MERGE_CHUNK] if commit in known]
        merged.update(merged_into_head(checkout, chunk))
    return {"head": head, "branch": checkout.branch, "changes": changes, "merged": merged}
