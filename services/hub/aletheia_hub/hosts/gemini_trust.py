"""Gemini CLI's folder trust: in a folder it does not trust, it leaves user-level MCP servers
(ours too) disabled. Trust lives in ~/.gemini/trustedFolders.json, a map from absolute paths to
TRUST_FOLDER (that folder and below), TRUST_PARENT (its parent and below) or DO_NOT_TRUST; the
rule of the nearest folder decides."""

import json
from pathlib import Path
from typing import Final

TRUST_FILE: Final = Path(".gemini") / "trustedFolders.json"
TRUST_HINT: Final = (
    "Gemini CLI keeps user-level MCP servers disabled in folders it does not trust: trust each "
    "project folder when Gemini asks (or with /permissions); the list is in "
    "~/.gemini/trustedFolders.json."
)


def trusted_rules(home: Path) -> dict[Path, str]:
    """The trust rules, each keyed by the folder it covers; none when the file is missing or
    unreadable."""
    try:
        loaded = json.loads((home / TRUST_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    rules = {}
    for raw, level in loaded.items():
        if isinstance(raw, str) and isinstance(level, str):
            path = Path(raw)
            rules[path.parent if level == "TRUST_PARENT" else path] = level
    return rules


def is_trusted(home: Path, folder: Path) -> bool:
    """Whether Gemini CLI trusts `folder`: the nearest rule at or above it says trust."""
    rules = trusted_rules(home)
    for candidate in (folder, *folder.parents):
        level = rules.get(candidate)
        if level is not None:
            return level != "DO_NOT_TRUST"
    return False
