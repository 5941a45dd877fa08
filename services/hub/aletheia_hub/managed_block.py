"""A managed block in a text file: our lines between two HTML comment markers, and nothing
outside them ever changed. Pure file work: plan changes, show them as a diff, write them.

A block named `aletheia-x` sits between `<!-- aletheia-x -->` and `<!-- /aletheia-x -->`. Its
second line records what we added around it, so removing it gives back the user's bytes
exactly: `created=yes` when we created the file, `lead=N` for the newlines we put before the
block to start it on its own paragraph.

A symbolic link (dotfile managers make them) is the user's: it is never replaced or removed.
Writes and deletes go to the file it leads to; for a link that leads nowhere yet, that file is
created. Given the project root a file belongs to, a write whose real place (through links to
the file or to a folder on its way) lies outside that root is refused before anything is
written: a cloned repository's `AGENTS.md -> ~/.bashrc` must not get our block.
"""

import difflib
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MAX_LINKS: Final = 40  # links in a row before a chain counts as a circle (Linux allows 40)


@dataclass(frozen=True, slots=True)
class Change:
    """One file's content before and after; None before: created, None after: deleted."""

    path: Path
    before: str | None
    after: str | None


class WriteRefused(Exception):
    """A file we will not write; the message says why and what to do."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


class ChangedMeanwhile(WriteRefused):
    """A file changed between planning a change to it and writing it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, f"{path} changed while it was being updated; run the command again.")


class UnusableLink(WriteRefused):
    """A symbolic link whose file cannot be written: it leads round in a circle, into a folder
    that does not exist, or to a file the system will not let us replace."""


class OutsideRoot(WriteRefused):
    """A file of a project whose real place, through symbolic links, is outside the project."""


class BlockFormat:
    """The markers of one kind of block, and the edits that keep the user's text intact."""

    def __init__(self, name: str) -> None:
        self.open_marker = f"<!-- {name} -->"
        self.close_marker = f"<!-- /{name} -->"
        self._meta_prefix = f"<!-- {name}-meta"
        self._meta = re.compile(
            re.escape(self._meta_prefix) + r" created=(yes|no) lead=(\d+) -->\n"
        )
        self._block = re.compile(
            re.escape(self.open_marker)
            + r"\n(?P<meta>(?:"
            + self._meta.pattern
            + r")?)(?s:.*?)"
            + re.escape(self.close_marker)
            + r"\n?"
        )

    def render(self, body: str, *, created: bool, lead: int) -> str:
        meta = f"{self._meta_prefix} created={'yes' if created else 'no'} lead={lead} -->\n"
        return f"{self.open_marker}\n{meta}{body}{self.close_marker}\n"

    def holds_block(self, text: str) -> bool:
        return self._block.search(text) is not None

    def with_block(self, before: str | None, body: str) -> str:
        """The text with our block holding `body`: replaced where it is, else appended (the
        file created when there is none). Extra copies of the block are dropped."""
        if before is None:
            return self.render(body, created=True, lead=0)
        match = self._block.search(before)
        if match is None:
            lead = lead_for(before)
            return before + "\n" * lead + self.render(body, created=False, lead=lead)
        created, lead = self._meta_of(match)
        rest = self.without_blocks(before[match.end() :])
        return before[: match.start()] + self.render(body, created=created, lead=lead) + rest

    def removal(self, path: Path, before: str | None) -> Change | None:
        """The change that takes our blocks out of a file; it deletes a file we created that
        holds nothing else. None when there is no block."""
        if before is None or self._block.search(before) is None:
            return None
        created = any(self._meta_of(match)[0] for match in self._block.finditer(before))
        after = self.without_blocks(before)
        return Change(path, before, None if created and after == "" else after)

    def without_blocks(self, text: str) -> str:
        """The text without our blocks and without the newlines we put before each."""
        pieces: list[str] = []
        position = 0
        for match in self._block.finditer(text):
            kept = text[position : match.start()]
            lead = self._meta_of(match)[1]
            if lead and kept.endswith("\n" * lead):
                kept = kept[:-lead]
            pieces.append(kept)
            position = match.end()
        pieces.append(text[position:])
        return "".join(pieces)

    def _meta_of(self, match: "re.Match[str]") -> tuple[bool, int]:
        meta = self._meta.fullmatch(match.group("meta"))
        if meta is None:
            return False, 0
        return meta.group(1) == "yes", int(meta.group(2))


def lead_for(text: str) -> int:
    """Newlines that start a block on its own paragraph after the user's text."""
    if text == "" or text.endswith("\n\n"):
        return 0
    return 1 if text.endswith("\n") else 2


