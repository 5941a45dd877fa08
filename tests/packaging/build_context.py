"""The files `docker build` sends as its context: every file under the folder but those its
.dockerignore leaves out, decided as Docker's pattern matcher (moby/patternmatcher) decides.

A line is a pattern unless it starts with `#`; it is trimmed and cleaned (a leading `/`
dropped); `!` before it includes again what it matches. `*` and `?` never match `/`, `**`
matches any number of folders (none too). A path is left out when the last pattern that
matches it, or one of its parent folders, is not a `!` one. A folder left out is not walked
unless a `!` pattern names something inside it.
"""

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# What Go's filepath.Match gives no meaning but a regular expression would.
_LITERAL: Final = ".+()|{}$"


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    negated: bool
    regex: re.Pattern[str]

    def matches(self, path: str) -> bool:
        return self.regex.match(path) is not None


def _regex(pattern: str) -> re.Pattern[str]:
    """patternmatcher's translation (its exact, prefix and suffix shortcuts give the same
    answers as the expression)."""
    out, i = "^", 0
    while i < len(pattern):
        ch = pattern[i]
        i += 1
        if ch == "*" and pattern[i : i + 1] == "*":
            i += 1
            if pattern[i : i + 1] == "/":
                i += 1
            out += ".*" if i == len(pattern) else "(.*/)?"
        elif ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch in _LITERAL:
            out += "\\" + ch
        elif ch == "\\" and i < len(pattern):
            out += "\\" + pattern[i]
            i += 1
        else:
            out += "\\\\" if ch == "\\" else ch
    return re.compile(out + "$")


def read_patterns(text: str) -> list[Pattern]:
    patterns = []
    for raw in text.splitlines():
        if raw.startswith("#"):
            continue
        line = raw.strip()
        if not line:
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:].strip()
        if line:
            line = posixpath.normpath(line)
            if len(line) > 1 and line.startswith("/"):
                line = line[1:]
        patterns.append(Pattern(line, negated, _regex(line)))
    return patterns


def is_left_out(path: str, patterns: list[Pattern]) -> bool:
    """MatchesOrParentMatches: the last pattern matching the path or a parent decides."""
    parents = path.split("/")[:-1]
    left_out = False
    for pattern in patterns:
        if pattern.negated != left_out:
            continue
        matched = pattern.matches(path) or any(
            pattern.matches("/".join(parents[: depth + 1])) for depth in range(len(parents))
        )
        if matched:
            left_out = not pattern.negated
    return left_out


def context_files(root: Path, patterns: list[Pattern]) -> set[str]:
    """Every file (and symlink) docker sends from root, as paths relative to it."""
    sent: set[str] = set()
    negations = [pattern.text for pattern in patterns if pattern.negated]
    for folder, folders, files in os.walk(root):
        relative = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative == "." else relative + "/"
        walked = []
        for name in folders:
            path = prefix + name
            if (Path(folder) / name).is_symlink():
                files.append(name)
            elif not is_left_out(path, patterns) or any(
                (negation + "/").startswith(path + "/") for negation in negations
            ):
                walked.append(name)
        folders[:] = walked
        sent.update(prefix + name for name in files if not is_left_out(prefix + name, patterns))
    return sent
