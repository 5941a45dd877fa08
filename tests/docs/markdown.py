"""What a Markdown page holds for the docs check: its code (spans and fenced blocks), its prose
links and reference links, and its headings' anchors as GitHub makes them."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

FENCE: Final = re.compile(r"^\s*(```|~~~)")
# A code span may wrap onto the next line, never across a blank one.
CODE_SPAN: Final = re.compile(r"(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
INLINE_LINK: Final = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_USE: Final = re.compile(r"\[([^\]]+)\]\[([^\]]*)\]")
REFERENCE_DEFINITION: Final = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(\S+)", re.MULTILINE)
HEADING: Final = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True, slots=True)
class Page:
    """A Markdown page split into its code and its prose."""

    code: tuple[str, ...]  # one entry per code span and per (continued) line of a code block
    prose: str  # the text with every code span and block blanked out
    headings: tuple[str, ...]


def read_page(text: str) -> Page:
    code: list[str] = []
    prose_lines: list[str] = []
    headings: list[str] = []
    in_fence = False
    continued = ""
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            prose_lines.append("")
            continue
        if in_fence:
            if line.rstrip().endswith("\\"):
                continued += line.rstrip()[:-1] + " "
            else:
                code.append(continued + line)
                continued = ""
            prose_lines.append("")
            continue
        heading = HEADING.match(line)
        if heading:
            headings.append(heading.group(2))
        prose_lines.append(line)
    prose = "\n".join(prose_lines)
    code += [" ".join(span.group(2).split()) for span in CODE_SPAN.finditer(prose)]
    prose = CODE_SPAN.sub(lambda span: " " * len(span.group(0)), prose)
    return Page(code=tuple(code), prose=prose, headings=tuple(headings))


def link_targets(page: Page) -> list[str]:
    """Every inline link's and reference definition's target, in page order."""
    inline = [match.group(1) for match in INLINE_LINK.finditer(page.prose)]
    return inline + [match.group(2) for match in REFERENCE_DEFINITION.finditer(page.prose)]


def undefined_references(page: Page) -> list[str]:
    """Labels of `[text][label]` links the page defines nowhere."""
    defined = {match.group(1).lower() for match in REFERENCE_DEFINITION.finditer(page.prose)}
    used = [match.group(2) or match.group(1) for match in REFERENCE_USE.finditer(page.prose)]
    return [label for label in used if label.lower() not in defined]


def anchors(page: Page) -> set[str]:
    """The `#fragment` of every heading, as GitHub writes it (a repeat gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in page.headings:
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def github_slug(heading: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def table_rows(text: str, columns: Sequence[str]) -> list[dict[str, str]]:
    """The rows of the first table whose header names all of `columns`, each row as its cells
    by column name; none when the text has no such table."""
    lines = text.splitlines()
    for index, line in enumerate(lines[:-1]):
        header = _cells(line)
        if not set(columns) <= set(header) or not re.fullmatch(r"[|:\- ]+", lines[index + 1]):
            continue
        rows = []
        for row in lines[index + 2 :]:
            if not row.lstrip().startswith("|"):
                break
            rows.append(dict(zip(header, _cells(row), strict=True)))
        return rows
    return []


def _cells(line: str) -> list[str]:
    line = line.strip()
    if not line.startswith("|"):
        return []
    return [cell.strip() for cell in line.strip("|").split("|")]
