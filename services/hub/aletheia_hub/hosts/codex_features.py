"""Codex's hooks feature flag in ~/.codex/config.toml.

Codex documents `[features] hooks` (before that `codex_hooks`, still read as a deprecated
alias): on by default in current versions, behind the flag in earlier ones, and `false` turns
hooks off (https://developers.openai.com/codex/hooks). With `--hooks` we make sure it is on:
`hooks = true` is added (a table of its own at the end of the file when there is none, so the
user's text stays byte for byte) or a `false` turned to `true`; uninstall puts back what was
there. Codex also runs a non-managed hook only once the user has trusted it (`/hooks`), which
we cannot do for them: install and doctor say so.
"""

from pathlib import Path
from typing import Any, Final

import tomlkit
import tomlkit.exceptions

from aletheia_hub import managed_block
from aletheia_hub.hosts.config_files import ConfigFileError
from aletheia_hub.managed_block import Change

FLAG: Final = "hooks"
LEGACY_FLAG: Final = "codex_hooks"
TRUST_HINT: Final = (
    "Codex runs these hooks only once you trust them: start Codex, type /hooks and trust "
    "SessionStart, UserPromptSubmit, PostToolUse and Stop (again after each change to them)."
)


def _parse(path: Path, text: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise ConfigFileError(
            f"{path} is not valid TOML ({error}); it was left as it is. Fix it, then run this "
            "again."
        ) from None


def hooks_state(path: Path, text: str | None) -> bool | None:
    """The flag as the file sets it: `hooks`, else the legacy `codex_hooks`; None when
    neither is set (Codex's default: on in current versions)."""
    features = _parse(path, text or "").get("features")
    if not isinstance(features, dict):
        return None
    for key in (FLAG, LEGACY_FLAG):
        value = features.get(key)
        if isinstance(value, bool):
            return value
    return None


def plan_on(path: Path, base: Change | None) -> tuple[Change | None, tuple[bool, Any]]:
    """The change that sets `[features] hooks = true`, built on `base` (a change already
    planned to the file); and (changed, the value `hooks` had: None when absent)."""
    before = base.before if base is not None else managed_block.read_text(path)
    text = (base.after if base is not None else before) or ""
    document = _parse(path, text)
    features = document.get("features")
    current = features.get(FLAG) if isinstance(features, dict) else None
    if current is True or (current is None and hooks_state(path, text) is True):
        return base, (False, None)
    if features is None:
        lead = "" if not text.strip() else ("\n" if text.endswith("\n") else "\n\n")
        after = text + lead + "[features]\nhooks = true\n"
    else:
        features[FLAG] = True
        after = tomlkit.dumps(document)
    return Change(path, before, after), (True, current)


def plan_back(path: Path, base: Change | None, previous: Any) -> Change | None:
    """The change that puts `hooks` back as it was before we set it (`previous`, None:
    absent), built on `base`; the [features] table goes when nothing else is left in it."""
    before = base.before if base is not None else managed_block.read_text(path)
    text = (base.after if base is not None else before) or ""
    document = _parse(path, text)
    features = document.get("features")
    if not isinstance(features, dict) or features.get(FLAG) is not True:
        return base
    if previous is None:
        del features[FLAG]
        if not features:
            del document["features"]
    else:
        features[FLAG] = previous
    after = tomlkit.dumps(document)
    if previous is None and after.endswith("\n\n"):
        after = after.rstrip("\n") + "\n"  # the blank line that set our table apart
    return Change(path, before, after)
