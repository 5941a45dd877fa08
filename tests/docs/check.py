"""Find what a docs page names that does not exist: a relative link's file or heading, an
ALETHEIA_* variable no package reads, a command, subcommand, flag or make target."""

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.docs import names
from tests.docs.markdown import Page, anchors, link_targets, read_page, undefined_references

SCHEME: Final = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")
NAMED_VARIABLE: Final = re.compile(r"(?<![A-Za-z0-9_])ALETHEIA_[A-Z0-9_]*")
WORD: Final = re.compile(r"[a-z][a-z0-9-]*")
FLAG: Final = re.compile(r"--?[A-Za-z][\w-]*")
ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS: Final = frozenset({"&&", "||", ";"})
WRAPPERS: Final = frozenset({"sudo", "env", "exec", "time", "nohup"})


def doc_problems(path: Path, text: str) -> list[str]:
    """Everything the page at `path` (its folder anchors its links) names that does not exist,
    each a line naming the page."""
    page = read_page(text)
    shown = path.relative_to(names.ROOT).as_posix()
    found = link_problems(path, page) + variable_problems(text) + command_problems(page)
    return [f"{shown}: {problem}" for problem in found]


def link_problems(path: Path, page: Page) -> list[str]:
    problems = [f"[{label}] is used but never defined" for label in undefined_references(page)]
    for target in link_targets(page):
        if SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if file_part and not linked.exists():
            problems.append(f"link {target} leads to no file")
        elif anchor and linked.suffix == ".md":
            held = read_page(linked.read_text(encoding="utf-8")) if file_part else page
            if anchor not in anchors(held):
                problems.append(f"link {target}: {linked.name} has no heading #{anchor}")
    return problems


def variable_problems(text: str) -> list[str]:
    known = names.variables()
    problems = []
    for name in dict.fromkeys(NAMED_VARIABLE.findall(text)):
        if name.endswith("_"):  # a family, such as ALETHEIA_CAPTURE_*
            if not any(variable.startswith(name) for variable in known):
                problems.append(f"{name}* names no variable any package reads")
        elif name not in known:
            problems.append(f"{name} is read by no package")
    return problems


def command_problems(page: Page) -> list[str]:
    problems: list[str] = []
    for snippet in page.code:
        for words in _segments(_words(snippet)):
            for at in _command_positions(words):
                problems += _invocation_problems(words[at:], snippet)
    return list(dict.fromkeys(problems))


def _words(snippet: str) -> list[str]:
    line = re.sub(r"(^|\s)#.*", "", snippet)  # a shell comment
    try:
        return shlex.split(line)
    except ValueError:  # an unbalanced quote: prose in a code span
        return line.split()


def _segments(words: list[str]) -> list[list[str]]:
    """The commands of a shell line; a lone `|` stays, since the docs write alternatives so."""
    segments: list[list[str]] = [[]]
    for word in words:
        if word in SEPARATORS:
            segments.append([])
        else:
            segments[-1].append(word)
    return segments


def _command_positions(words: list[str]) -> list[int]:
    """Where a command starts: first (after VAR=value and wrappers, or `docker compose exec
    SERVICE`), and after a `--` that hands the rest to another program (`claude mcp add`)."""
    at = 0
    while at < len(words) and (ASSIGNMENT.match(words[at]) or words[at] in WRAPPERS):
        at += 1
    if words[at : at + 3] in (["docker", "compose", "exec"], ["docker", "compose", "run"]):
        at += 3
        while at < len(words) and words[at].startswith("-"):
            at += 1
        at += 1  # the service
    positions = [at] if at < len(words) else []
    return positions + [index + 1 for index, word in enumerate(words[:-1]) if word == "--"]


def _invocation_problems(words: list[str], snippet: str) -> list[str]:
    program = words[0].rsplit("/", 1)[-1]
    if program == "make":
        return _make_problems(words[1:], snippet)
    command = names.commands().get(program)
    if command is None:
        return []
    walk = _Walk(snippet, [program], command, set(command.flags))
    for raw in words[1:]:
        word = raw.strip("[](),")
        if word == "--" or not walk.take(word):
            break
    return walk.problems


@dataclass(slots=True)
class _Walk:
    """Reads an invocation word by word: subcommands (or a positional's choices) first, then
    flags, each checked against the commands walked so far."""

    snippet: str
    chain: list[str]
    command: names.Command
    flags: set[str]
    expecting_word: bool = True
    problems: list[str] = field(default_factory=list)

    def take(self, word: str) -> bool:
        """Check one word; False when the rest cannot be read (an unknown subcommand)."""
        flag = word.split("=")[0]
        if FLAG.fullmatch(flag) and (flag.startswith("--") or len(flag) == 2):
            if flag not in self.flags:
                self.report(f"takes no {flag}")
            self.expecting_word = False
            return True
        alternatives = word.split("|")
        if not (self.expecting_word and all(WORD.fullmatch(part) for part in alternatives)):
            self.expecting_word = False
            return True
        if self.command.subcommands:
            return self.enter(alternatives)
        choices = self.command.choices
        for part in alternatives:
            if choices and part not in choices:
                self.report(f"takes no {part} (only {', '.join(choices)})")
        self.expecting_word = False
        return True

    def enter(self, alternatives: list[str]) -> bool:
        unknown = [part for part in alternatives if part not in self.command.subcommands]
        for part in unknown:
            self.report(f"has no command {part}")
        if unknown:
            return False
        self.chain.append(alternatives[0])
        self.command = self.command.subcommands[alternatives[0]]
        self.flags |= self.command.flags
        return True

    def report(self, what: str) -> None:
        self.problems.append(f"`{self.snippet}`: {' '.join(self.chain)} {what}")


def _make_problems(words: list[str], snippet: str) -> list[str]:
    targets = []
    for word in words:
        if not WORD.fullmatch(word):
            break
        targets.append(word)
    return [
        f"`{snippet}`: the Makefile has no target {target}"
        for target in targets
        if target not in names.make_targets()
    ]