def clean_line(text: str, limit: int) -> str:
    """One line, bounded, that cannot open or close a comment (and so cannot end a block)."""
    line = " ".join(text.split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return line.replace("<!--", "<!-").replace("-->", "->")


def read_text(path: Path) -> str | None:
    """A file's text, byte for byte (undecodable bytes kept as escapes), or None if absent."""
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None


def apply(changes: Iterable[Change], root: Path | None = None) -> None:
    """Write each change atomically; refuse a file that changed since it was planned. Given
    the project root, refuse every change, before writing any, if one leads out of it."""
    changes = list(changes)
    if root is not None:
        check_inside(changes, root)
    for change in changes:
        if read_text(change.path) != change.before:
            raise ChangedMeanwhile(change.path)
        if change.after is None:
            resolve_link(change.path).unlink()
        else:
            change.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(change.path, change.after)


def real_path(path: Path) -> Path:
    """Where a path's bytes are: every symbolic link on the way followed, the file's own and its
    folders' (a link that leads nowhere yet: the file it would create)."""
    return Path(os.path.realpath(path))


def check_inside(changes: Iterable[Change], root: Path) -> None:
    """Refuse (OutsideRoot) the first change whose file is really outside the project root."""
    base = real_path(root.expanduser())
    for change in changes:
        real = real_path(change.path)
        if not real.is_relative_to(base):
            raise OutsideRoot(
                change.path,
                f"{change.path} leads through a symbolic link to {real}, outside the project "
                f"{base}; nothing was written. Aletheia writes only inside the project: replace "
                "the link with a file of its own (or point it inside the project), then run "
                "this again.",
            )


def resolve_link(path: Path) -> Path:
    """The file a path stands for: where its symbolic link leads, through a chain of them, each
    read relative to its own folder; the path itself when it is no link."""
    current = path
    for _ in range(MAX_LINKS):
        if not current.is_symlink():
            return current
        # Joined, not normalized: the system reads `..` in a link from the link's real folder.
        current = current.parent / current.readlink()
    raise UnusableLink(
        path,
        f"{path} is a symbolic link that leads round in a circle (or through over {MAX_LINKS} "
        "links); point it at a file, then run this again.",
    )


def write_atomically(path: Path, text: str) -> None:
    """Replace the file in one step (a temporary file beside it, then a rename), keeping its
    permissions; a reader sees the old text or the new, never a half-written file. Through a
    symbolic link, the file it leads to is replaced (or created) and the link stays."""
    target = resolve_link(path)
    if target == path:
        _replace(target, text)
        return
    if not target.parent.is_dir():
        raise UnusableLink(
            path,
            f"{path} is a symbolic link to {os.path.realpath(target)}, whose folder does not "
            "exist; create the folder (or remove the link), then run this again.",
        )
    try:
        _replace(target, text)
    except OSError as error:
        raise unwritable_link(path, target, error) from None


def unwritable_link(path: Path, target: Path, error: OSError) -> UnusableLink:
    """The refusal for a link whose file (or the folder it is in) the system will not let us
    write: a link into a read-only store, say."""
    return UnusableLink(
        path,
        f"{path} is a symbolic link to {os.path.realpath(target)}, which cannot be written "
        f"({error.strerror or error}); change the file where it is kept, or replace the link "
        "with a file of its own, then run this again.",
    )


def _replace(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(text.encode("utf-8", "surrogateescape"))
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def display_name(path: Path, root: Path | None) -> str:
    """The path relative to the root when it lies under it, else as it is."""
    if root is not None:
        try:
            return path.relative_to(root.expanduser().resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def shown_name(path: Path, root: Path | None) -> str:
    """The path as display_name shows it, followed by where it really leads when a symbolic
    link takes it elsewhere (`CLAUDE.md -> AGENTS.md`, `CLAUDE.md -> /home/me/x.md`)."""
    name = display_name(path, root)
    real = display_name(real_path(path), root)
    return name if real == name else f"{name} -> {real}"


def diff(changes: Iterable[Change], root: Path | None = None) -> str:
    """A unified diff of the changes, paths relative to the root (each followed by the file a
    link leads to, when it leads elsewhere); empty when nothing changes."""
    parts: list[str] = []
    for change in changes:
        name = shown_name(change.path, root)
        parts.extend(
            difflib.unified_diff(
                (change.before or "").splitlines(keepends=True),
                (change.after or "").splitlines(keepends=True),
                fromfile="/dev/null" if change.before is None else f"a/{name}",
                tofile="/dev/null" if change.after is None else f"b/{name}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in parts)
